#!/usr/bin/env bash
# The official mongo image's contract, for dbrace's tests, served by SecantusDB: a first
# argument that is an option means mongod; MONGO_INITDB_ROOT_USERNAME and
# MONGO_INITDB_ROOT_PASSWORD create that root user in admin on an empty /data/db, through
# a temporary server on 127.0.0.1:27017 without authentication (as the official image's
# init does), which stops before the real server starts with --auth. mongod's options are
# mapped onto SecantusDB's as tests/engines/mongo/stand-in/mongod does; one without an
# equivalent (a unix socket, the journal's interval, …) is refused by name.
set -euo pipefail

[[ $# -gt 0 && ${1:0:1} != - ]] || set -- mongod "$@"
[[ $1 == mongod ]] || exec "$@"

note() { printf 'docker-entrypoint: %s\n' "$*"; }
dbpath=/data/db

# As root: own the data (a tmpfs or a bind-mounted host directory arrives owned by
# root), then run again as mongodb. Started with --user, it must already be writable.
if (($(id -u) == 0)); then
  find "$dbpath" ! -user mongodb -exec chown mongodb:mongodb {} +
  exec setpriv --reuid=mongodb --regid=mongodb --init-groups "$BASH_SOURCE" "$@"
fi

host=127.0.0.1 port=27017 auth=
shift
while (($#)); do
  case "$1" in
    --dbpath) dbpath=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    # SecantusDB binds one address: the first of mongod's list (127.0.0.1; not ::1).
    --bind_ip) host=${2%%,*}; shift 2 ;;
    --ipv6) shift ;;
    --bind_ip_all) host=0.0.0.0; shift ;;
    --auth) auth=--auth; shift ;;
    --nounixsocket) shift ;;
    --unixSocketPrefix | --filePermissions)
      note "SecantusDB has no unix socket ($1); listen on TCP (dbrace: --transport tcp)" >&2; exit 2 ;;
    *) note "mongod option $1 has no SecantusDB equivalent" >&2; exit 2 ;;
  esac
done
[[ -d $dbpath ]] || { note "--dbpath $dbpath: no such directory" >&2; exit 2; }
umask 0077
# SecantusDB looks for a configuration file in ~/.secantus: the image's user's home, not
# root's, which setpriv leaves in HOME.
export HOME=/data/db

secantus=(python3 -m secantus --storage-path "$dbpath" --standalone)
user="${MONGO_INITDB_ROOT_USERNAME:-}" password="${MONGO_INITDB_ROOT_PASSWORD:-}"
if [[ -n $user || -n $password ]]; then
  [[ -n $user && -n $password ]] ||
    { note "MONGO_INITDB_ROOT_USERNAME and MONGO_INITDB_ROOT_PASSWORD go together" >&2; exit 1; }
  # The official image adds --auth when it made a root user.
  auth=--auth
  if [[ -z "$(ls -A "$dbpath")" ]]; then
    note "initializing $dbpath: root user $user, through a temporary server on 127.0.0.1:27017"
    "${secantus[@]}" --host 127.0.0.1 --port 27017 --log-level WARNING &
    temporary=$!
    TEMPORARY=$temporary python3 - <<'PY'
import os, time, pymongo
deadline = time.monotonic() + 60
while True:
    try:
        c = pymongo.MongoClient("127.0.0.1", 27017, serverSelectionTimeoutMS=500, directConnection=True)
        c.admin.command("ping")
        break
    except pymongo.errors.PyMongoError:
        try:
            os.kill(int(os.environ["TEMPORARY"]), 0)
        except ProcessLookupError:
            raise SystemExit("docker-entrypoint: the temporary server exited (its log is above)")
        if time.monotonic() > deadline:
            raise SystemExit("docker-entrypoint: the temporary server did not answer within 60 s")
        time.sleep(0.05)
user, pwd = os.environ["MONGO_INITDB_ROOT_USERNAME"], os.environ["MONGO_INITDB_ROOT_PASSWORD"]
c.admin.command("createUser", user, pwd=pwd, roles=[{"role": "root", "db": "admin"}])
PY
    kill -TERM "$temporary"
    wait "$temporary" || :
    note "initialized; starting the real server"
  fi
fi
unset MONGO_INITDB_ROOT_USERNAME MONGO_INITDB_ROOT_PASSWORD

exec "${secantus[@]}" --host "$host" --port "$port" $auth
