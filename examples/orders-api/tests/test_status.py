"""The order life cycle: allowed moves are recorded, the rest refused without a trace."""

import pytest

from orders import repo

PATHS = [
    pytest.param(["placed"], id="placed", marks=pytest.mark.short),
    pytest.param(["cancelled"], id="cancelled-draft"),
    pytest.param(["placed", "paid"], id="paid"),
    pytest.param(["placed", "cancelled"], id="cancelled-placed"),
    pytest.param(["placed", "paid", "shipped"], id="shipped"),
    pytest.param(["placed", "paid", "cancelled"], id="refunded"),
    pytest.param(["placed", "paid", "shipped", "delivered"], id="delivered"),
]

# Statuses reached from draft by these moves.
REACH = {
    "draft": [],
    "placed": ["placed"],
    "paid": ["placed", "paid"],
    "shipped": ["placed", "paid", "shipped"],
    "delivered": ["placed", "paid", "shipped", "delivered"],
    "cancelled": ["cancelled"],
}


@pytest.mark.parametrize("path", PATHS)
def test_allowed_path_is_recorded(conn, make_order, path):
    order = make_order()
    for status in path:
        order = repo.transition(conn, order["id"], status)
        assert order["status"] == status
    events = repo.history(conn, order["id"])
    assert [(e["from_status"], e["to_status"]) for e in events] == list(zip(["draft"] + path, path))
    assert all(a["at"] <= b["at"] for a, b in zip(events, events[1:]))


@pytest.mark.parametrize(
    "start, target",
    [
        ("draft", "paid"),
        ("draft", "shipped"),
        ("draft", "delivered"),
        ("draft", "draft"),
        pytest.param("placed", "shipped", marks=pytest.mark.short),
        ("placed", "draft"),
        ("paid", "placed"),
        ("shipped", "cancelled"),
        ("delivered", "cancelled"),
        ("delivered", "shipped"),
        ("cancelled", "placed"),
        ("cancelled", "draft"),
    ],
)
def test_refused_transition_changes_nothing(conn, make_order, start, target):
    order = make_order(statuses=REACH[start])
    before = repo.history(conn, order["id"])
    with pytest.raises(repo.Conflict):
        repo.transition(conn, order["id"], target)
    assert repo.get_order(conn, order["id"]) == order
    assert repo.history(conn, order["id"]) == before


def test_placing_needs_a_line(conn, make_order):
    order = make_order(lines=[])
    with pytest.raises(repo.Conflict):
        repo.transition(conn, order["id"], "placed")
    repo.add_line(conn, order["id"], "A", 1, 1)
    assert repo.transition(conn, order["id"], "placed")["status"] == "placed"


@pytest.mark.parametrize(
    "status",
    ["placed", "paid", pytest.param("shipped", marks=pytest.mark.short), "delivered", "cancelled"],
)
def test_lines_are_frozen_after_draft(conn, make_order, status):
    order = make_order(lines=[("A", 1, 100)], statuses=REACH[status])
    with pytest.raises(repo.Conflict):
        repo.add_line(conn, order["id"], "B", 1, 100)
    with pytest.raises(repo.Conflict):
        repo.remove_line(conn, order["id"], order["lines"][0]["id"])
    assert repo.get_order(conn, order["id"]) == order


def test_unknown_status(conn, make_order):
    order = make_order()
    with pytest.raises(repo.Invalid):
        repo.transition(conn, order["id"], "lost")
    with pytest.raises(repo.NotFound):
        repo.transition(conn, order["id"] + 1, "placed")
