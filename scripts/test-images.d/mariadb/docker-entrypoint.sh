#!/usr/bin/env bash
# The official mariadb image's contract, for dbrace's tests: MARIADB_ROOT_PASSWORD,
# MARIADB_ALLOW_EMPTY_ROOT_PASSWORD, MARIADB_RANDOM_ROOT_PASSWORD, MARIADB_ROOT_HOST,
# MARIADB_DATABASE, MARIADB_USER, MARIADB_PASSWORD (and their MYSQL_* names); an empty
# datadir is initialized by a temporary server without networking, then
# `mariadbd "$@"` replaces this shell, so server options reach the server.
set -euo pipefail

[[ $# -gt 0 && ${1:0:1} != - ]] || set -- mariadbd "$@"
[[ $1 == mariadbd || $1 == mysqld ]] || exec "$@"
for arg; do
  case "$arg" in -V | --version | --help | -'?') exec "$@" ;; esac
done

note() { printf 'docker-entrypoint: %s\n' "$*"; }
# The values the server would use, with the caller's options applied.
settings="$("$@" --verbose --help 2>/dev/null)"
setting() { awk -v v="$1" '$1 == v && NF == 2 { print $2; exit }' <<<"$settings"; }
datadir="$(setting datadir)"
socket="$(setting socket)"
[[ -n "$datadir" && -n "$socket" ]] || { note "$1 --verbose --help gave no datadir or socket" >&2; exit 1; }

# As root: own the data (a tmpfs or a bind-mounted host directory arrives owned by
# root), then run again as mysql.
if (($(id -u) == 0)); then
  mkdir -p "$datadir" "${socket%/*}"
  find "$datadir" "${socket%/*}" -maxdepth 0 ! -user mysql -exec chown mysql:mysql {} +
  find "$datadir" ! -user mysql -exec chown mysql:mysql {} +
  exec setpriv --reuid=mysql --regid=mysql --init-groups "$BASH_SOURCE" "$@"
fi

root_password="${MARIADB_ROOT_PASSWORD:-${MYSQL_ROOT_PASSWORD:-}}"
allow_empty="${MARIADB_ALLOW_EMPTY_ROOT_PASSWORD:-${MYSQL_ALLOW_EMPTY_PASSWORD:-}}"
random="${MARIADB_RANDOM_ROOT_PASSWORD:-${MYSQL_RANDOM_ROOT_PASSWORD:-}}"
database="${MARIADB_DATABASE:-${MYSQL_DATABASE:-}}"
user="${MARIADB_USER:-${MYSQL_USER:-}}"
password="${MARIADB_PASSWORD:-${MYSQL_PASSWORD:-}}"
root_host="${MARIADB_ROOT_HOST:-${MYSQL_ROOT_HOST:-%}}"

if [[ ! -d "$datadir/mysql" ]]; then
  if [[ -z "$root_password$allow_empty$random" ]]; then
    note "the datadir is empty and no root password is given: set one of" \
      "MARIADB_ROOT_PASSWORD, MARIADB_ALLOW_EMPTY_ROOT_PASSWORD, MARIADB_RANDOM_ROOT_PASSWORD" >&2
    exit 1
  fi
  if [[ -n "$random" ]]; then
    root_password="$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
    note "GENERATED ROOT PASSWORD: $root_password"
  fi
  # The caller's options go to the bootstrap too: some (innodb page size, log file
  # size) must be the same when the datadir is created and when it is used.
  mariadb-install-db --datadir="$datadir" --rpm --auth-root-authentication-method=normal \
    --skip-test-db --skip-log-bin --expire-logs-days=0 "${@:2}" >/dev/null

  "$@" --skip-networking --socket="$socket" --wsrep_on=OFF --skip-log-bin &
  pid=$!
  client=(mariadb --protocol=socket -uroot --socket="$socket")
  for _ in $(seq 300); do
    "${client[@]}" -e 'SELECT 1' >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { note "the temporary server exited" >&2; exit 1; }
    sleep 0.1
  done
  quote() { local s="${1//\\/\\\\}"; printf "'%s'" "${s//\'/\\\'}"; }
  {
    echo "SET @@SESSION.SQL_LOG_BIN=0;"
    # Only root@localhost stays of the accounts the bootstrap made for other hosts.
    echo "DROP USER IF EXISTS root@'127.0.0.1', root@'::1';"
    echo "EXECUTE IMMEDIATE CONCAT('DROP USER IF EXISTS root@\\'', @@hostname, '\\'');"
    echo "SET PASSWORD FOR root@localhost = PASSWORD($(quote "$root_password"));"
    if [[ "$root_host" != localhost ]]; then
      echo "CREATE USER root@$(quote "$root_host") IDENTIFIED BY $(quote "$root_password");"
      echo "GRANT ALL ON *.* TO root@$(quote "$root_host") WITH GRANT OPTION;"
    fi
    if [[ -n "$database" ]]; then
      echo "CREATE DATABASE IF NOT EXISTS \`${database//\`/\`\`}\`;"
    fi
    if [[ -n "$user" && -n "$password" ]]; then
      echo "CREATE USER $(quote "$user")@'%' IDENTIFIED BY $(quote "$password");"
      [[ -z "$database" ]] ||
        echo "GRANT ALL ON \`${database//\`/\`\`}\`.* TO $(quote "$user")@'%';"
    fi
  } | "${client[@]}"
  export MYSQL_PWD="$root_password"
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) note "running $f"; . "$f" ;;
      *.sql) note "running $f"; "${client[@]}" ${database:+"$database"} <"$f" ;;
      *.sql.gz) note "running $f"; gunzip -c "$f" | "${client[@]}" ${database:+"$database"} ;;
      *) [[ ! -e "$f" ]] || note "ignoring $f" ;;
    esac
  done
  unset MYSQL_PWD
  kill "$pid"
  wait "$pid" || :
  note "initialized $datadir; starting the server"
fi

exec "$@"
