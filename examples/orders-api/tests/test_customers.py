"""Customers: created, read back, unique by email whatever its case, validated."""

import pytest

from orders import repo


@pytest.mark.parametrize(
    "name, email, stored_name",
    [
        pytest.param("Ada Lovelace", "ada@example.org", "Ada Lovelace", marks=pytest.mark.short),
        ("  Grace Hopper  ", "grace@navy.example", "Grace Hopper"),
        ("Zoë Ångström", "zoe@example.se", "Zoë Ångström"),
        ("X", "x@y.io", "X"),
        ("N" * 200, "long.name+tag@example.org", "N" * 200),
        ("O'Brien; DROP TABLE customers", "ob@example.ie", "O'Brien; DROP TABLE customers"),
    ],
)
def test_create_and_read_customer(conn, name, email, stored_name):
    made = repo.create_customer(conn, name, email)
    read = repo.get_customer(conn, made["id"])
    assert read == made
    assert read["name"] == stored_name and read["email"] == email


@pytest.mark.parametrize(
    "second",
    [
        pytest.param("sam@example.org", marks=pytest.mark.short),
        "SAM@Example.ORG",
        "  sam@example.org ",
    ],
)
def test_duplicate_email_is_a_conflict(conn, second):
    first = repo.create_customer(conn, "Sam", "sam@example.org")
    with pytest.raises(repo.Conflict):
        repo.create_customer(conn, "Sam again", second)
    # The failed insert left the connection usable and the first customer alone.
    assert repo.get_customer(conn, first["id"])["name"] == "Sam"
    other = repo.create_customer(conn, "Other", "other@example.org")
    assert other["id"] > first["id"]


@pytest.mark.parametrize(
    "name, email",
    [
        ("", "a@b.co"),
        ("   ", "a@b.co"),
        ("N" * 201, "a@b.co"),
        ("Ann", "not-an-email"),
        ("Ann", "ann@nodot"),
        ("Ann", "a b@c.de"),
    ],
)
def test_invalid_customer_is_refused(conn, name, email):
    with pytest.raises(repo.Invalid):
        repo.create_customer(conn, name, email)
    with conn, conn.cursor() as cur:
        cur.execute("SELECT count(*) AS n FROM customers")
        assert cur.fetchone()["n"] == 0


def test_unknown_customer(conn, make_customer):
    known = make_customer()
    with pytest.raises(repo.NotFound):
        repo.get_customer(conn, known["id"] + 1)
    with pytest.raises(repo.NotFound):
        repo.create_order(conn, known["id"] + 1)
