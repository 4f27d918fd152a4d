#!/bin/sh
# The frontend image's entrypoint (Dockerfile.frontend): renders the server block (nginx.conf) with
# the API's address, the port and the container's DNS servers, then runs nginx in the foreground.
# `healthcheck` asks the running nginx for /healthz instead.
set -eu
: "${API_UPSTREAM:=api:3000}" "${NGINX_PORT:=8080}"

if [ "${1:-}" = healthcheck ]; then
  exec wget -q -O /dev/null "http://127.0.0.1:$NGINX_PORT/healthz"
fi

# The DNS servers of the container (IPv4; nginx's resolver re-resolves API_UPSTREAM through them).
NGINX_LOCAL_RESOLVERS="$(awk '/^nameserver/ && $2 !~ /:/ { printf "%s ", $2 }' /etc/resolv.conf 2>/dev/null || true)"
NGINX_LOCAL_RESOLVERS="${NGINX_LOCAL_RESOLVERS:-127.0.0.11}"
# Requests are logged to the container's output, or to a file when it cannot be reopened by this
# user (a root-owned pipe, as under buildah's chroot isolation in the image test).
NGINX_ACCESS_LOG=/dev/stdout
if ! (: >>/dev/stdout) 2>/dev/null; then NGINX_ACCESS_LOG=/tmp/nginx/access.log; fi
export API_UPSTREAM NGINX_PORT NGINX_LOCAL_RESOLVERS NGINX_ACCESS_LOG

mkdir -p /tmp/nginx
# Only these: nginx's own $variables in the template stay as they are.
envsubst '${API_UPSTREAM} ${NGINX_PORT} ${NGINX_LOCAL_RESOLVERS} ${NGINX_ACCESS_LOG}' \
  </etc/nginx/studio/default.conf.template >/tmp/nginx/default.conf
exec nginx -e stderr -c /etc/nginx/studio/nginx.conf -g 'daemon off;' "$@"
