"""Connections, from the variables every PostgreSQL tool reads."""

import os
import re
from pathlib import Path

import psycopg2
import psycopg2.extras

SCHEMA_SQL = Path(__file__).with_name("schema.sql")


def connect():
    """A connection to DATABASE_URL if set, else to what libpq's PGHOST, PGPORT, PGUSER,
    PGPASSWORD and PGDATABASE (and their defaults) name; rows come back as dicts."""
    dsn = os.environ.get("DATABASE_URL", "")
    timeout = int(os.environ.get("PGCONNECT_TIMEOUT", "5"))
    conn = psycopg2.connect(dsn, connect_timeout=timeout, cursor_factory=psycopg2.extras.RealDictCursor)
    with conn.cursor() as cur:
        cur.execute("SET search_path TO orders_api")
    conn.commit()
    return conn


def create_schema(conn):
    """Drops and recreates the service's schema (orders_api) and its tables."""
    with conn, conn.cursor() as cur:
        cur.execute(SCHEMA_SQL.read_text())


def truncate(conn):
    """Empties every table and restarts the ids, as between two tests."""
    with conn, conn.cursor() as cur:
        cur.execute("TRUNCATE order_events, order_lines, orders, customers RESTART IDENTITY")


def describe():
    """Where connect() goes, for messages: the URL without its password, or the PG* variables."""
    url = os.environ.get("DATABASE_URL")
    if url:
        return "DATABASE_URL=" + re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url)
    parts = [f"{k}={os.environ[k]}" for k in ("PGHOST", "PGPORT", "PGUSER", "PGDATABASE") if k in os.environ]
    return " ".join(parts) or "libpq defaults (no DATABASE_URL or PG* variables set)"
