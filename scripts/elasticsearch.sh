#!/usr/bin/env bash
# A throwaway single-node Elasticsearch on 127.0.0.1 for tests and local development.
#   scripts/elasticsearch.sh start   fetches Elastic's integ-test distribution from Maven Central (once, into a
#                                    cache outside the repo), starts a fresh node, prints `export ELASTICSEARCH_URL=...`
#   scripts/elasticsearch.sh stop    stops it and deletes its data
# ELASTICSEARCH_VERSION picks the version, ES_JAVA_HOME the JDK (else the newest fitting one in /usr/lib/jvm).
# The integ-test distribution is the server core only: BM25, dense_vector/HNSW, knn, aliases, msearch work;
# no analysis-common module (the standard/simple/whitespace/stop/keyword analyzers and the standard tokenizer with
# lowercase/stop/shingle filters only: no english analyzer, stemmers, asciifolding, synonyms, ngrams, whitespace tokenizer),
# no RRF retriever, no `GET /` (client.info()/ping() get 405), no painless, no ingest pipelines.
# State lives under /tmp (the elasticsearch user must reach it, whatever the permissions of the checkout).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
state="${TMPDIR:-/tmp}/toolgate-es-$(printf '%s' "$root" | cksum | cut -d' ' -f1)"
version="${ELASTICSEARCH_VERSION:-8.19.21}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/toolgate/elasticsearch/$version"
es_user=toolgate-es

say() { printf 'elasticsearch: %s\n' "$*" >&2; }

# Downloads and unzips the distribution once; later runs reuse the cache.
fetch() {
  dist="$cache/elasticsearch-$version"
  [ -x "$dist/bin/elasticsearch" ] && return
  command -v mvn >/dev/null 2>&1 || { say "mvn is needed to fetch Elasticsearch from Maven Central"; return 1; }
  say "fetching org.elasticsearch.distribution.integ-test-zip:elasticsearch:$version from Maven Central"
  mkdir -p "$cache"
  # Run mvn outside any project so a pom.xml in the working directory cannot interfere.
  (cd "$cache" && mvn -q -B -Dstyle.color=never dependency:copy \
    -Dartifact="org.elasticsearch.distribution.integ-test-zip:elasticsearch:$version:zip" \
    -DoutputDirectory="$cache" >"$cache/mvn.log" 2>&1) \
    || { cat "$cache/mvn.log" >&2; say "could not fetch Elasticsearch $version"; return 1; }
  rm -rf "$cache/unzip.tmp"
  unzip -q "$cache/elasticsearch-$version.zip" -d "$cache/unzip.tmp"
  mv "$cache/unzip.tmp/elasticsearch-$version" "$dist"
  rm -rf "$cache/unzip.tmp" "$cache/elasticsearch-$version.zip" "$cache/mvn.log"
}

java_major() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}'; }

# 8.18/8.19 run on Java 17 up to 25; older 8.x need Java < 24 (the Security Manager's end); 9.x needs Java 21+, and
# 9.0 fails its entitlement self-test on Java 25 (posix_spawn EACCES), so it needs 21..24, which Debian 12 lacks.
find_java() {
  if [ -n "${ES_JAVA_HOME:-}" ]; then echo "$ES_JAVA_HOME"; return; fi
  local min max best="" best_major=0 home major
  case "$version" in
    9.0.*) min=21; max=24 ;;
    9.*) min=21; max=99 ;;
    8.19.*|8.18.*) min=17; max=25 ;;
    *) min=17; max=23 ;;
  esac
  for home in /usr/lib/jvm/*/; do
    home="${home%/}"
    [ -x "$home/bin/java" ] && [ ! -L "$home" ] || continue
    major="$(java_major "$home")"
    [ -n "$major" ] && [ "$major" -ge "$min" ] && [ "$major" -le "$max" ] && [ "$major" -gt "$best_major" ] || continue
    best="$home"; best_major="$major"
  done
  [ -n "$best" ] || { say "no JDK with Java $min..$max under /usr/lib/jvm; set ES_JAVA_HOME"; return 1; }
  echo "$best"
}

# Elasticsearch refuses to run as root: run it as the `toolgate-es` system user then.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    id "$es_user" >/dev/null 2>&1 || useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$es_user"
    runuser -u "$es_user" -- "$@"
  else
    "$@"
  fi
}

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

start() {
  fetch
  java_home="$(find_java)"
  stop_quietly
  mkdir -p "$state"
  # The node gets its own view of the install (hard links: cheap and the cache stays untouched; the node only
  # reads it) plus its own config, data, logs and temp dirs, all inside the state dir.
  cp -al "$cache/elasticsearch-$version" "$state/home" 2>/dev/null || cp -a "$cache/elasticsearch-$version" "$state/home"
  cp -a "$state/home/config" "$state/config"
  # No GC log: its path is relative (logs/gc.log in 9.x, resolved in the read-only install) and tests need none.
  sed -i '/-Xlog:gc/d' "$state/config/jvm.options"
  mkdir -p "$state/data" "$state/logs" "$state/tmp"
  http_port="$(free_port)"
  transport_port="$(free_port)"
  while [ "$transport_port" = "$http_port" ]; do transport_port="$(free_port)"; done
  {
    echo "cluster.name: toolgate-test"
    echo "node.name: toolgate-test"
    echo "discovery.type: single-node"
    echo "network.host: 127.0.0.1"
    echo "http.port: $http_port"
    echo "transport.port: $transport_port"
    echo "path.data: $state/data"
    echo "path.logs: $state/logs"
    echo "bootstrap.memory_lock: false"
    echo "cluster.routing.allocation.disk.threshold_enabled: false"
    echo "action.destructive_requires_name: false"
    # Settings of modules the integ-test distribution may lack: an unknown setting stops the node from starting.
    [ -d "$state/home/modules/x-pack-security" ] && echo "xpack.security.enabled: false"
    [ -d "$state/home/modules/ingest-geoip" ] && echo "ingest.geoip.downloader.enabled: false"
    [ -d "$state/home/modules/x-pack-ml" ] && echo "xpack.ml.enabled: false"
    true
  } >"$state/config/elasticsearch.yml"
  echo "$http_port" >"$state/port"
  [ "$(id -u)" = 0 ] && { as_owner true; chown -R "$es_user" "$state/config" "$state/data" "$state/logs" "$state/tmp"; }
  chmod 755 "$state"
  say "starting Elasticsearch $version (Java $(java_major "$java_home") at $java_home) on 127.0.0.1:$http_port"
  started=$SECONDS
  # Started from its logs dir: the launcher's JVM probe writes a relative logs/gc.log (9.x) into its working directory.
  # TieredStopAtLevel=1 (C1 only) halves start-up on 2 cores; plenty for tests.
  # setsid: the launcher and the server JVM share one process group that `stop` kills as a whole.
  setsid env -u JAVA_HOME -u JAVA_TOOL_OPTIONS -u _JAVA_OPTIONS -u JAVA_OPTS \
    ES_JAVA_HOME="$java_home" ES_PATH_CONF="$state/config" ES_TMPDIR="$state/tmp" \
    ES_JAVA_OPTS="${ES_JAVA_OPTS:--Xms512m -Xmx512m -XX:TieredStopAtLevel=1}" CLI_JAVA_OPTS="-XX:TieredStopAtLevel=1 -Djava.io.tmpdir=$state/tmp" \
    bash -c "echo \$\$ >\"\$1/pgid\"; cd \"\$1/logs\"; $(declare -f as_owner); es_user=$es_user; as_owner \"\$1/home/bin/elasticsearch\"" _ "$state" \
    >"$state/stdout.log" 2>&1 </dev/null &
  for _ in $(seq 1 50); do [ -s "$state/pgid" ] && break; sleep 0.1; done
  url="http://127.0.0.1:$http_port"
  until curl -fsS --max-time 10 -o /dev/null "$url/_cluster/health?wait_for_status=yellow&timeout=5s" 2>/dev/null; do
    if ! kill -0 "$(cat "$state/pgid")" 2>/dev/null || [ $((SECONDS - started)) -ge 120 ]; then
      if kill -0 "$(cat "$state/pgid")" 2>/dev/null; then say "Elasticsearch not healthy after $((SECONDS - started)) s; last log lines:"
      else say "Elasticsearch exited while starting; last log lines:"; fi
      tail -n 40 "$state/stdout.log" >&2 || true
      tail -n 40 "$state/logs/toolgate-test.log" >&2 2>/dev/null || true
      stop_quietly
      exit 1
    fi
    sleep 1
  done
  say "Elasticsearch $version up on 127.0.0.1:$http_port after $((SECONDS - started)) s"
  echo "export ELASTICSEARCH_URL=$url"
}

stop_quietly() {
  local pgid=""
  [ -f "$state/pgid" ] && pgid="$(cat "$state/pgid")"
  # Kill the process group only while it is still ours: one of its processes names the state dir.
  if [ -n "$pgid" ] && ps -eo pgid=,args= | awk -v g="$pgid" '$1 == g' | grep -qF "$state"; then
    # Like postgres.sh's immediate stop: the data is thrown away, so no graceful shutdown is needed.
    kill -KILL -- "-$pgid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 -- "-$pgid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -rf "$state"
}

case "${1:-}" in
  start) start ;;
  stop) stop_quietly; say "stopped" ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
