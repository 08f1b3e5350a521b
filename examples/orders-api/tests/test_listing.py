"""Listing a customer's orders page by page, by status, and the customer's summary."""

import pytest

from orders import repo


def walk(conn, customer_id, limit, status=None):
    """Every page in turn: the pages and the cursors that led to them."""
    pages, after = [], None
    while True:
        page, after = repo.list_orders(conn, customer_id, limit, after, status)
        pages.append(page)
        if after is None:
            return pages
        assert len(pages) < 1000, "the cursor never ends"


@pytest.mark.parametrize(
    "count, limit",
    [
        (0, 5),
        (1, 1),
        (1, 5),
        (5, 5),
        pytest.param(6, 5, marks=pytest.mark.short),
        (10, 3),
        (25, 10),
        (40, 7),
        (12, 100),
        (50, 50),
    ],
)
def test_pages_cover_every_order_once_newest_first(conn, make_customer, count, limit):
    customer = make_customer()
    made = [repo.create_order(conn, customer["id"], note=f"n{i}")["id"] for i in range(count)]
    pages = walk(conn, customer["id"], limit)
    ids = [o["id"] for page in pages for o in page]
    assert ids == sorted(made, reverse=True)
    assert all(len(page) == limit for page in pages[:-1])
    assert len(pages) == max(1, -(-count // limit))


@pytest.mark.parametrize("status", ["draft", "placed", "paid", "cancelled"])
def test_filter_by_status(conn, make_customer, make_order, status):
    customer = make_customer()
    moves = {"draft": [], "placed": ["placed"], "paid": ["placed", "paid"], "cancelled": ["cancelled"]}
    want = []
    for i in range(12):
        kind = list(moves)[i % 4]
        order = make_order(statuses=moves[kind], customer=customer)
        if kind == status:
            want.append(order["id"])
    got = [o["id"] for page in walk(conn, customer["id"], 2, status) for o in page]
    assert got == sorted(want, reverse=True)


@pytest.mark.parametrize("customers", [2, 3, 5])
def test_customers_see_only_their_orders(conn, make_customer, make_order, customers):
    people = [make_customer() for _ in range(customers)]
    owned = {p["id"]: [] for p in people}
    for i in range(4 * customers):
        person = people[(i * 7) % customers]
        owned[person["id"]].append(make_order(customer=person)["id"])
    for person in people:
        page, following = repo.list_orders(conn, person["id"], 100)
        assert following is None
        assert [o["id"] for o in page] == sorted(owned[person["id"]], reverse=True)
        assert {o["customer_id"] for o in page} <= {person["id"]}


@pytest.mark.parametrize("limit", [0, -1, 101])
def test_bad_page_size(conn, make_customer, limit):
    customer = make_customer()
    with pytest.raises(repo.Invalid):
        repo.list_orders(conn, customer["id"], limit)


# (orders as (lines, statuses), expected orders per status, expected cents received)
SUMMARIES = [
    pytest.param([], {}, 0, id="none"),
    pytest.param(
        [([("A", 2, 500)], ["placed", "paid"]), ([("B", 1, 100)], []), ([("C", 3, 10)], ["cancelled"])],
        {"paid": 1, "draft": 1, "cancelled": 1},
        1000,
        id="mixed",
        marks=pytest.mark.short,
    ),
    pytest.param(
        [
            ([("A", 1, 100)], ["placed", "paid", "shipped"]),
            ([("A", 1, 200)], ["placed", "paid", "shipped", "delivered"]),
            ([("A", 1, 400)], ["placed", "paid", "cancelled"]),
            ([("A", 1, 800)], ["placed"]),
        ],
        {"shipped": 1, "delivered": 1, "cancelled": 1, "placed": 1},
        300,
        id="only-paid-counts",
    ),
]


@pytest.mark.parametrize("orders, by_status, received", SUMMARIES)
def test_customer_summary(conn, make_customer, make_order, orders, by_status, received):
    customer = make_customer()
    bystander = make_customer()
    make_order([("Z", 100, 100)], ["placed", "paid"], customer=bystander)
    for lines, statuses in orders:
        make_order(lines, statuses, customer=customer)
    summary = repo.customer_summary(conn, customer["id"])
    assert summary == {"orders": len(orders), "by_status": by_status, "received_cents": received}
