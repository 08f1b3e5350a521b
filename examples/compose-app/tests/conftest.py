"""Fixtures: one PostgreSQL connection and one Redis connection for the session, the
schema created once at its start, and both databases emptied before each test."""

import pytest

try:
    import psycopg2
except ImportError as e:  # a setup mistake, said plainly
    raise ImportError(
        "psycopg2 is missing: apt-get install python3-psycopg2 python3-pytest, "
        "and run Debian's /usr/bin/python3 -m pytest"
    ) from e

from shop import config, store


def unreachable(what, where, error):
    """No database is a failure of the whole run, never a skip."""
    reason = " ".join(str(error).split())
    pytest.exit(
        f"compose-app tests need {what} at {where} ({reason}); start it with docker compose "
        "(see README.md) or set the ports in .env or the environment",
        returncode=1,
    )


@pytest.fixture(scope="session")
def db():
    pg = config.postgres()
    try:
        conn = store.connect_db()
    except psycopg2.OperationalError as e:
        unreachable("PostgreSQL", f"{pg['host']}:{pg['port']} as {pg['user']}", e)
    store.create_schema(conn)
    yield conn
    conn.close()


@pytest.fixture(scope="session")
def cache():
    host, port = config.redis()
    try:
        r = store.connect_cache()
        r("PING")
    except OSError as e:
        unreachable("Redis", f"{host}:{port}", e)
    yield r
    r.close()


@pytest.fixture
def shop(db, cache):
    """(db, cache), both empty."""
    store.empty(db, cache)
    return db, cache


@pytest.fixture
def shelf(shop):
    """Stocks products: shelf(n, stock) -> their ids, priced 100, 200, … cents."""
    db, _ = shop

    def stock(n, count=100, first=1):
        return [store.add_product(db, f"SKU-{i}", f"product {i}", 100 * i, count) for i in range(first, first + n)]

    return stock


def scalar(db, sql, *args):
    with db, db.cursor() as cur:
        cur.execute(sql, args)
        return next(iter(cur.fetchone().values()))
