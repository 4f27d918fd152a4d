#!/usr/bin/env bash
# npm run bench -- restart: `npm start` twice on one fresh data folder, timed from launch until
# GET /api/health answers: the first start (empty data, every build redone, as after a change to
# every source) beside the second (existing data, builds current). Goal: the second under 15 s.
# Ports of its own, so a running `npm start` is not disturbed. BENCH_RESTART_WARM_BUILDS=1 keeps
# the builds for the first start too (then only the data differs).
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

export DATA_DIR="${BENCH_RESTART_DATA_DIR:-$ROOT/.data/bench-restart}"
export PORT="${BENCH_RESTART_PORT:-3197}"
export STUDIO_MONGO_PORT="${BENCH_RESTART_MONGO_PORT:-27031}" STUDIO_REDIS_PORT="${BENCH_RESTART_REDIS_PORT:-6394}"
export STUDIO_SMTP_PORT="${BENCH_RESTART_SMTP_PORT:-1031}" STUDIO_MAIL_UI_PORT="${BENCH_RESTART_MAIL_UI_PORT:-8031}"
export LOG_PRETTY=false
unset MONGODB_URI REDIS_URL SMTP_URL STORAGE_DIR
rm -rf "$DATA_DIR"
mkdir -p "$DATA_DIR"

# start_once LABEL: seconds from `npm start` to a healthy answer. The app is then stopped as Ctrl-C
# does (its own process group, so the services get the signal too), and the next start waits until
# nothing holds the data folder any more (start.sh's DATA_DIR/.running lock).
start_once() {
  local label="$1" began ready pid tries=0
  began=$(date +%s.%N)
  setsid bash deploy/local/start.sh >"$DATA_DIR/$label.log" 2>&1 &
  pid=$!
  until curl -fs -o /dev/null "http://127.0.0.1:$PORT/api/health" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then log "$label start failed: see $DATA_DIR/$label.log"; return 1; fi
    tries=$((tries + 1))
    [ "$tries" -gt 6000 ] && { log "$label start took over 10 minutes"; kill "$pid"; return 1; }
    sleep 0.1
  done
  ready=$(date +%s.%N)
  kill -INT -- "-$pid"
  wait "$pid" 2>/dev/null || true
  flock -w 60 "$DATA_DIR/.running" true
  echo "$began $ready" | awk '{ printf "%.1f", $2 - $1 }'
}

if [ "${BENCH_RESTART_WARM_BUILDS:-0}" != 1 ]; then
  rm -f libs/contracts/dist/.studio-build libs/inference/dist/.studio-build backend/dist/.studio-build \
    frontend/dist/.studio-build
fi
first=$(start_once first)
second=$(start_once second)
printf '\n%-58s %8s\n' "npm start, until GET /api/health answers" "seconds"
printf '%-58s %8s\n' "first start (empty data folder, builds redone)" "$first"
printf '%-58s %8s\n' "second start (existing data, builds current)" "$second"
awk -v s="$second" 'BEGIN { printf "%-58s %8s\n", "second start under 15 s", (s < 15 ? "yes" : "NO") }'
