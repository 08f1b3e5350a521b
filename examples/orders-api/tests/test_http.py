"""The HTTP API: a whole order's life through it, and its answers to mistakes."""

import json

import pytest

from orders.api import _json_default


@pytest.mark.short
def test_order_flow_over_http(client):
    status, ann = client.post("/customers", {"name": "Ann", "email": "ann@example.org"})
    assert status == 201
    status, order = client.post(f"/customers/{ann['id']}/orders", {"note": "gift"})
    assert (status, order["status"], order["note"]) == (201, "draft", "gift")
    for sku, qty, price in [("MUG", 2, 1250), ("TEA-1", 3, 499), ("MUG", 1, 1250)]:
        status, order = client.post(f"/orders/{order['id']}/lines", {"sku": sku, "quantity": qty, "unit_price_cents": price})
        assert status == 201
    assert (order["item_count"], order["total_cents"]) == (6, 3 * 1250 + 3 * 499)
    status, order = client.delete(f"/orders/{order['id']}/lines/{order['lines'][1]['id']}")
    assert (status, order["total_cents"]) == (200, 3750)
    for step in ["placed", "paid", "shipped"]:
        status, order = client.post(f"/orders/{order['id']}/status", {"status": step})
        assert (status, order["status"]) == (200, step)
    status, events = client.get(f"/orders/{order['id']}/history")
    assert [e["to_status"] for e in events["events"]] == ["placed", "paid", "shipped"]
    status, listed = client.get(f"/customers/{ann['id']}/orders")
    assert status == 200 and listed["next"] is None
    assert listed["orders"][0]["id"] == order["id"] and listed["orders"][0]["total_cents"] == 3750
    status, summary = client.get(f"/customers/{ann['id']}/summary")
    assert summary == {"orders": 1, "by_status": {"shipped": 1}, "received_cents": 3750}


@pytest.mark.parametrize(
    "method, path, body, expected",
    [
        pytest.param("GET", "/customers/{c0}", None, 404, id="unknown-customer"),
        pytest.param("POST", "/customers", {"name": "Bo", "email": "bo"}, 400, id="bad-email"),
        pytest.param("POST", "/customers", {"name": "Dup", "email": "taken@example.org"}, 409, id="taken-email"),
        pytest.param("POST", "/customers", b"{not json", 400, id="bad-json"),
        pytest.param("POST", "/customers", [1, 2], 400, id="json-not-object"),
        pytest.param("GET", "/nowhere", None, 404, id="unknown-route"),
        pytest.param("PUT", "/orders/{o}", None, 405, id="wrong-method"),
        pytest.param("GET", "/customers/{c}/orders?limit=500", None, 400, id="page-too-big"),
        pytest.param("GET", "/customers/{c}/orders?after=last", None, 400, id="cursor-not-int"),
        pytest.param("GET", "/customers/{c}/orders?status=lost", None, 400, id="unknown-status-filter"),
        pytest.param("POST", "/orders/{o}/status", {"status": "shipped"}, 409, id="skipped-step"),
        pytest.param("POST", "/orders/{o}/lines", {"sku": "A", "quantity": 0, "unit_price_cents": 1}, 400, id="bad-line"),
        pytest.param("GET", "/orders/{o0}", None, 404, id="unknown-order"),
        pytest.param("DELETE", "/orders/{o}/lines/{o0}", None, 404, id="unknown-line"),
    ],
)
def test_answers_to_mistakes(client, make_customer, make_order, method, path, body, expected):
    customer = make_customer(email="taken@example.org")
    order = make_order(customer=customer)
    path = path.format(c=customer["id"], c0=customer["id"] + 1, o=order["id"], o0=order["id"] + 1)
    raw = body if isinstance(body, bytes) else None
    status, answer = client.request(method, path, None if raw else body, raw)
    assert status == expected, answer
    assert answer["error"]
    # A refused request changed nothing.
    assert client.get(f"/orders/{order['id']}")[1] == _jsonish(order)


def test_pagination_over_http(client, make_customer, make_order):
    customer = make_customer()
    made = [make_order(customer=customer)["id"] for _ in range(9)]
    seen, query = [], "limit=4"
    while True:
        status, page = client.get(f"/customers/{customer['id']}/orders?{query}")
        assert status == 200
        seen += [o["id"] for o in page["orders"]]
        if page["next"] is None:
            break
        query = f"limit=4&after={page['next']}"
    assert seen == sorted(made, reverse=True)


def _jsonish(value):
    """The value as it looks after a trip through JSON (timestamps as text)."""
    return json.loads(json.dumps(value, default=_json_default))
