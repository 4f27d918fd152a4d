#!/usr/bin/env bash
# npm run bench: benchmarks against fresh local services (FerretDB, Redis), printed side by side
# with the raw database operation each is built on.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

ensure_apt_packages redis-server
ensure_npm_dependencies
ensure_ferretdb
npm run build --silent -w @studio/contracts
npm run build --silent -w @studio/inference

BENCH_DATA="${BENCH_DATA_DIR:-$ROOT/.data/bench}"
rm -rf "$BENCH_DATA"
trap stop_services EXIT INT TERM
mongo_port="${BENCH_MONGO_PORT:-27029}"
redis_port="${BENCH_REDIS_PORT:-6392}"
start_ferretdb "$mongo_port" "$BENCH_DATA/ferretdb"
start_redis "$redis_port" "$BENCH_DATA/redis"

# FerretDB on SQLite has one writer: a small pool queues in the driver instead of thrashing its lock.
export MONGODB_URI="${BENCH_MONGODB_URI:-mongodb://127.0.0.1:$mongo_port/bench${BENCH_URI_OPTIONS-?maxPoolSize=4}}"
export REDIS_URL="redis://127.0.0.1:$redis_port"
export PORT=0 NODE_ENV=test TS_NODE_TRANSPILE_ONLY=true TS_NODE_PROJECT="$ROOT/backend/tsconfig.json"

# `npm run bench` runs every part; `npm run bench -- ledger` (or folders, pipeline, workers, audit, uploads, database, password, webhooks) one of them.
parts="${*:-ledger folders pipeline workers audit uploads database password webhooks}"
[[ " $parts " == *" ledger "* ]] && node -r ts-node/register backend/bench/ledger.bench.ts
[[ " $parts " == *" folders "* ]] && node -r ts-node/register backend/bench/folder-contents.bench.ts
[[ " $parts " == *" pipeline "* ]] && node ${BENCH_NODE_FLAGS:-} -r ts-node/register backend/bench/pipeline.bench.ts
[[ " $parts " == *" workers "* ]] && node -r ts-node/register backend/bench/workers.bench.ts
# signed webhooks (issue 41): deliveries per second and latency with 1,000 jobs ending, beside the job pipeline alone
[[ " $parts " == *" webhooks "* ]] && node -r ts-node/register backend/bench/webhooks.bench.ts
[[ " $parts " == *" audit "* ]] && node -r ts-node/register backend/bench/audit-stats.bench.ts
# the embedded database alone: reads at 10k and BENCH_DOCS (default 1M) documents
[[ " $parts " == *" database "* ]] && node -r ts-node/register backend/bench/database.bench.ts
[[ " $parts " == *" uploads "* ]] && node -r ts-node/register backend/bench/uploads.bench.ts
# decoding budgets: memory of the API's process tree under data-URL uploads and pixel bombs (issue 35)
[[ " $parts " == *" decode "* ]] && node -r ts-node/register backend/bench/decode-budget.bench.ts
# CPU per password hash at the configured scrypt cost (no services needed)
[[ " $parts " == *" password "* ]] && node -r ts-node/register backend/bench/password-hash.bench.ts
# fair share: user B's one clone behind user A's backlog of 3 clone jobs of 100 copies, B's wait against one running backlog job, the backend before issue 54's change beside the working tree (worker processes)
[[ " $parts " == *" fairness "* ]] && node -r ts-node/register backend/bench/fairness.bench.ts
# the API's answers and socket pushes while the engine pool is saturated (not in the default set: minutes of CPU)
[[ " $parts " == *" responsiveness "* ]] && { ensure_sr_models; node ${BENCH_NODE_FLAGS:-} -r ts-node/register backend/bench/responsiveness.bench.ts; }
# the local engine's outputs judged by dlib and PIL (no services; not in the default set: minutes of CPU)
[[ " $parts " == *" quality "* ]] && { ensure_sr_models; ensure_quality_tools; node -r ts-node/register backend/bench/quality.bench.ts; }
# face search candidates on a measured set of the test faces (docs/face-swap.md), and video swap jitter
[[ " $parts " == *" faces "* ]] && node -r ts-node/register backend/bench/face-detect.bench.ts
# the content check (nsfwjs, face ages) on the neutral test images beside a face swap's time (no services; not in the default set: minutes of CPU)
[[ " $parts " == *" moderation "* ]] && node -r ts-node/register backend/bench/moderation.bench.ts
[[ " $parts " == *" jitter "* ]] && node -r ts-node/register backend/bench/video-jitter.bench.ts
# Lighthouse's performance score and timings of / and /profile beside a bare page on the same machine (not in the default set: a frontend build)
[[ " $parts " == *" lighthouse "* ]] && { ensure_apt_packages chromium; npm run build --silent -w @studio/frontend >/dev/null; CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}" node -r ts-node/register backend/bench/lighthouse.bench.ts; }
# npm start twice on one fresh data folder: the first start beside a restart on existing data (goal < 15 s; not in the default set: a full build)
[[ " $parts " == *" restart "* ]] && bash deploy/local/restart-bench.sh
# worker start (issue 53): worker process spawned -> first queued clone succeeded, quiet and beside two busy loops, the engine library before and after the change (not in the default set: two builds, minutes)
[[ " $parts " == *" worker-start "* ]] && { ensure_sr_models; node -r ts-node/register backend/bench/worker-start.bench.ts; }
# the local engine's CPU runtimes side by side: onnxruntime-node vs tfjs-wasm, against the matmul peak (no services; not in the default set: minutes of CPU)
[[ " $parts " == *" engines "* ]] && { ensure_sr_models; node -r ts-node/register backend/bench/engines.bench.ts; }
# provenance: every local tool's outputs marked, the manifest read back, the watermark after re-encodes (not in the default set: minutes of CPU)
# (BENCH_C2PATOOL=0: read the manifests with c2pa-python instead of building c2patool)
[[ " $parts " == *" provenance "* ]] && { ensure_sr_models; ensure_provenance_tools; [ "${BENCH_C2PATOOL:-1}" = 0 ] || ensure_c2patool; node -r ts-node/register backend/bench/provenance.bench.ts; }
# marking (issue 54): each step of marking one output (decode, watermark, encode, sign, files, round trip, db) beside the engine's time, before and after issue 54's change (needs the database; not in the default set)
[[ " $parts " == *" marking "* ]] && { ensure_sr_models; ensure_provenance_tools; node -r ts-node/register backend/bench/marking.bench.ts; }
# job steps (issue 54, 2): one 1 MP super resolution and face swap job at a time on the real app, each step from the submission to the socket's push timed (not in the default set)
[[ " $parts " == *" job-steps "* ]] && { ensure_sr_models; ensure_provenance_tools; node -r ts-node/register backend/bench/job-steps.bench.ts; }
# copy finding (issue 38): outputs found after JPEG 75, 50% downscale, 10% crops, PNG to JPEG; false matches on 1,000 unrelated pictures; look-up at 1M hashes beside a scan (no services)
[[ " $parts " == *" matching "* ]] && node -r ts-node/register backend/bench/matching.bench.ts
# faults survived (issue 53): Redis, the database, the worker, a GPU engine, S3 and a full disk each failing for
# 10 s under three users; answers, readiness, recovery and the money check (not in the default set: minutes;
# the disk row mounts a tmpfs, so it needs root). deploy/local/faults-before.sh runs it against an older commit.
[[ " $parts " == *" faults "* ]] && {
  ensure_toxiproxy
  ensure_moto
  start_moto "${BENCH_S3_PORT:-12192}"
  TEST_S3_ENDPOINT="http://127.0.0.1:${BENCH_S3_PORT:-12192}" node -r ts-node/register backend/bench/faults.bench.ts
}
exit 0
