"""Fixtures: one connection for the session, the schema created once at its start, and
every table truncated before each test, as real suites do."""

import io
import json
from wsgiref.util import setup_testing_defaults

import pytest

try:
    import psycopg2
except ImportError as e:  # pragma: no cover - a setup mistake, said plainly
    raise ImportError(
        "psycopg2 is missing: apt-get install python3-psycopg2 python3-pytest, "
        "and run Debian's /usr/bin/python3 -m pytest"
    ) from e

from orders import db, repo
from orders.api import App


@pytest.fixture(scope="session")
def database():
    """The session's connection, with a fresh orders_api schema. No database is a failure of
    the whole run, never a skip."""
    try:
        conn = db.connect()
    except psycopg2.OperationalError as e:
        reason = " ".join(str(e).split())
        pytest.exit(
            f"orders-api tests need PostgreSQL, none reachable at {db.describe()} ({reason}); "
            "set DATABASE_URL (or PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE)",
            returncode=1,
        )
    db.create_schema(conn)
    yield conn
    conn.close()


@pytest.fixture
def conn(database):
    """The connection, with every table empty."""
    db.truncate(database)
    return database


@pytest.fixture
def make_customer(conn):
    """Creates customers named c1, c2, …"""
    count = 0

    def make(name=None, email=None):
        nonlocal count
        count += 1
        return repo.create_customer(conn, name or f"c{count}", email or f"c{count}@example.org")

    return make


@pytest.fixture
def make_order(conn, make_customer):
    """Creates an order with the given lines [(sku, quantity, unit_price_cents)], moved
    along the given statuses, for a given customer or a new one."""

    def make(lines=(("SKU-1", 1, 100),), statuses=(), customer=None):
        customer = customer or make_customer()
        order = repo.create_order(conn, customer["id"])
        for sku, quantity, price in lines:
            order = repo.add_line(conn, order["id"], sku, quantity, price)
        for status in statuses:
            order = repo.transition(conn, order["id"], status)
        return order

    return make


class Client:
    """Calls the WSGI app in process: method, path, JSON body -> (status code, JSON)."""

    def __init__(self, app):
        self.app = app

    def request(self, method, path, body=None, raw=None):
        path, _, query = path.partition("?")
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else b"")
        environ = {}
        setup_testing_defaults(environ)
        environ.update(
            REQUEST_METHOD=method,
            PATH_INFO=path,
            QUERY_STRING=query,
            CONTENT_LENGTH=str(len(data)),
            CONTENT_TYPE="application/json",
        )
        environ["wsgi.input"] = io.BytesIO(data)
        seen = {}

        def start_response(status, headers):
            seen["status"] = int(status.split()[0])

        payload = b"".join(self.app(environ, start_response))
        return seen["status"], json.loads(payload)

    def get(self, path):
        return self.request("GET", path)

    def post(self, path, body=None, raw=None):
        return self.request("POST", path, body, raw)

    def delete(self, path):
        return self.request("DELETE", path)


@pytest.fixture
def client(conn):
    """An HTTP client for the API on the test's connection."""
    return Client(App(conn))
