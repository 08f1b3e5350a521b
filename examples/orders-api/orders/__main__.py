"""`python3 -m orders [--port 8080] [--init]`: serve the API on 127.0.0.1 against the
database DATABASE_URL (or PGHOST…) names."""

import argparse
from wsgiref.simple_server import make_server

from . import db
from .api import App


def main():
    parser = argparse.ArgumentParser(prog="python3 -m orders", description=__doc__)
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--init", action="store_true", help="drop and create the orders_api schema first")
    args = parser.parse_args()
    conn = db.connect()
    if args.init:
        db.create_schema(conn)
    with make_server("127.0.0.1", args.port, App(conn)) as server:
        print(f"orders API on http://127.0.0.1:{args.port}/ (Ctrl-C stops)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
