#!/usr/bin/env bash
# The official redis image's contract, for dbrace's tests: arguments go to redis-server
# (a first argument that is an option or a .conf file means redis-server), the data is
# in /data (the working directory), and the server runs as redis.
set -euo pipefail

if [[ $# -eq 0 || ${1:0:1} == - || $1 == *.conf ]]; then set -- redis-server "$@"; fi

if [[ $1 == redis-server ]]; then
  if (($(id -u) == 0)); then
    find . ! -user redis -exec chown redis:redis {} +
    exec setpriv --reuid=redis --regid=redis --init-groups "$BASH_SOURCE" "$@"
  fi
  # The official image builds Redis with protected mode off; Debian's is on. Without a
  # configuration file the same default is given here, as the first option, so the
  # caller's own --protected-mode still wins.
  if [[ ${2:-} != *.conf ]]; then set -- redis-server --protected-mode no "${@:2}"; fi
  [[ "$(umask)" != 0022 ]] || umask 0077
fi

exec "$@"
