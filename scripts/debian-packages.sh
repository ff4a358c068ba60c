#!/usr/bin/env bash
# Sourced by the ensure-*.sh scripts: `install_debian_packages <who> <package>...` installs Debian
# packages with apt-get (through sudo when not root), refreshing the package list first, or fails
# with the command a person can run instead.

install_debian_packages() {
  local who=$1
  shift
  local apt
  if [ "$(id -u)" = 0 ]; then
    apt=(env DEBIAN_FRONTEND=noninteractive apt-get)
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    apt=(sudo -n env DEBIAN_FRONTEND=noninteractive apt-get)
  else
    printf '%s: missing %s and this user can neither apt-get nor sudo; install them: apt-get install -y %s\n' "$who" "$*" "$*" >&2
    return 1
  fi
  command -v apt-get >/dev/null 2>&1 || { printf '%s: missing %s and there is no apt-get here\n' "$who" "$*" >&2; return 1; }
  printf '%s: installing %s from Debian packages\n' "$who" "$*" >&2
  # An install from a stale or empty package list fails: refresh it first, once.
  "${apt[@]}" update -qq >&2
  "${apt[@]}" install -y -qq --no-install-recommends "$@" >&2
}
