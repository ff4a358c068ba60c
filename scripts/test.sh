#!/usr/bin/env bash
# The whole test suite: build, start what the tests need (PostgreSQL unless TOOLGATE_TEST_DATABASE_URL
# is given), run unit, integration (SQLite and PostgreSQL) and e2e tests, stop what it started.
# Extra arguments go to jest, e.g. `npm test -- --selectProjects unit`.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .cache

echo "== build, typecheck (specs included), lint" >&2
npm run --silent build
npm run --silent typecheck
npm run --silent lint

if [ -z "${TOOLGATE_TEST_DATABASE_URL:-}" ]; then
  echo "== start PostgreSQL" >&2
  eval "$(bash scripts/postgres.sh start)"
  trap 'bash scripts/postgres.sh stop' EXIT
fi
export TOOLGATE_TEST_DATABASE_URL

echo "== jest" >&2
status=0
npx jest --ci --json --outputFile=.cache/jest-results.json "$@" || status=$?
node scripts/test-summary.js .cache/jest-results.json || status=1
exit "$status"
