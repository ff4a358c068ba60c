#!/usr/bin/env bash
# Makes sure Prometheus and promtool are installed (Debian's `prometheus` package): the alert rules
# are checked with promtool and a real Prometheus scrapes the gateway in the e2e tests. Installs the
# package with apt-get when missing; fails clearly when it cannot. Never starts a daemon.
set -euo pipefail

has_prometheus() { command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; }
has_prometheus && exit 0

# shellcheck source=debian-packages.sh
. "$(dirname "$0")/debian-packages.sh"
install_debian_packages ensure-prometheus prometheus
has_prometheus || { echo "ensure-prometheus: prometheus or promtool is still missing after the install" >&2; exit 1; }
echo "ensure-prometheus: $(prometheus --version 2>&1 | head -n 1) ready" >&2
