#!/usr/bin/env bash
# npm test: every test. Installs what is missing, starts FerretDB and Redis on test ports with
# fresh data, runs lint, unit, integration and browser tests (jest), then (on a whole run) the
# image test (deploy/local/image-test.sh), and stops everything.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
started=$(date +%s)

ensure_apt_packages redis-server chromium ffmpeg docker-compose
ensure_npm_dependencies
ensure_ferretdb
ensure_stripe_mock
ensure_toxiproxy
ensure_moto
ensure_sr_models
ensure_provenance_tools
ensure_mailcatcher
ensure_monitoring_tools

log "building contracts, inference and frontend"
npm run build --silent -w @studio/contracts
npm run build --silent -w @studio/inference
npm run build --silent -w @studio/frontend >/dev/null

log "lint"
npm run --silent lint

log "module rules (dependency-cruiser, .dependency-cruiser.cjs)"
npm run --silent deps

log "Go tests of the FerretDB patch (deploy/local/ferretdb)"
ensure_ferretdb_vendor
(cd deploy/local/ferretdb && go test -mod=vendor -count=1 ./...)

TEST_DATA="${TEST_DATA_DIR:-$ROOT/.data/test}"
rm -rf "$TEST_DATA"
# Ctrl-C or SIGTERM ends the run (a trap alone would carry on after it), the EXIT trap stops the services.
trap stop_services EXIT
trap 'exit 130' INT TERM
mongo_port="${TEST_MONGO_PORT:-27028}"
redis_port="${TEST_REDIS_PORT:-6391}"
start_ferretdb "$mongo_port" "$TEST_DATA/ferretdb"
start_redis "$redis_port" "$TEST_DATA/redis"
stripe_port="${TEST_STRIPE_PORT:-12111}"
start_stripe_mock "$stripe_port"
export TEST_STRIPE_API_URL="http://127.0.0.1:$stripe_port"
s3_port="${TEST_S3_PORT:-12190}"
start_moto "$s3_port"
export TEST_S3_ENDPOINT="http://127.0.0.1:$s3_port"
smtp_port="${TEST_SMTP_PORT:-12125}"; mail_ui_port="${TEST_MAIL_UI_PORT:-12126}"
start_mailcatcher "$smtp_port" "$mail_ui_port"
export TEST_SMTP_URL="smtp://127.0.0.1:$smtp_port"
export TEST_MAIL_API_URL="http://127.0.0.1:$mail_ui_port"
export TEST_MONGODB_URL="mongodb://127.0.0.1:$mongo_port"
export TEST_REDIS_URL="redis://127.0.0.1:$redis_port"
export CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
# What each file leaves running, listed at the end (deploy/local/leftover-handles.cjs).
export TEST_HANDLE_LOG="${TEST_HANDLE_LOG:-$ROOT/test-results/leftover-handles.jsonl}"

status=0
npx jest --ci "$@" || status=$?
log "jest finished in $(( $(date +%s) - started )) s (exit $status)"

# The production images, built from deploy/docker and run against the services above (npm run
# test:image, docs/deployment.md) on a whole run; its failure fails the run. IMAGE_TEST=0 skips it.
if [ $# -eq 0 ] && [ "${IMAGE_TEST:-1}" = 1 ]; then
  image_started=$(date +%s)
  bash "$ROOT/deploy/local/image-test.sh" || status=$?
  log "image test finished in $(( $(date +%s) - image_started )) s"
fi
log "tests finished in $(( $(date +%s) - started )) s (exit $status)"
exit $status
