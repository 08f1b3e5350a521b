#!/usr/bin/env bash
# The official postgres image's contract, for dbrace's tests: POSTGRES_PASSWORD,
# POSTGRES_USER, POSTGRES_DB, POSTGRES_INITDB_ARGS, POSTGRES_INITDB_WALDIR,
# POSTGRES_HOST_AUTH_METHOD; an empty PGDATA is initialized (by a socket-only
# temporary server, as the official image does), then `postgres "$@"` replaces this
# shell, so `-c key=value` arguments reach the server.
set -euo pipefail

[[ $# -gt 0 && ${1:0:1} != - ]] || set -- postgres "$@"
[[ $1 == postgres ]] || exec "$@"
for arg; do
  case "$arg" in -V | --version | --help | -\? | --describe-config) exec "$@" ;; esac
done

: "${PGDATA:=/var/lib/postgresql/data}"
POSTGRES_USER="${POSTGRES_USER:-postgres}"
POSTGRES_DB="${POSTGRES_DB:-$POSTGRES_USER}"
POSTGRES_PASSWORD="${POSTGRES_PASSWORD:-}"
POSTGRES_HOST_AUTH_METHOD="${POSTGRES_HOST_AUTH_METHOD:-}"
export PGDATA POSTGRES_USER POSTGRES_DB POSTGRES_PASSWORD POSTGRES_HOST_AUTH_METHOD

note() { printf 'docker-entrypoint: %s\n' "$*"; }

# As root: own the data (a tmpfs or a bind-mounted host directory arrives owned by
# root), then run again as postgres. Started with --user, the directories must already
# be writable by that uid.
if (($(id -u) == 0)); then
  mkdir -p "$PGDATA" /var/run/postgresql
  find "$PGDATA" /var/run/postgresql ! -user postgres -exec chown postgres:postgres {} +
  if [[ -n "${POSTGRES_INITDB_WALDIR:-}" ]]; then
    mkdir -p "$POSTGRES_INITDB_WALDIR"
    find "$POSTGRES_INITDB_WALDIR" ! -user postgres -exec chown postgres:postgres {} +
  fi
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$BASH_SOURCE" "$@"
fi
mkdir -p "$PGDATA"
chmod 700 "$PGDATA" || :

if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
  if [[ -z "$POSTGRES_PASSWORD" && "$POSTGRES_HOST_AUTH_METHOD" != trust ]]; then
    note "the data directory is empty and POSTGRES_PASSWORD is not set" \
      "(set it, or POSTGRES_HOST_AUTH_METHOD=trust)" >&2
    exit 1
  fi
  # initdb refuses a uid without a passwd entry (docker run --user 12345).
  if ! getent passwd "$(id -u)" >/dev/null; then
    NSS_WRAPPER_PASSWD="$(mktemp)" NSS_WRAPPER_GROUP="$(mktemp)"
    printf 'postgres:x:%s:%s:PostgreSQL:%s:/bin/false\n' "$(id -u)" "$(id -g)" "$PGDATA" \
      >"$NSS_WRAPPER_PASSWD"
    printf 'postgres:x:%s:\n' "$(id -g)" >"$NSS_WRAPPER_GROUP"
    export LD_PRELOAD=libnss_wrapper.so NSS_WRAPPER_PASSWD NSS_WRAPPER_GROUP
  fi
  initdb_args=(--username="$POSTGRES_USER" -D "$PGDATA")
  [[ -z "${POSTGRES_INITDB_WALDIR:-}" ]] || initdb_args+=(--waldir="$POSTGRES_INITDB_WALDIR")
  # POSTGRES_INITDB_ARGS is a string of arguments, split on whitespace as documented.
  read -ra extra <<<"${POSTGRES_INITDB_ARGS:-}"
  initdb "${initdb_args[@]}" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") "${extra[@]}"
  if [[ -n "${NSS_WRAPPER_PASSWD:-}" ]]; then
    rm -f "$NSS_WRAPPER_PASSWD" "$NSS_WRAPPER_GROUP"
    unset LD_PRELOAD NSS_WRAPPER_PASSWD NSS_WRAPPER_GROUP
  fi

  # TCP logins use the server's password_encryption (scram-sha-256) unless told otherwise.
  auth="${POSTGRES_HOST_AUTH_METHOD:-$(postgres -C password_encryption "${@:2}")}"
  printf '\nhost all all all %s\n' "$auth" >>"$PGDATA/pg_hba.conf"

  # The temporary server listens on its socket only, so no client reaches a server that
  # is still being set up; the socket is the image's own, whatever directory the caller
  # gave the real server.
  export PGPASSWORD="$POSTGRES_PASSWORD" PGUSER="$POSTGRES_USER" PGPORT="${PGPORT:-5432}"
  pg_ctl -D "$PGDATA" -w start -o "$(printf '%q ' "${@:2}" -c listen_addresses= \
    -c unix_socket_directories=/var/run/postgresql -p "$PGPORT")" >/dev/null
  psql=(psql -v ON_ERROR_STOP=1 --no-psqlrc -q -h /var/run/postgresql)
  if [[ "$POSTGRES_DB" != postgres ]] &&
    [[ -z "$("${psql[@]}" -d postgres -tA -v db="$POSTGRES_DB" \
      <<<"SELECT 1 FROM pg_database WHERE datname = :'db'")" ]]; then
    "${psql[@]}" -d postgres -v db="$POSTGRES_DB" <<<'CREATE DATABASE :"db"'
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) note "running $f"; . "$f" ;;
      *.sql) note "running $f"; "${psql[@]}" -d "$POSTGRES_DB" -f "$f" ;;
      *.sql.gz) note "running $f"; gunzip -c "$f" | "${psql[@]}" -d "$POSTGRES_DB" ;;
      *) [[ ! -e "$f" ]] || note "ignoring $f" ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  unset PGPASSWORD PGUSER PGPORT
  note "initialized $PGDATA; starting the server"
fi

exec "$@"
