"""A Redis client in a few lines: commands as RESP arrays over one socket, replies
parsed back. Enough for this app, and it keeps the example to Debian's python3-psycopg2
and python3-pytest (no redis-py to install)."""

import socket


class RedisError(Exception):
    """An error reply (-ERR ...)."""


class Redis:
    def __init__(self, host, port, timeout=5.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = self.sock.makefile("rb")

    def close(self):
        self.reader.close()
        self.sock.close()

    def __call__(self, *args):
        """One command and its reply: bytes for strings, int, list, or None."""
        self.sock.sendall(self._encode(args))
        return self._reply()

    def pipeline(self, commands):
        """Several commands in one write, their replies in order (errors raised last)."""
        self.sock.sendall(b"".join(self._encode(c) for c in commands))
        replies, error = [], None
        for _ in commands:
            try:
                replies.append(self._reply())
            except RedisError as e:
                error = error or e
                replies.append(e)
        if error:
            raise error
        return replies

    @staticmethod
    def _encode(args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        return b"".join(out)

    def _reply(self):
        line = self.reader.readline()
        if not line:
            raise ConnectionError("redis closed the connection")
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest
        if kind == b"-":
            raise RedisError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self.reader.read(n + 2)[:-2]
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise ConnectionError(f"not a RESP reply: {line!r}")
