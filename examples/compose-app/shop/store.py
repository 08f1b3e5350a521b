"""The shop over its two databases. Every write to PostgreSQL is one committed
transaction, as in a running service; Redis holds carts (a hash per session, expiring)
and copies of products (dropped when a price changes)."""

import json
from pathlib import Path

import psycopg2
import psycopg2.extras

from shop import config
from shop.resp import Redis

SCHEMA_SQL = Path(__file__).with_name("schema.sql")
CART_TTL_S = 1800
PRODUCT_TTL_S = 300


class OutOfStock(Exception):
    """A checkout asked for more than the shelf holds; nothing was written."""


def connect_db():
    conn = psycopg2.connect(connect_timeout=5, cursor_factory=psycopg2.extras.RealDictCursor, **config.postgres())
    with conn, conn.cursor() as cur:
        cur.execute("SET search_path TO shop")
    return conn


def connect_cache():
    return Redis(*config.redis())


def create_schema(conn):
    with conn, conn.cursor() as cur:
        cur.execute(SCHEMA_SQL.read_text())


def empty(conn, cache):
    """Every table and key gone, ids restarted: the state between two tests."""
    with conn, conn.cursor() as cur:
        cur.execute("TRUNCATE order_lines, orders, price_changes, products RESTART IDENTITY")
    cache("FLUSHDB")


def add_product(conn, sku, name, price_cents, stock):
    with conn, conn.cursor() as cur:
        cur.execute(
            "INSERT INTO products (sku, name, price_cents, stock) VALUES (%s, %s, %s, %s) RETURNING id",
            (sku, name, price_cents, stock),
        )
        return cur.fetchone()["id"]


def product(conn, cache, product_id):
    """The product, from the cache when it holds it, else from the database (then cached)."""
    key = f"product:{product_id}"
    hit = cache("GET", key)
    if hit is not None:
        return json.loads(hit)
    with conn, conn.cursor() as cur:
        cur.execute("SELECT id, sku, name, price_cents, stock FROM products WHERE id = %s", (product_id,))
        row = cur.fetchone()
    if row is None:
        return None
    cache("SET", key, json.dumps(row), "EX", PRODUCT_TTL_S)
    return dict(row)


def set_price(conn, cache, product_id, new_cents):
    """The new price and its audit row in one transaction; the cached copy dropped after."""
    with conn, conn.cursor() as cur:
        cur.execute("SELECT price_cents FROM products WHERE id = %s FOR UPDATE", (product_id,))
        old = cur.fetchone()["price_cents"]
        cur.execute("UPDATE products SET price_cents = %s WHERE id = %s", (new_cents, product_id))
        cur.execute(
            "INSERT INTO price_changes (product_id, old_cents, new_cents) VALUES (%s, %s, %s)",
            (product_id, old, new_cents),
        )
    cache("DEL", f"product:{product_id}")


def restock(conn, cache, product_id, quantity):
    with conn, conn.cursor() as cur:
        cur.execute("UPDATE products SET stock = stock + %s WHERE id = %s", (quantity, product_id))
    cache("DEL", f"product:{product_id}")


def add_to_cart(cache, session, product_id, quantity=1):
    """The cart's new quantity of the product; the cart lives CART_TTL_S past its last change."""
    key = f"cart:{session}"
    qty, _ = cache.pipeline([("HINCRBY", key, product_id, quantity), ("EXPIRE", key, CART_TTL_S)])
    if qty <= 0:
        cache("HDEL", key, product_id)
    return max(qty, 0)


def cart(cache, session):
    """{product id: quantity}."""
    flat = cache("HGETALL", f"cart:{session}")
    return {int(flat[i]): int(flat[i + 1]) for i in range(0, len(flat), 2)}


def checkout(conn, cache, session):
    """The cart as an order: lines at today's prices, stock taken, in one transaction; the
    cart emptied once it committed. Raises OutOfStock (and writes nothing) when a product
    runs short, and ValueError for an empty cart."""
    items = cart(cache, session)
    if not items:
        raise ValueError(f"cart {session} is empty")
    ids = sorted(items)  # locked in one order, so two checkouts cannot deadlock
    with conn, conn.cursor() as cur:
        cur.execute("SELECT id, price_cents, stock FROM products WHERE id = ANY(%s) ORDER BY id FOR UPDATE", (ids,))
        rows = {r["id"]: r for r in cur.fetchall()}
        short = [i for i in ids if i not in rows or rows[i]["stock"] < items[i]]
        if short:
            raise OutOfStock(f"not enough of product {short[0]}")
        total = sum(rows[i]["price_cents"] * items[i] for i in ids)
        cur.execute("INSERT INTO orders (session, total_cents) VALUES (%s, %s) RETURNING id", (session, total))
        order_id = cur.fetchone()["id"]
        psycopg2.extras.execute_values(
            cur,
            "INSERT INTO order_lines (order_id, product_id, quantity, price_cents) VALUES %s",
            [(order_id, i, items[i], rows[i]["price_cents"]) for i in ids],
        )
        cur.execute(
            "UPDATE products p SET stock = p.stock - t.q FROM unnest(%s::int[], %s::int[]) AS t(id, q) WHERE p.id = t.id",
            (ids, [items[i] for i in ids]),
        )
    cache.pipeline([("DEL", f"cart:{session}")] + [("DEL", f"product:{i}") for i in ids])
    return {"id": order_id, "total_cents": total, "lines": {i: items[i] for i in ids}}


def orders_of(conn, session):
    with conn, conn.cursor() as cur:
        cur.execute("SELECT id, total_cents FROM orders WHERE session = %s ORDER BY id", (session,))
        return cur.fetchall()
