# shellcheck shell=bash
# A throwaway PostgreSQL for the benchmarks: sourced by bench/pgbench-side-by-side,
# bench/pgbench-script-side-by-side and bench/rate-side-by-side. The caller sets `me` (its
# name, for messages) and `set -euo pipefail`, then calls start_throwaway_server PARENT.
#
# The server: initdb as user postgres (PostgreSQL refuses root) into a fresh directory under
# PARENT, binaries from /usr/lib/postgresql/<newest>/bin, default settings (fsync on),
# listening on 127.0.0.1 on a free port (never 5432) with scram-sha-256 and a random
# password, and on a unix socket in its own directory with trust. Every server started
# here is stopped and every scratch path removed on exit, Ctrl-C or TERM.

fail() { echo "$me: $*" >&2; exit 2; }

# --- the machine's PostgreSQL (newest), run as postgres when we are root
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[[ -x $PGBIN/initdb && -x $PGBIN/pgbench ]] ||
  fail "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin; install them: apt-get install postgresql"
if ((EUID == 0)); then
  id -u postgres >/dev/null 2>&1 || fail "as root, PostgreSQL must run as user 'postgres', which does not exist"
  as_pg() { runuser -u postgres -- "$@"; }
  pg_owner=postgres
else
  as_pg() { "$@"; }
  pg_owner=$(id -un)
fi

# --- scratch space and cleanup. Every server started here is a pgdata directory in
# $servers; on exit each is stopped (fast shutdown, then SIGKILL) and every path in
# $scratch is removed.
servers=() scratch=()
stop_server() {  # pgdata
  local pgdata=$1 pid
  [[ -f $pgdata/postmaster.pid ]] || return 0
  pid=$(head -1 "$pgdata/postmaster.pid")
  as_pg "$PGBIN/pg_ctl" -D "$pgdata" -m fast -w -t 30 stop >/dev/null 2>&1 && return 0
  # Only a postmaster of this very data directory (its cwd), with its backends (pg_ctl
  # starts it as a session leader, so its process group is its own).
  if [[ $(readlink "/proc/$pid/cwd" 2>/dev/null) == "$pgdata" ]]; then
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  fi
}
cleanup() {
  local s
  for s in "${servers[@]}"; do stop_server "$s"; done
  ((${#scratch[@]})) && rm -rf "${scratch[@]}"
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

new_dir() {  # parent → $dir: a fresh 0755 directory the server's user owns, removed on exit
  dir=$(mktemp -d "$1/dbrace-bench-pg.XXXXXX")
  scratch+=("$dir")
  chmod 0755 "$dir"
  chown "$pg_owner" "$dir"
}
free_port() {  # a TCP port nobody listens on now (from the ephemeral range, so never 5432)
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
now() { date +%s%N; }
secs_since() { python3 -c "print(($(now) - $1) / 1e9)"; }

# Start the server in a fresh directory under PARENT. Sets inst (its directory), work
# (our own files in it), pgdata, sock, port, password, pguser; defines dbrace_url,
# pg_conn and psql_admin.
start_throwaway_server() {  # parent
  new_dir "$1"
  inst=$dir
  work=$inst/work
  mkdir "$work"
  pgdata=$inst/pgdata sock=$inst/sock
  as_pg mkdir -m 0700 "$sock"
  port=$(free_port)
  [[ $port != 5432 ]] || fail "got port 5432 as a free port; run again"
  password=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
  pguser=postgres
  echo "starting PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') in $inst" \
    "($(stat -f -c %T "$inst")), 127.0.0.1:$port and $sock"
  (umask 077 && echo "$password" >"$inst/pwfile")
  chown "$pg_owner" "$inst/pwfile"
  as_pg "$PGBIN/initdb" -D "$pgdata" -U "$pguser" --pwfile="$inst/pwfile" \
    --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C >"$work/initdb.log" 2>&1 ||
    { cat "$work/initdb.log" >&2; exit 1; }
  rm -f "$inst/pwfile"
  servers+=("$pgdata")
  as_pg "$PGBIN/pg_ctl" -D "$pgdata" -l "$inst/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $sock" start >/dev/null ||
    { tail -5 "$inst/server.log" >&2; exit 1; }
  psql_admin -c 'SELECT 1' >/dev/null
}

# How each side connects, per transport. Admin work (dropping and creating pgbench's
# database) always goes over the socket and is not timed.
dbrace_url() {  # transport
  case $1 in
    tcp) echo "postgres://$pguser:$password@127.0.0.1:$port/postgres" ;;
    # dbrace takes the socket's port from the authority: ?host= is its only parameter
    socket) echo "postgres://$pguser@:$port/postgres?host=$sock" ;;
  esac
}
pg_conn() {  # transport
  case $1 in
    tcp) echo "-h 127.0.0.1 -p $port -U $pguser" ;;
    socket) echo "-h $sock -p $port -U $pguser" ;;
  esac
}
psql_admin() { PGOPTIONS='-c client_min_messages=warning' "$PGBIN/psql" -h "$sock" -p "$port" -U "$pguser" -d postgres -qXAt -v ON_ERROR_STOP=1 "$@"; }

# A copy of the binary, so a rebuild during the run (a long one) does not change it midway.
copy_dbrace() {  # → $dbrace
  cp target/release/dbrace "$work/dbrace"
  dbrace=$work/dbrace
  local describe
  describe=$(git describe --always --dirty 2>/dev/null || echo "no git")
  echo "dbrace $("$dbrace" --version | awk '{print $2}') ($describe), copied to $dbrace for the run"
}

loadavg() { echo "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"; }
