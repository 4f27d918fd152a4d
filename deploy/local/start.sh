#!/usr/bin/env bash
# npm start: the whole product on one machine. Starts FerretDB and Redis unless MONGODB_URI /
# REDIS_URL are given, builds what is missing, then runs the API and the worker as two processes.
source "$(dirname "$0")/lib.sh"
# The app's settings (secrets, flags, test payments), shared with the test of this path.
source "$(dirname "$0")/settings.sh"
cd "$ROOT"

DATA_DIR="${DATA_DIR:-$ROOT/.data}"
# Held while this runs: npm run restore refuses a running installation.
mkdir -p "$DATA_DIR"
exec 9>"$DATA_DIR/.running"
flock -n 9 || { log "the studio already runs on $DATA_DIR"; exit 1; }
PORT="${PORT:-3000}"

packages=(ffmpeg)
[ -z "${REDIS_URL:-}" ] && packages+=(redis-server)
ensure_apt_packages "${packages[@]}"
ensure_npm_dependencies
ensure_sr_models
ensure_provenance_tools
# Ctrl-C (npm forwards it as well), SIGTERM or SIGHUP stop everything through the EXIT trap: the
# app first, then the services it uses (each part runs under deploy/local/supervise.sh, in a session
# of its own, so the signal meant for npm start reaches this script alone).
APP_PIDS=()
stop_all() {
  trap '' INT TERM HUP # npm's forwarded Ctrl-C must not cut the stop short
  stop_supervised "${APP_PIDS[@]:-}"
  stop_services
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

if [ -z "${MONGODB_URI:-}" ]; then
  ensure_ferretdb
  port="${STUDIO_MONGO_PORT:-27027}"
  start_ferretdb "$port" "$DATA_DIR/ferretdb"
  export MONGODB_URI="mongodb://127.0.0.1:$port/studio"
fi
if [ -z "${REDIS_URL:-}" ]; then
  port="${STUDIO_REDIS_PORT:-6390}"
  start_redis "$port" "$DATA_DIR/redis"
  export REDIS_URL="redis://127.0.0.1:$port"
fi

# A local mail catcher (its web inbox shows every mail the app sends) unless SMTP_URL is given.
if [ -z "${SMTP_URL:-}" ]; then
  ensure_mailcatcher
  smtp_port="${STUDIO_SMTP_PORT:-1025}"; mail_ui_port="${STUDIO_MAIL_UI_PORT:-8025}"
  start_mailcatcher "$smtp_port" "$mail_ui_port"
  export SMTP_URL="smtp://127.0.0.1:$smtp_port"
  log "mail inbox: http://127.0.0.1:$mail_ui_port (every mail the app sends lands there)"
fi

# Local test payments unless a Stripe key is given: stripe-mock stands in for Stripe's API and the
# site's own test page for its payment page (STRIPE_TEST_CHECKOUT; no card, no real money).
if [ -z "${STRIPE_SECRET_KEY:-}" ]; then
  ensure_stripe_mock
  stripe_port="${STUDIO_STRIPE_PORT:-12121}"
  start_stripe_mock "$stripe_port"
  studio_payment_settings "$DATA_DIR" "http://127.0.0.1:$stripe_port"
  log "payments: TEST MODE against stripe-mock on port $stripe_port (Buy Coins opens a test page; no real money)"
fi
studio_app_settings "$DATA_DIR"
# Webhooks can be tried on this machine: http:// receivers on 127.0.0.1 or localhost (the account
# page says so; production refuses the setting).
[ "${NODE_ENV:-}" = production ] || export WEBHOOK_ALLOW_LOOPBACK="${WEBHOOK_ALLOW_LOOPBACK:-true}"
log "free allowance: $WELCOME_ALLOWANCE_COINS coins per new account after email verification (WELCOME_ALLOWANCE_COINS)"

# Builds are reused while what they are built from is unchanged (content hashes, lib.sh ensure_builds).
ensure_builds

export PORT
# (only the password made here is printed, never one given in ADMIN_PASSWORD)
if [ "$ADMIN_PASSWORD" = "$(cat "$DATA_DIR/admin-password" 2>/dev/null)" ]; then
  log "admin account: $ADMIN_USERNAME / $ADMIN_PASSWORD (from $DATA_DIR/admin-password)"
fi
case "$PROVENANCE_CERT_CHAIN" in
  "$DATA_DIR"/provenance/*) log "outputs are signed with the development certificate in $DATA_DIR/provenance" ;;
esac

log "starting on http://localhost:$PORT"
# The API and the worker (job processors and engine pool) run as two processes, as in production:
# the API's event loop never handles a job's results or their garbage, and the worker runs at
# WORKER_NICE so the API wins the CPU when both want it (the responsiveness bench measures this).
# WORKER_INLINE=true runs the worker inside the API process instead. Each is started again when it
# dies (its jobs are taken back by Bull). Each ends within SHUTDOWN_GRACE_MS + 3 s of SIGTERM
# (backend/src/shutdown.ts); its supervisor kills what is left a second later.
app_grace=$(((SHUTDOWN_GRACE_MS + 3000 + 999) / 1000 + 1))
[ "${WORKER_INLINE:-false}" = true ] || export WORKER_INLINE=false
start_supervised --grace "$app_grace" api node backend/dist/api/src/main.js
APP_PIDS+=("$SUPERVISED_PID")
if [ "$WORKER_INLINE" = false ]; then
  # it boots at full priority (a restarted worker is ready sooner on a busy machine), then takes
  # WORKER_NICE itself (backend/worker/src/main.ts)
  export WORKER_NICE="${WORKER_NICE:-5}"
  start_supervised --grace "$app_grace" worker node backend/dist/worker/src/main.js
  APP_PIDS+=("$SUPERVISED_PID")
  log "worker process at nice +${WORKER_NICE:-5}"
fi
# Until a part's supervisor ends (a part that cannot start with its settings, or one killed): then
# everything stops (the EXIT trap).
wait -n "${APP_PIDS[@]}" "${SERVICE_PIDS[@]}"
