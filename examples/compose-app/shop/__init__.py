"""A shop: products and orders in PostgreSQL, carts and a catalog cache in Redis."""
