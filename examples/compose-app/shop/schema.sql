-- The shop's tables, in a schema of their own: the suite drops and recreates it and
-- touches nothing else in the database.
DROP SCHEMA IF EXISTS shop CASCADE;
CREATE SCHEMA shop;
SET search_path TO shop;

CREATE TABLE products (
    id          serial PRIMARY KEY,
    sku         text NOT NULL UNIQUE,
    name        text NOT NULL,
    price_cents integer NOT NULL CHECK (price_cents >= 0),
    stock       integer NOT NULL CHECK (stock >= 0)
);

CREATE TABLE price_changes (
    id         serial PRIMARY KEY,
    product_id integer NOT NULL REFERENCES products,
    old_cents  integer NOT NULL,
    new_cents  integer NOT NULL,
    changed_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE orders (
    id          serial PRIMARY KEY,
    session     text NOT NULL,
    total_cents integer NOT NULL,
    placed_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX orders_by_session ON orders (session);

CREATE TABLE order_lines (
    order_id    integer NOT NULL REFERENCES orders ON DELETE CASCADE,
    product_id  integer NOT NULL REFERENCES products,
    quantity    integer NOT NULL CHECK (quantity > 0),
    price_cents integer NOT NULL,
    PRIMARY KEY (order_id, product_id)
);
