#!/usr/bin/env bash
# Makes sure a headless Chromium is here for the console's browser tests (Debian's `chromium`
# package, driven by playwright-core; no browser download from anywhere else). Installs it with
# apt-get when missing, then prints `export TOOLGATE_CHROMIUM=<path>` for `eval`.
set -euo pipefail

find_chromium() {
  local candidate
  for candidate in "${TOOLGATE_CHROMIUM:-}" "$(command -v chromium 2>/dev/null || true)" /usr/bin/chromium; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      printf '%s\n' "$candidate"
      return 0
    fi
  done
  return 1
}

if ! chromium_path=$(find_chromium); then
  # shellcheck source=debian-packages.sh
  . "$(dirname "$0")/debian-packages.sh"
  install_debian_packages ensure-chromium chromium fonts-dejavu-core
  chromium_path=$(find_chromium) || { echo "ensure-chromium: chromium is still missing after the install" >&2; exit 1; }
fi
echo "ensure-chromium: $("$chromium_path" --version 2>/dev/null | head -n 1) at $chromium_path" >&2
printf 'export TOOLGATE_CHROMIUM=%q\n' "$chromium_path"
