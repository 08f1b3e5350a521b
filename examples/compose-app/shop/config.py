"""Where the databases are: the ports and account docker-compose.yml publishes, read
from the environment, then from the .env file beside it, as docker compose reads them.
PGHOST, DATABASE_URL and the like are deliberately not read: the app connects where the
compose file says, as most apps with a compose file do."""

import os
from pathlib import Path

ENV_FILE = Path(__file__).resolve().parent.parent / ".env"


def dotenv(path=ENV_FILE):
    """KEY=VALUE lines of a .env file; comments, blanks and quotes as compose treats them."""
    values = {}
    if not path.exists():
        return values
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[key.strip()] = value
    return values


def setting(name, default, file_values=None):
    """The environment's value, else the .env file's, else the default."""
    if name in os.environ:
        return os.environ[name]
    values = dotenv() if file_values is None else file_values
    return values.get(name, default)


def postgres():
    """psycopg2.connect's keyword arguments."""
    env = dotenv()
    return {
        "host": setting("POSTGRES_HOST", "127.0.0.1", env),
        "port": int(setting("POSTGRES_PORT", "55432", env)),
        "user": setting("POSTGRES_USER", "shop", env),
        "password": setting("POSTGRES_PASSWORD", "", env),
        "dbname": setting("POSTGRES_DB", "shop", env),
    }


def redis():
    """(host, port) of the cache."""
    env = dotenv()
    return setting("REDIS_HOST", "127.0.0.1", env), int(setting("REDIS_PORT", "56379", env))
