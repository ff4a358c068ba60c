#!/usr/bin/env bash
# A throwaway PostgreSQL on 127.0.0.1 for tests and local development.
#   scripts/postgres.sh start   installs PostgreSQL from Debian's packages if missing, starts a fresh
#                               cluster, prints `export TOOLGATE_TEST_DATABASE_URL=...`
#   scripts/postgres.sh stop    stops it and deletes its data
# State lives under /tmp (the postgres user must reach it, whatever the permissions of the checkout).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
state="${TMPDIR:-/tmp}/toolgate-pg-$(printf '%s' "$root" | cksum | cut -d' ' -f1)"
port_file="$state/port"

say() { printf 'postgres: %s\n' "$*" >&2; }

find_bindir() {
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then pg_config --bindir; return; fi
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

install_postgres() {
  if [ "$(id -u)" != 0 ]; then say "PostgreSQL is not installed and this user cannot apt-get install it"; return 1; fi
  say "installing PostgreSQL from Debian packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq postgresql >&2
}

# initdb and postgres refuse to run as root: run them as the `postgres` system user then.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/sh postgres
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

start() {
  bindir="$(find_bindir)"
  if [ -z "$bindir" ]; then install_postgres; bindir="$(find_bindir)"; fi
  [ -n "$bindir" ] || { say "no PostgreSQL binaries found after install"; exit 1; }
  stop_quietly
  mkdir -p "$state"
  data="$state/data"
  [ "$(id -u)" = 0 ] && chown -R postgres "$state" 2>/dev/null || true
  as_owner "$bindir/initdb" -D "$data" --auth=trust --username=postgres --encoding=UTF8 --no-sync >"$state/initdb.log" 2>&1 || { cat "$state/initdb.log" >&2; exit 1; }
  port="$(free_port)"
  echo "$port" >"$port_file"
  as_owner "$bindir/pg_ctl" -D "$data" -l "$state/server.log" -w -t 60 \
    -o "-p $port -c listen_addresses=127.0.0.1 -k $state -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >&2 \
    || { cat "$state/server.log" >&2; exit 1; }
  "$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -qc 'CREATE DATABASE toolgate_test' >&2
  say "PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port"
  echo "export TOOLGATE_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$port/toolgate_test"
}

stop_quietly() {
  bindir="$(find_bindir)"
  if [ -n "$bindir" ] && [ -f "$state/data/PG_VERSION" ]; then as_owner "$bindir/pg_ctl" -D "$state/data" -m immediate stop >/dev/null 2>&1 || true; fi
  rm -rf "$state"
}

case "${1:-}" in
  start) start ;;
  stop) stop_quietly; say "stopped" ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
