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

# shellcheck source=debian-packages.sh
. "$(dirname "$0")/debian-packages.sh"
install_debian_packages ensure-tesseract "${packages[@]}"
has_eng || { say "tesseract with English data is still missing after the install"; exit 1; }
has_font || { say "no sans-serif font after the install"; exit 1; }
say "$(tesseract --version 2>&1 | head -n 1) ready"
