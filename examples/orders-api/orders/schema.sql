-- The orders service's tables, in their own schema so the test suite can drop and
-- recreate them without touching anything else in the database it is given.
DROP SCHEMA IF EXISTS orders_api CASCADE;
CREATE SCHEMA orders_api;
SET search_path TO orders_api;

CREATE TABLE customers (
    id         bigserial PRIMARY KEY,
    name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    email      text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
-- Emails are unique whatever their case: Ann@x.org and ann@x.org are one customer.
CREATE UNIQUE INDEX customers_email_key ON customers (lower(email));

CREATE TABLE orders (
    id          bigserial PRIMARY KEY,
    customer_id bigint NOT NULL REFERENCES customers (id),
    status      text NOT NULL DEFAULT 'draft'
                CHECK (status IN ('draft', 'placed', 'paid', 'shipped', 'delivered', 'cancelled')),
    note        text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
-- Listing a customer's orders newest first, by keyset (id), optionally by status.
CREATE INDEX orders_customer_idx ON orders (customer_id, id DESC);

CREATE TABLE order_lines (
    id               bigserial PRIMARY KEY,
    order_id         bigint NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    sku              text NOT NULL CHECK (sku ~ '^[A-Z0-9-]{1,32}$'),
    quantity         integer NOT NULL CHECK (quantity BETWEEN 1 AND 10000),
    unit_price_cents bigint NOT NULL CHECK (unit_price_cents >= 0),
    UNIQUE (order_id, sku)
);

-- Every status change, for the audit trail a real shop keeps.
CREATE TABLE order_events (
    id          bigserial PRIMARY KEY,
    order_id    bigint NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    from_status text NOT NULL,
    to_status   text NOT NULL,
    at          timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX order_events_order_idx ON order_events (order_id, id);
