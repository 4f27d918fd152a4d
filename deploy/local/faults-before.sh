#!/usr/bin/env bash
# The faults bench (backend/bench/faults.bench.ts) against an older commit's backend, for the
# "before" column beside `npm run bench -- faults`: bash deploy/local/faults-before.sh [COMMIT]
# (default 1978008, the studio before issue 53's fail-fast and recovery work).
# The commit is checked out in a git worktree (in /tmp) that uses this tree's installed npm
# packages (the lock file must match), with the bench and its drill files copied in from here;
# the services (FerretDB, Redis, moto, toxiproxy) are this tree's.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
commit="$(git rev-parse --short "${1:-1978008}")"
# outside the repository: jest (haste) and the linters would take its copies for this tree's
tree="${FAULTS_BEFORE_DIR:-${TMPDIR:-/tmp}/studio-faults-before-$commit}"

ensure_apt_packages redis-server
ensure_npm_dependencies
ensure_ferretdb
ensure_toxiproxy
ensure_moto
# Every package the old commit locked must be here at the same version (packages added since, such
# as a frontend test's, do no harm to its backend).
if ! git show "$commit:package-lock.json" | node -e '
  const old = JSON.parse(require("fs").readFileSync(0, "utf8")).packages;
  const now = require("./package-lock.json").packages;
  const missing = Object.entries(old).filter(
    ([key, pkg]) => key.startsWith("node_modules/") && now[key]?.version !== pkg.version,
  );
  for (const [key, pkg] of missing.slice(0, 5)) console.error(`${key}@${pkg.version}: ${now[key]?.version ?? "absent"} here`);
  process.exit(missing.length ? 1 : 0);
'; then
  log "$commit locked other package versions: its backend cannot run on this tree's packages"
  exit 1
fi
[ -d "$tree" ] || git worktree add --detach "$tree" "$commit" >/dev/null
# this tree's packages, but the old tree's own workspaces (@studio/*)
mkdir -p "$tree/node_modules/@studio"
for entry in "$ROOT"/node_modules/* "$ROOT"/node_modules/.bin; do
  [ "${entry##*/}" = "@studio" ] || ln -sfn "$entry" "$tree/node_modules/${entry##*/}"
done
for ws in libs/contracts libs/inference backend frontend; do ln -sfn "../../$ws" "$tree/node_modules/@studio/${ws##*/}"; done
for nested in backend/node_modules libs/inference/node_modules; do
  [ -d "$ROOT/$nested" ] && ln -sfn "$ROOT/$nested" "$tree/$nested"
done
ln -sfn "$ROOT/.tools" "$tree/.tools"
mkdir -p "$tree/backend/test/faults"
cp backend/bench/faults.bench.ts "$tree/backend/bench/"
cp backend/test/faults/fault-drill.ts "$tree/backend/test/faults/"
cp backend/test/private-services.ts backend/test/toxiproxy.ts "$tree/backend/test/"
(cd "$tree" && npm run build --silent -w @studio/contracts && npm run build --silent -w @studio/inference)

BENCH_DATA="$ROOT/.data/bench-faults-before"
rm -rf "$BENCH_DATA"
trap stop_services EXIT INT TERM
mongo_port="${BENCH_MONGO_PORT:-27029}"
redis_port="${BENCH_REDIS_PORT:-6392}"
s3_port="${BENCH_S3_PORT:-12192}"
start_ferretdb "$mongo_port" "$BENCH_DATA/ferretdb"
start_redis "$redis_port" "$BENCH_DATA/redis"
start_moto "$s3_port"
cd "$tree"
MONGODB_URI="mongodb://127.0.0.1:$mongo_port/bench?maxPoolSize=4" REDIS_URL="redis://127.0.0.1:$redis_port" \
  TEST_S3_ENDPOINT="http://127.0.0.1:$s3_port" BENCH_FAULTS_LABEL="commit $commit" \
  PORT=0 NODE_ENV=test TS_NODE_TRANSPILE_ONLY=true TS_NODE_PROJECT="$tree/backend/tsconfig.json" \
  node -r ts-node/register backend/bench/faults.bench.ts
