#!/usr/bin/env bash
# The settings `npm start` runs the app with, apart from the services it starts (database, Redis,
# mail catcher, stripe-mock) and their ports. start.sh sources this file; the browser test that
# buys coins as a newcomer would (frontend/e2e/npm-start.e2e-spec.ts) runs it, so it meets the same
# keys, secrets and flags, not the test suite's own:
#   bash deploy/local/settings.sh DATA_DIR STRIPE_API_URL   prints NAME=value lines, NUL-terminated
# Secrets are drawn at random once per data folder and kept in it (npm run backup takes them along).

# The names the functions below export, in order, for the printout.
STUDIO_SETTINGS=()

studio_export() {
  export "$1=$2"
  STUDIO_SETTINGS+=("$1")
}

# studio_secret FILE COMMAND...: the content of FILE, written by COMMAND (owner-only) when missing.
studio_secret() {
  local file="$1"
  shift
  [ -s "$file" ] || (umask 077 && "$@" >"$file.new" && mv -f "$file.new" "$file")
  cat "$file"
}

# studio_app_settings DATA_DIR: storage, restore marker, allowance, admin, session secret, log format,
# provenance signing.
# Values already in the environment win, as before.
studio_app_settings() {
  local data_dir="$1"
  mkdir -p "$data_dir"
  # Stored files live in the data folder too, so one folder is the whole installation (npm run backup).
  studio_export STORAGE_DIR "${STORAGE_DIR:-$data_dir/storage}"
  # Left by npm run restore: this start fails and refunds the jobs that were in progress in the backup.
  studio_export RESTORE_MARKER_FILE "$data_dir/restore-pending"
  # A small free allowance for a new account once its email is verified (production sets its own).
  studio_export WELCOME_ALLOWANCE_COINS "${WELCOME_ALLOWANCE_COINS:-25}"
  studio_export ADMIN_USERNAME "${ADMIN_USERNAME:-admin}"
  # A local admin password, made once and kept in the data folder.
  studio_export ADMIN_PASSWORD "${ADMIN_PASSWORD:-$(studio_secret "$data_dir/admin-password" openssl rand -hex 12)}"
  studio_export SESSION_SECRET "${SESSION_SECRET:-$(studio_secret "$data_dir/session-secret" openssl rand -hex 32)}"
  studio_export LOG_PRETTY "${LOG_PRETTY:-true}"
  # Ctrl-C gives a running job this long before it goes back to the queue (the next start runs it):
  # the whole stop stays within 10 s (start.sh).
  studio_export SHUTDOWN_GRACE_MS "${SHUTDOWN_GRACE_MS:-2000}"
  # Outputs are signed with a development certificate made once in the data folder (docs/provenance.md).
  if [ -z "${PROVENANCE_CERT_CHAIN:-}" ]; then
    local dir="$data_dir/provenance"
    if [ ! -f "$dir/chain.pem" ] || [ ! -f "$dir/signer.key" ]; then
      bash "$(dirname "${BASH_SOURCE[0]}")/make-signing-cert.sh" "$dir" "AI Studio" >&2
    fi
    studio_export PROVENANCE_CERT_CHAIN "$dir/chain.pem"
    studio_export PROVENANCE_PRIVATE_KEY "$dir/signer.key"
  fi
}

# studio_payment_settings DATA_DIR STRIPE_API_URL: local test payments against stripe-mock (no card,
# no real money; the site's test page stands in for Stripe's payment page).
studio_payment_settings() {
  local data_dir="$1" api_url="$2"
  # stripe-mock takes only keys it calls "valid looking": sk_test_ then letters and digits (it
  # refused sk_test_local_studio, so Buy Coins answered 500 under npm start).
  studio_export STRIPE_SECRET_KEY sk_test_localstudio
  studio_export STRIPE_API_URL "$api_url"
  studio_export STRIPE_TEST_CHECKOUT true
  # Drawn once per data folder: a constant in the repository would let anyone sign payment events.
  studio_export STRIPE_WEBHOOK_SECRET "whsec_$(studio_secret "$data_dir/stripe-webhook-secret" openssl rand -hex 24)"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  [ $# -eq 2 ] || { echo "usage: $0 DATA_DIR STRIPE_API_URL" >&2; exit 2; }
  studio_app_settings "$1"
  studio_payment_settings "$1" "$2"
  for name in "${STUDIO_SETTINGS[@]}"; do printf '%s=%s\0' "$name" "${!name}"; done
fi
