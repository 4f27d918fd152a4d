#!/usr/bin/env bash
# npm run backup [-- ARCHIVE]: one archive of the local installation (DATA_DIR, default .data):
# the embedded database (FerretDB's SQLite files), Redis and the stored files, taken while the app
# runs and takes jobs. Written to ARCHIVE, default backups/studio-<UTC time>.tar.gz.
#   database  SQLite's online backup API: one read transaction per database file, so a
#             consistent snapshot while FerretDB keeps writing (busy timeout, never a torn page).
#   Redis     an RDB snapshot over the replication protocol (redis-cli --rdb), point in time.
#   storage   hard links of the files (written whole and renamed into place, never changed after)
#             before and after the database snapshot, united: every file the snapshot can name.
# The archive carries manifest.json (format, time, SHA-256 and size of every file) and
# report.json (balances, ledger entries, jobs, stored files, read back from the snapshot through
# FerretDB). `npm run restore` checks both before it touches anything.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

DATA_DIR="$(realpath -m "${DATA_DIR:-$ROOT/.data}")"
STORAGE_DIR="$(realpath -m "${STORAGE_DIR:-$DATA_DIR/storage}")"
redis_port="${STUDIO_REDIS_PORT:-6390}"
archive="$(realpath -m "${1:-$ROOT/backups/studio-$(date -u +%Y%m%dT%H%M%SZ).tar.gz}")"

[ -d "$DATA_DIR/ferretdb" ] || { log "no installation at $DATA_DIR (no ferretdb folder): set DATA_DIR"; exit 1; }
[ -e "$archive" ] && { log "$archive exists already"; exit 1; }
ensure_apt_packages sqlite3 redis-server
ensure_ferretdb

stage="$(mktemp -d "${TMPDIR:-/tmp}/studio-backup.XXXXXX")"
cleanup() { stop_services; rm -rf "$stage"; }
trap cleanup EXIT INT TERM
mkdir -p "$stage/data/ferretdb" "$stage/data/redis" "$stage/data/storage" "$stage/links-before"
started=$(date +%s.%N)

# Hard links where the stage shares the file system, a copy elsewhere; .part files are unfinished.
link_storage() {
  [ -d "$STORAGE_DIR" ] || return 0
  cp -al "$STORAGE_DIR/." "$1/" 2>/dev/null || cp -a "$STORAGE_DIR/." "$1/"
  find "$1" -type f -name '*.part' -delete
}

link_storage "$stage/links-before"

databases=()
for db in "$DATA_DIR"/ferretdb/*.sqlite; do
  [ -e "$db" ] || continue
  name="$(basename "$db" .sqlite)"
  databases+=("$name")
  sqlite3 "$db" ".timeout 60000" ".backup '$stage/data/ferretdb/$name.sqlite'"
done
[ ${#databases[@]} -gt 0 ] || { log "no database files in $DATA_DIR/ferretdb"; exit 1; }

# Redis: from the running server, or (installation stopped) from one started on its data for this.
if ! port_in_use "$redis_port"; then
  log "Redis is not running on $redis_port: reading its data with a server of our own"
  redis_port="$(( 20000 + RANDOM % 20000 ))"
  start_redis "$redis_port" "$DATA_DIR/redis"
fi
# Redis waits repl-diskless-sync-delay (5 s) for more replicas before it sends a snapshot: none
# come, so the wait is lifted for this one (and put back), keeping it close to the database's.
delay="$(redis-cli -p "$redis_port" --raw CONFIG GET repl-diskless-sync-delay | tail -1)"
redis-cli -p "$redis_port" CONFIG SET repl-diskless-sync-delay 0 >/dev/null
redis-cli -p "$redis_port" --rdb "$stage/data/redis/dump.rdb" >/dev/null 2>&1
redis-cli -p "$redis_port" CONFIG SET repl-diskless-sync-delay "${delay:-5}" >/dev/null

link_storage "$stage/data/storage"
# Files deleted between the two passes are still in the first one: the union has them all.
cp -aln "$stage/links-before/." "$stage/data/storage/"
rm -rf "$stage/links-before"
snapshot_seconds=$(echo "$started $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')

# The installation's own secrets: restored sessions, the admin password and the signing
# certificate of outputs (provenance) keep working.
for secret in session-secret admin-password stripe-webhook-secret provenance; do
  [ -e "$DATA_DIR/$secret" ] && cp -a "$DATA_DIR/$secret" "$stage/data/$secret"
done

# The report, from a FerretDB on a copy of the snapshot (FerretDB writes beside its files).
mkdir -p "$stage/report-db"
cp "$stage"/data/ferretdb/*.sqlite "$stage/report-db/"
report_port="$(( 20000 + RANDOM % 20000 ))"
start_ferretdb "$report_port" "$stage/report-db" 2>/dev/null
node deploy/local/backup-report.cjs "mongodb://127.0.0.1:$report_port" "${databases[@]}" >"$stage/data/report.json"
stop_services
rm -rf "$stage/report-db"

# The manifest last: what a restore checks the archive against.
(cd "$stage/data" && find . -type f ! -name manifest.json -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) |
  node -e '
    const lines = require("fs").readFileSync(0, "utf8").trim().split("\n").filter(Boolean);
    const fs = require("fs"), path = require("path");
    const files = lines.map((line) => {
      const [sha256, name] = [line.slice(0, 64), line.slice(66).replace(/^\.\//, "")];
      return { path: name, sha256, size: fs.statSync(path.join(process.argv[1], name)).size };
    });
    process.stdout.write(JSON.stringify({
      format: "ai-studio-backup", version: 1, createdAt: new Date().toISOString(),
      databases: process.argv[2].split(" "), files,
    }, null, 1));
  ' "$stage/data" "${databases[*]}" >"$stage/data/manifest.json"

mkdir -p "$(dirname "$archive")"
tar -C "$stage/data" -czf "$archive.part" .
mv "$archive.part" "$archive"
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  for (const [db, c] of Object.entries(r))
    console.log(`${db}: ${Object.keys(c.balances).length} accounts, ${Object.keys(c.ledger).length} ledger entries, ` +
      `${Object.keys(c.jobs).length} jobs (${Object.values(c.jobs).filter((j) => j.state === "queued" || j.state === "running").length} in progress: a restore fails and refunds them), ${c.storageKeys.length} stored items`);
' "$stage/data/report.json"
log "backup written to $archive ($(du -h "$archive" | cut -f1); snapshot taken in $snapshot_seconds s)"
echo "$archive"
