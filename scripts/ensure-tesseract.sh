#!/usr/bin/env bash
# Makes sure what the image tests need is installed: the tesseract OCR CLI with English data (the
# default image describer) and a sans-serif font (test images with known text are drawn with it).
# Installs the missing Debian packages with apt-get (through sudo when not root); fails clearly when
# it cannot.
set -euo pipefail

say() { printf 'ensure-tesseract: %s\n' "$*" >&2; }

has_font() { fc-list 2>/dev/null | grep -qiE 'DejaVu ?Sans|Liberation ?Sans|Noto ?Sans' || ls /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf >/dev/null 2>&1; }
has_eng() { command -v tesseract >/dev/null 2>&1 && tesseract --list-langs 2>/dev/null | grep -qx eng; }

packages=()
has_eng || packages+=(tesseract-ocr tesseract-ocr-eng)
has_font || packages+=(fonts-dejavu-core)
if [ "${#packages[@]}" -eq 0 ]; then exit 0; fi

if [ "$(id -u)" = 0 ]; then
  apt=(env DEBIAN_FRONTEND=noninteractive apt-get)
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  apt=(sudo -n env DEBIAN_FRONTEND=noninteractive apt-get)
else
  say "missing ${packages[*]} and this user can neither apt-get nor sudo; install them: apt-get install -y ${packages[*]}"
  exit 1
fi
command -v apt-get >/dev/null 2>&1 || { say "missing ${packages[*]} and there is no apt-get here; install tesseract 5 with English data and a sans-serif font"; exit 1; }

say "installing ${packages[*]} from Debian packages"
# An install from a stale or empty package list fails: refresh it first, once.
"${apt[@]}" update -qq >&2
"${apt[@]}" install -y -qq --no-install-recommends "${packages[@]}" >&2
has_eng || { say "tesseract with English data is still missing after the install"; exit 1; }
has_font || { say "no sans-serif font after the install"; exit 1; }
say "$(tesseract --version 2>&1 | head -n 1) ready"
