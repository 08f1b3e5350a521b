from conftest import scalar

from shop import store


def test_products_are_read_through_the_cache(shop, shelf):
    db, cache = shop
    ids = shelf(100)
    for i in ids:
        assert cache("EXISTS", f"product:{i}") == 0
        assert store.product(db, cache, i)["price_cents"] == 100 * i
        assert 0 < cache("TTL", f"product:{i}") <= store.PRODUCT_TTL_S
    # Changed behind the app's back: the cached copy is what a read sees, until it goes.
    with db, db.cursor() as cur:
        cur.execute("UPDATE products SET name = 'renamed'")
    assert all(store.product(db, cache, i)["name"] == f"product {i}" for i in ids)
    cache("DEL", f"product:{ids[0]}")
    assert store.product(db, cache, ids[0])["name"] == "renamed"
    assert store.product(db, cache, 10_000) is None


def test_price_changes_are_audited_and_drop_the_cached_copy(shop, shelf):
    db, cache = shop
    ids = shelf(20)
    for step in range(1, 11):
        for i in ids:
            store.product(db, cache, i)  # cached, so the change must drop it
            store.set_price(db, cache, i, 100 * i + step)
            assert store.product(db, cache, i)["price_cents"] == 100 * i + step
    assert scalar(db, "SELECT count(*) FROM price_changes") == 200
    # Each change starts where the one before ended.
    broken = scalar(
        db,
        """SELECT count(*) FROM (
             SELECT old_cents, lag(new_cents) OVER (PARTITION BY product_id ORDER BY id) AS before
             FROM price_changes) c
           WHERE before IS NOT NULL AND before <> old_cents""",
    )
    assert broken == 0
    assert scalar(db, "SELECT sum(price_cents) FROM products") == sum(100 * i + 10 for i in ids)
