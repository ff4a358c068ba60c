#!/usr/bin/env bash
# Makes sure a NATS server is here for the remote worker tests (Debian's `nats-server` package, run
# by the tests on a free port; never started as a daemon). Installs it with apt-get when missing,
# then prints `export TOOLGATE_NATS_SERVER_BIN=<path>` for `eval`.
set -euo pipefail

find_nats_server() {
  local candidate
  for candidate in "${TOOLGATE_NATS_SERVER_BIN:-}" "$(command -v nats-server 2>/dev/null || true)" /usr/sbin/nats-server /usr/bin/nats-server; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      # Absolute, whatever the variable or PATH held.
      (cd "$(dirname "$candidate")" && printf '%s/%s\n' "$(pwd -P)" "$(basename "$candidate")")
      return 0
    fi
  done
  return 1
}

if ! nats_server_path=$(find_nats_server); then
  # shellcheck source=debian-packages.sh
  . "$(dirname "$0")/debian-packages.sh"
  install_debian_packages ensure-nats nats-server
  nats_server_path=$(find_nats_server) || { echo "ensure-nats: nats-server is still missing after the install" >&2; exit 1; }
fi
echo "ensure-nats: $("$nats_server_path" --version 2>/dev/null | head -n 1) at $nats_server_path" >&2
printf 'export TOOLGATE_NATS_SERVER_BIN=%q\n' "$nats_server_path"
