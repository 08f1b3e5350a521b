"""The JSON HTTP API over orders.repo, as a WSGI application (the standard library's
wsgiref serves it; tests call it in process, as Flask's or Django's test clients do)."""

import datetime
import json
import re
from urllib.parse import parse_qs

from . import repo

# (method, path pattern, handler name); path groups are ids.
ROUTES = [
    ("POST", r"/customers", "create_customer"),
    ("GET", r"/customers/(\d+)", "get_customer"),
    ("GET", r"/customers/(\d+)/summary", "customer_summary"),
    ("POST", r"/customers/(\d+)/orders", "create_order"),
    ("GET", r"/customers/(\d+)/orders", "list_orders"),
    ("GET", r"/orders/(\d+)", "get_order"),
    ("POST", r"/orders/(\d+)/lines", "add_line"),
    ("DELETE", r"/orders/(\d+)/lines/(\d+)", "remove_line"),
    ("POST", r"/orders/(\d+)/status", "transition"),
    ("GET", r"/orders/(\d+)/history", "history"),
]

REASONS = {200: "OK", 201: "Created", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 409: "Conflict"}


class App:
    """The WSGI application; one connection, one request at a time."""

    def __init__(self, conn):
        self.conn = conn
        self.routes = [(m, re.compile(p + "$"), getattr(self, h)) for m, p, h in ROUTES]

    def __call__(self, environ, start_response):
        status, body = self.dispatch(environ)
        data = json.dumps(body, default=_json_default).encode()
        start_response(
            f"{status} {REASONS.get(status, 'Error')}",
            [("Content-Type", "application/json"), ("Content-Length", str(len(data)))],
        )
        return [data]

    def dispatch(self, environ):
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "/")
        allowed = False
        for m, pattern, handler in self.routes:
            match = pattern.match(path)
            if not match:
                continue
            allowed = True
            if m != method:
                continue
            ids = [int(g) for g in match.groups()]
            try:
                return handler(environ, *ids)
            except repo.Invalid as e:
                return 400, {"error": str(e)}
            except repo.NotFound as e:
                return 404, {"error": str(e)}
            except repo.Conflict as e:
                return 409, {"error": str(e)}
        return (405, {"error": f"{method} not allowed on {path}"}) if allowed else (404, {"error": f"no route {path}"})

    def create_customer(self, environ):
        body = _body(environ)
        return 201, repo.create_customer(self.conn, body.get("name"), body.get("email"))

    def get_customer(self, environ, customer_id):
        return 200, repo.get_customer(self.conn, customer_id)

    def customer_summary(self, environ, customer_id):
        return 200, repo.customer_summary(self.conn, customer_id)

    def create_order(self, environ, customer_id):
        note = _body(environ).get("note", "")
        if not isinstance(note, str):
            raise repo.Invalid("note must be a string")
        return 201, repo.create_order(self.conn, customer_id, note)

    def list_orders(self, environ, customer_id):
        query = parse_qs(environ.get("QUERY_STRING", ""))
        limit = _int(query.get("limit", ["20"])[-1], "limit")
        after = query.get("after", [None])[-1]
        after = None if after is None else _int(after, "after")
        status = query.get("status", [None])[-1]
        orders, following = repo.list_orders(self.conn, customer_id, limit, after, status)
        return 200, {"orders": orders, "next": following}

    def get_order(self, environ, order_id):
        return 200, repo.get_order(self.conn, order_id)

    def add_line(self, environ, order_id):
        body = _body(environ)
        order = repo.add_line(self.conn, order_id, body.get("sku"), body.get("quantity"), body.get("unit_price_cents"))
        return 201, order

    def remove_line(self, environ, order_id, line_id):
        return 200, repo.remove_line(self.conn, order_id, line_id)

    def transition(self, environ, order_id):
        return 200, repo.transition(self.conn, order_id, _body(environ).get("status"))

    def history(self, environ, order_id):
        return 200, {"events": repo.history(self.conn, order_id)}


def _body(environ):
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = json.loads(environ["wsgi.input"].read(length) or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise repo.Invalid("the body must be a JSON object") from None
    if not isinstance(body, dict):
        raise repo.Invalid("the body must be a JSON object")
    return body


def _int(text, name):
    try:
        return int(text)
    except ValueError:
        raise repo.Invalid(f"{name} must be an integer") from None


def _json_default(value):
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    raise TypeError(f"cannot encode {type(value).__name__}")
