"""Order lines and totals: what is added is what the order sums to."""

import pytest

from orders import repo

# (lines, expected item count, expected total in cents)
BASKETS = [
    pytest.param([], 0, 0, id="empty"),
    pytest.param([("A", 1, 100)], 1, 100, id="one", marks=pytest.mark.short),
    pytest.param([("A", 3, 250)], 3, 750, id="one-times-three"),
    pytest.param([("A", 1, 100), ("B", 2, 50)], 3, 200, id="two"),
    pytest.param([("A", 1, 0)], 1, 0, id="free"),
    pytest.param([("A", 10000, 1)], 10000, 10000, id="max-quantity"),
    pytest.param([("A", 2, 999_999_999)], 2, 1_999_999_998, id="beyond-int32"),
    pytest.param([("A", 1, 1), ("B", 1, 2), ("C", 1, 3), ("D", 1, 4)], 4, 10, id="four"),
    pytest.param([(f"SKU-{i}", i, 10 * i) for i in range(1, 21)], 210, 28700, id="twenty"),
    pytest.param([("A", 1, 100), ("A", 2, 100)], 3, 300, id="merged"),
    pytest.param([("a-1", 5, 20)], 5, 100, id="lower-case-sku"),
    pytest.param([("X", 7, 333), ("Y", 3, 1)], 10, 2334, id="odd-prices"),
]


@pytest.mark.parametrize("lines, items, total", BASKETS)
def test_order_total(conn, make_order, lines, items, total):
    order = make_order(lines)
    read = repo.get_order(conn, order["id"])
    assert read["item_count"] == items
    assert read["total_cents"] == total
    assert sum(line["line_total_cents"] for line in read["lines"]) == total
    assert read == order


@pytest.mark.parametrize(
    "first, second, price1, price2",
    [(1, 1, 100, 100), (2, 3, 100, 120), (9999, 1, 5, 5), (4, 6, 300, 0)],
)
def test_same_sku_merges_with_latest_price(conn, make_order, first, second, price1, price2):
    order = make_order([("SKU-1", first, price1)])
    order = repo.add_line(conn, order["id"], "sku-1", second, price2)
    assert len(order["lines"]) == 1
    line = order["lines"][0]
    assert (line["sku"], line["quantity"], line["unit_price_cents"]) == ("SKU-1", first + second, price2)
    assert order["total_cents"] == (first + second) * price2


@pytest.mark.parametrize(
    "sku, quantity, price",
    [
        pytest.param("", 1, 100, id="empty-sku"),
        pytest.param("HAS SPACE", 1, 100, id="space-in-sku"),
        pytest.param("S" * 33, 1, 100, id="long-sku"),
        pytest.param("A", 0, 100, id="zero-quantity", marks=pytest.mark.short),
        pytest.param("A", -1, 100, id="negative-quantity"),
        pytest.param("A", 10001, 100, id="too-many"),
        pytest.param("A", "3", 100, id="quantity-as-text"),
        pytest.param("A", 1, -1, id="negative-price"),
    ],
)
def test_invalid_line_is_refused(conn, make_order, sku, quantity, price):
    order = make_order([("KEEP", 2, 10)])
    with pytest.raises(repo.Invalid):
        repo.add_line(conn, order["id"], sku, quantity, price)
    assert repo.get_order(conn, order["id"]) == order


def test_quantity_overflow_by_merge_is_refused(conn, make_order):
    order = make_order([("A", 6000, 1)])
    with pytest.raises(repo.Invalid):
        repo.add_line(conn, order["id"], "A", 5000, 1)
    assert repo.get_order(conn, order["id"])["item_count"] == 6000


@pytest.mark.parametrize("removed", [0, 1, 2])
def test_remove_line(conn, make_order, removed):
    order = make_order([("A", 1, 100), ("B", 2, 200), ("C", 3, 300)])
    gone = order["lines"][removed]
    order = repo.remove_line(conn, order["id"], gone["id"])
    assert [line["sku"] for line in order["lines"]] == [s for s in "ABC" if s != gone["sku"]]
    assert order["total_cents"] == 1400 - gone["line_total_cents"]


def test_remove_unknown_line(conn, make_order):
    order = make_order([("A", 1, 100)])
    other = make_order([("B", 1, 100)])
    with pytest.raises(repo.NotFound):
        repo.remove_line(conn, order["id"], other["lines"][0]["id"])
    assert len(repo.get_order(conn, other["id"])["lines"]) == 1


def test_line_on_unknown_order(conn, make_order):
    order = make_order()
    with pytest.raises(repo.NotFound):
        repo.add_line(conn, order["id"] + 1, "A", 1, 1)
