#!/usr/bin/env bash
# npm run test:image: builds both images of deploy/docker with buildah (chroot isolation) from
# local stand-ins of their base images (debootstrap's Debian, Node from the npm registry; made once
# per machine, image-lib.sh), then runs them (image-test/driver.ts): the API and a worker from the
# API image and nginx from the frontend image, on the host's network, against FerretDB, Redis and
# moto's S3; one job of each local tool through nginx, each output checked (in S3, C2PA manifest
# valid, watermark found); the API image refused in production without a certificate.
# Uses the services of `npm test` when TEST_MONGODB_URL, TEST_REDIS_URL and TEST_S3_ENDPOINT are
# (and TEST_SMTP_URL, its mail catcher) are set (deploy/local/test.sh runs it after jest), else
# starts its own on IMAGE_TEST_*_PORT.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/image-lib.sh"
cd "$ROOT"
started=$(date +%s)

ensure_apt_packages buildah debootstrap redis-server ffmpeg openssl
ensure_npm_dependencies
ensure_ferretdb
ensure_moto
ensure_provenance_tools
ensure_builds # the driver runs on the host with the workspaces' builds (contracts, inference)

ensure_base_images
bases_done=$(date +%s)
build_images
built=$(date +%s)
log "base images $((bases_done - started)) s, image builds $((built - bases_done)) s"

DATA="${IMAGE_TEST_DATA_DIR:-$ROOT/.data/image-test}"
rm -rf "$DATA"
mkdir -p "$DATA"
# Ctrl-C or SIGTERM ends the run (a trap alone would carry on after it), the EXIT trap stops the services.
trap stop_services EXIT
trap 'exit 130' INT TERM
if [ -n "${TEST_MONGODB_URL:-}" ] && [ -n "${TEST_REDIS_URL:-}" ] && [ -n "${TEST_S3_ENDPOINT:-}" ] &&
  [ -n "${TEST_SMTP_URL:-}" ]; then
  export IMAGE_TEST_MONGODB_URL="$TEST_MONGODB_URL" IMAGE_TEST_REDIS_URL="$TEST_REDIS_URL" \
    IMAGE_TEST_S3_ENDPOINT="$TEST_S3_ENDPOINT" IMAGE_TEST_SMTP_URL="$TEST_SMTP_URL"
else
  mongo_port="${IMAGE_TEST_MONGO_PORT:-27031}"
  redis_port="${IMAGE_TEST_REDIS_PORT:-6394}"
  s3_port="${IMAGE_TEST_S3_PORT:-12192}"
  start_ferretdb "$mongo_port" "$DATA/ferretdb"
  start_redis "$redis_port" "$DATA/redis"
  start_moto "$s3_port"
  ensure_mailcatcher
  smtp_port="${IMAGE_TEST_SMTP_PORT:-12127}"
  start_mailcatcher "$smtp_port" "$((smtp_port + 1))"
  export IMAGE_TEST_SMTP_URL="smtp://127.0.0.1:$smtp_port"
  export IMAGE_TEST_MONGODB_URL="mongodb://127.0.0.1:$mongo_port" IMAGE_TEST_REDIS_URL="redis://127.0.0.1:$redis_port" \
    IMAGE_TEST_S3_ENDPOINT="http://127.0.0.1:$s3_port"
fi
# A development signing chain, mounted into the API and worker containers as a Secret would be.
bash "$ROOT/deploy/local/make-signing-cert.sh" "$DATA/provenance" "AI Studio image test" >&2
chmod 0644 "$DATA/provenance/chain.pem" "$DATA/provenance/signer.key" # read by the image's uid 1000

export API_IMAGE FRONTEND_IMAGE IMAGE_TEST_DATA="$DATA" IMAGE_TEST_CERT_DIR="$DATA/provenance"
export IMAGE_TEST_API_PORT="${IMAGE_TEST_API_PORT:-13010}" IMAGE_TEST_NGINX_PORT="${IMAGE_TEST_NGINX_PORT:-18090}"
export IMAGE_TEST_PROVENANCE_PYTHON="$ROOT/.tools/provenance/bin/python"
for port in "$IMAGE_TEST_API_PORT" "$((IMAGE_TEST_API_PORT + 1))" "$IMAGE_TEST_NGINX_PORT"; do
  if port_in_use "$port"; then log "port $port is taken; set IMAGE_TEST_API_PORT / IMAGE_TEST_NGINX_PORT"; exit 1; fi
done
status=0
TS_NODE_TRANSPILE_ONLY=true TS_NODE_PROJECT="$ROOT/backend/tsconfig.json" \
  node -r ts-node/register deploy/local/image-test/driver.ts || status=$?
log "image test finished in $(($(date +%s) - started)) s (bases $((bases_done - started)) s, builds $((built - bases_done)) s, run $(($(date +%s) - built)) s; exit $status)"
exit $status
