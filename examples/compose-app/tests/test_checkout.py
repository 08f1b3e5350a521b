import pytest
from conftest import scalar

from shop import store


def test_checkouts_take_stock_and_empty_the_cart(shop, shelf):
    db, cache = shop
    ids = shelf(30)
    bought = {i: 0 for i in ids}
    for s in range(100):
        picks = [ids[(s * 7 + k) % 30] for k in range(3)]
        for i in picks:
            store.add_to_cart(cache, f"s{s}", i, 1 + s % 2)
            bought[i] += 1 + s % 2
        order = store.checkout(db, cache, f"s{s}")
        assert order["total_cents"] == sum(100 * i * (1 + s % 2) for i in picks)
        assert store.cart(cache, f"s{s}") == {}
    assert scalar(db, "SELECT count(*) FROM orders") == 100
    for i in ids:
        assert store.product(db, cache, i)["stock"] == 100 - bought[i]
    mismatched = scalar(
        db,
        """SELECT count(*) FROM orders o
           WHERE total_cents <> (SELECT sum(quantity * price_cents) FROM order_lines l WHERE l.order_id = o.id)""",
    )
    assert mismatched == 0


def test_out_of_stock_writes_nothing_and_keeps_the_cart(shop, shelf):
    db, cache = shop
    [scarce] = shelf(1, count=5)
    [plenty] = shelf(1, count=1000, first=2)
    for s in range(20):
        store.add_to_cart(cache, f"s{s}", plenty, 3)
        store.add_to_cart(cache, f"s{s}", scarce, 1)
    failed = []
    for s in range(20):
        try:
            store.checkout(db, cache, f"s{s}")
        except store.OutOfStock:
            failed.append(s)
    assert failed == list(range(5, 20))
    assert store.product(db, cache, scarce)["stock"] == 0
    assert store.product(db, cache, plenty)["stock"] == 1000 - 5 * 3
    assert all(store.cart(cache, f"s{s}") == {plenty: 3, scarce: 1} for s in failed)
    store.restock(db, cache, scarce, 15)
    for s in failed:
        store.checkout(db, cache, f"s{s}")
    assert scalar(db, "SELECT count(*) FROM orders") == 20
    assert store.product(db, cache, scarce)["stock"] == 0
    with pytest.raises(ValueError):
        store.checkout(db, cache, "s0")


def test_an_order_is_priced_when_it_is_placed(shop, shelf):
    db, cache = shop
    ids = shelf(10)
    for round_ in range(10):
        for i in ids:
            store.add_to_cart(cache, f"r{round_}", i)
            store.set_price(db, cache, i, 100 * i + round_)
        store.checkout(db, cache, f"r{round_}")
    totals = [o["total_cents"] for r in range(10) for o in store.orders_of(db, f"r{r}")]
    assert totals == [sum(100 * i + r for i in ids) for r in range(10)]
