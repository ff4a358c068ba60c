#!/usr/bin/env bash
# Makes sure the Jaeger backend (v2, the `jaeger` program of github.com/jaegertracing/jaeger) is built
# and cached, for the e2e test that reads traces back from a real Jaeger. Built once from its Go module
# through the Go module proxy (about 10 minutes on 2 cores the first time), then kept under the user's
# cache directory. Prints `export TOOLGATE_JAEGER_BIN=<path>` for `eval`; progress goes to stderr.
set -euo pipefail

say() { printf 'ensure-jaeger: %s\n' "$*" >&2; }

version=${TOOLGATE_JAEGER_VERSION:-v1.76.0}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/toolgate/jaeger/$version
bin=$cache/jaeger

if [ ! -x "$bin" ]; then
  command -v go >/dev/null 2>&1 || { say "Go is needed to build Jaeger $version once (then cached at $bin); install Go 1.25+"; exit 1; }
  say "building Jaeger $version from its Go module (once; cached at $bin)"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (
    cd "$work"
    printf 'module toolgate.local/jaeger-build\n\ngo 1.25\n' > go.mod
    go get -tool "github.com/jaegertracing/jaeger/cmd/jaeger@$version" >&2
    mkdir -p "$cache"
    # Built to a temporary name and moved: an interrupted build never leaves a broken cached binary.
    GOFLAGS=-buildvcs=false go build -o "$cache/jaeger.partial" github.com/jaegertracing/jaeger/cmd/jaeger >&2
    mv "$cache/jaeger.partial" "$bin"
  )
  say "Jaeger $version built"
fi
"$bin" version >/dev/null 2>&1 || { say "$bin does not run; delete it to rebuild"; exit 1; }
printf 'export TOOLGATE_JAEGER_BIN=%q\n' "$bin"
