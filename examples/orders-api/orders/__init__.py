"""A small orders service: customers, orders and order lines in PostgreSQL, a data layer
(orders.repo) and a JSON HTTP API over it (orders.api)."""
