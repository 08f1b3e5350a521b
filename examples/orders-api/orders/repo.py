"""The data layer: every function is one database transaction on the connection it is
given, committed when it returns and rolled back when it raises."""

import re

import psycopg2.errors

STATUSES = ("draft", "placed", "paid", "shipped", "delivered", "cancelled")

# The order life cycle; anything not listed is refused.
TRANSITIONS = {
    "draft": {"placed", "cancelled"},
    "placed": {"paid", "cancelled"},
    "paid": {"shipped", "cancelled"},
    "shipped": {"delivered"},
    "delivered": set(),
    "cancelled": set(),
}

# Orders that count as money received.
PAID_STATUSES = ("paid", "shipped", "delivered")

MAX_PAGE = 100
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
SKU = re.compile(r"^[A-Z0-9-]{1,32}$")


class NotFound(Exception):
    """The customer, order or line does not exist."""


class Invalid(ValueError):
    """The request itself is wrong (a bad email, quantity, page size…)."""


class Conflict(Exception):
    """The request is fine but the data's state forbids it (a taken email, a shipped order…)."""


def create_customer(conn, name, email):
    """Adds a customer; emails are unique whatever their case."""
    name = (name or "").strip()
    email = (email or "").strip()
    if not 1 <= len(name) <= 200:
        raise Invalid("name must be 1 to 200 characters")
    if not EMAIL.match(email):
        raise Invalid(f"not an email address: {email!r}")
    try:
        with conn, conn.cursor() as cur:
            cur.execute(
                "INSERT INTO customers (name, email) VALUES (%s, %s) RETURNING id, name, email, created_at",
                (name, email),
            )
            return dict(cur.fetchone())
    except psycopg2.errors.UniqueViolation:
        raise Conflict(f"email already registered: {email}") from None


def get_customer(conn, customer_id):
    """One customer."""
    with conn, conn.cursor() as cur:
        cur.execute("SELECT id, name, email, created_at FROM customers WHERE id = %s", (customer_id,))
        row = cur.fetchone()
    if row is None:
        raise NotFound(f"no customer {customer_id}")
    return dict(row)


def create_order(conn, customer_id, note=""):
    """Opens an empty draft order for a customer."""
    with conn, conn.cursor() as cur:
        cur.execute(
            "INSERT INTO orders (customer_id, note) SELECT id, %s FROM customers WHERE id = %s RETURNING id",
            (note, customer_id),
        )
        row = cur.fetchone()
        if row is None:
            raise NotFound(f"no customer {customer_id}")
        return _order(cur, row["id"])


def add_line(conn, order_id, sku, quantity, unit_price_cents):
    """Adds a line to a draft order; a SKU already on it gets the quantities added and the
    latest price. Returns the order with its lines and totals."""
    sku = (sku or "").strip().upper()
    if not SKU.match(sku):
        raise Invalid(f"not a SKU (A-Z, 0-9, '-', up to 32): {sku!r}")
    if not isinstance(quantity, int) or isinstance(quantity, bool) or not 1 <= quantity <= 10000:
        raise Invalid("quantity must be an integer from 1 to 10000")
    if not isinstance(unit_price_cents, int) or isinstance(unit_price_cents, bool) or unit_price_cents < 0:
        raise Invalid("unit_price_cents must be a non-negative integer")
    try:
        with conn, conn.cursor() as cur:
            _lock_draft(cur, order_id)
            cur.execute(
                """INSERT INTO order_lines (order_id, sku, quantity, unit_price_cents) VALUES (%s, %s, %s, %s)
                   ON CONFLICT (order_id, sku) DO UPDATE
                   SET quantity = order_lines.quantity + EXCLUDED.quantity,
                       unit_price_cents = EXCLUDED.unit_price_cents""",
                (order_id, sku, quantity, unit_price_cents),
            )
            cur.execute("UPDATE orders SET updated_at = now() WHERE id = %s", (order_id,))
            return _order(cur, order_id)
    except psycopg2.errors.CheckViolation:
        raise Invalid(f"quantity of {sku} would exceed 10000") from None


def remove_line(conn, order_id, line_id):
    """Removes a line from a draft order; returns the order."""
    with conn, conn.cursor() as cur:
        _lock_draft(cur, order_id)
        cur.execute("DELETE FROM order_lines WHERE id = %s AND order_id = %s", (line_id, order_id))
        if cur.rowcount == 0:
            raise NotFound(f"no line {line_id} on order {order_id}")
        cur.execute("UPDATE orders SET updated_at = now() WHERE id = %s", (order_id,))
        return _order(cur, order_id)


def get_order(conn, order_id):
    """One order with its lines, item count and total."""
    with conn, conn.cursor() as cur:
        return _order(cur, order_id)


def transition(conn, order_id, to_status):
    """Moves an order along its life cycle and records the event; an order is placed only
    with at least one line."""
    if to_status not in STATUSES:
        raise Invalid(f"unknown status {to_status!r}; one of {', '.join(STATUSES)}")
    with conn, conn.cursor() as cur:
        cur.execute("SELECT status FROM orders WHERE id = %s FOR UPDATE", (order_id,))
        row = cur.fetchone()
        if row is None:
            raise NotFound(f"no order {order_id}")
        current = row["status"]
        if to_status not in TRANSITIONS[current]:
            raise Conflict(f"order {order_id} is {current}: cannot become {to_status}")
        if to_status == "placed":
            cur.execute("SELECT 1 FROM order_lines WHERE order_id = %s LIMIT 1", (order_id,))
            if cur.fetchone() is None:
                raise Conflict(f"order {order_id} has no lines: nothing to place")
        cur.execute("UPDATE orders SET status = %s, updated_at = now() WHERE id = %s", (to_status, order_id))
        cur.execute(
            "INSERT INTO order_events (order_id, from_status, to_status) VALUES (%s, %s, %s)",
            (order_id, current, to_status),
        )
        return _order(cur, order_id)


def history(conn, order_id):
    """The order's status changes, oldest first."""
    with conn, conn.cursor() as cur:
        _exists(cur, "orders", order_id)
        cur.execute(
            "SELECT from_status, to_status, at FROM order_events WHERE order_id = %s ORDER BY id", (order_id,)
        )
        return [dict(r) for r in cur.fetchall()]


def list_orders(conn, customer_id, limit=20, after=None, status=None):
    """A customer's orders, newest first, one page at a time: returns (orders, next), where
    next is the cursor for the following page (None on the last page)."""
    if not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
        raise Invalid(f"limit must be 1 to {MAX_PAGE}")
    if status is not None and status not in STATUSES:
        raise Invalid(f"unknown status {status!r}")
    with conn, conn.cursor() as cur:
        _exists(cur, "customers", customer_id)
        # One more row than asked tells whether another page follows.
        cur.execute(
            f"""SELECT {_ORDER_COLUMNS} FROM orders o
                WHERE o.customer_id = %(c)s
                  AND (%(after)s::bigint IS NULL OR o.id < %(after)s)
                  AND (%(status)s::text IS NULL OR o.status = %(status)s)
                ORDER BY o.id DESC LIMIT %(n)s""",
            {"c": customer_id, "after": after, "status": status, "n": limit + 1},
        )
        rows = [dict(r) for r in cur.fetchall()]
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, (rows[-1]["id"] if more else None)


def customer_summary(conn, customer_id):
    """Orders per status and money received (paid, shipped or delivered orders)."""
    with conn, conn.cursor() as cur:
        _exists(cur, "customers", customer_id)
        cur.execute(
            f"""SELECT o.status, count(*) AS n, sum(t.total) AS total FROM orders o
                CROSS JOIN LATERAL (SELECT coalesce(sum(quantity * unit_price_cents), 0) AS total
                                    FROM order_lines WHERE order_id = o.id) t
                WHERE o.customer_id = %s GROUP BY o.status""",
            (customer_id,),
        )
        rows = cur.fetchall()
    by_status = {r["status"]: r["n"] for r in rows}
    received = sum(int(r["total"]) for r in rows if r["status"] in PAID_STATUSES)
    return {"orders": sum(by_status.values()), "by_status": by_status, "received_cents": received}


_ORDER_COLUMNS = """o.id, o.customer_id, o.status, o.note, o.created_at, o.updated_at,
    (SELECT coalesce(sum(quantity), 0)::int FROM order_lines WHERE order_id = o.id) AS item_count,
    (SELECT coalesce(sum(quantity * unit_price_cents), 0)::bigint FROM order_lines WHERE order_id = o.id)
        AS total_cents"""


def _order(cur, order_id):
    cur.execute(f"SELECT {_ORDER_COLUMNS} FROM orders o WHERE o.id = %s", (order_id,))
    row = cur.fetchone()
    if row is None:
        raise NotFound(f"no order {order_id}")
    order = dict(row)
    cur.execute(
        """SELECT id, sku, quantity, unit_price_cents, quantity * unit_price_cents AS line_total_cents
           FROM order_lines WHERE order_id = %s ORDER BY id""",
        (order_id,),
    )
    order["lines"] = [dict(r) for r in cur.fetchall()]
    return order


def _lock_draft(cur, order_id):
    cur.execute("SELECT status FROM orders WHERE id = %s FOR UPDATE", (order_id,))
    row = cur.fetchone()
    if row is None:
        raise NotFound(f"no order {order_id}")
    if row["status"] != "draft":
        raise Conflict(f"order {order_id} is {row['status']}: lines change only while draft")


def _exists(cur, table, key):
    cur.execute(f"SELECT 1 FROM {table} WHERE id = %s", (key,))
    if cur.fetchone() is None:
        raise NotFound(f"no {table[:-1]} {key}")
