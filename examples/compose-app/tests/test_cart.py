from conftest import scalar

from shop import store


def test_carts_are_per_session_and_expire(shop, shelf):
    db, cache = shop
    ids = shelf(50)
    for s in range(50):
        for i in ids[s % 10 : s % 10 + 5]:
            store.add_to_cart(cache, f"s{s}", i, 1 + s % 3)
    for s in range(50):
        assert store.cart(cache, f"s{s}") == {i: 1 + s % 3 for i in ids[s % 10 : s % 10 + 5]}
        assert 0 < cache("TTL", f"cart:s{s}") <= store.CART_TTL_S
    assert store.cart(cache, "nobody") == {}
    # Nothing in a cart is an order yet.
    assert scalar(db, "SELECT count(*) FROM orders") == 0
    assert scalar(db, "SELECT sum(stock) FROM products") == 50 * 100


def test_taking_an_item_out(shop, shelf):
    db, cache = shop
    ids = shelf(30)
    for i in ids:
        store.add_to_cart(cache, "s", i, 2)
        store.restock(db, cache, i, i)
    for i in ids[::2]:
        assert store.add_to_cart(cache, "s", i, -1) == 1
        assert store.add_to_cart(cache, "s", i, -1) == 0
    assert store.cart(cache, "s") == {i: 2 for i in ids[1::2]}
    assert scalar(db, "SELECT sum(stock) FROM products") == 30 * 100 + sum(ids)
