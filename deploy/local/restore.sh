#!/usr/bin/env bash
# npm run restore ARCHIVE: brings a stopped local installation (DATA_DIR, default .data; may be a
# new, empty folder) back to a backup made by `npm run backup`. The archive is checked whole
# before anything is touched: it must read to its end (a truncated one fails), be this project's
# (manifest.json with format ai-studio-backup), hold exactly the files its manifest lists with
# their SHA-256, and its database and Redis snapshot must pass SQLite's and Redis's own checks.
# What it replaces is kept in DATA_DIR/replaced-<time>. The next `npm start` fails and refunds the
# jobs that were in progress when the backup was taken (RESTORE_MARKER_FILE, restore-pending).
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

archive="${1:-}"
[ -n "$archive" ] || { log "usage: npm run restore -- ARCHIVE"; exit 2; }
[ -f "$archive" ] || { log "no archive at $archive"; exit 2; }
archive="$(realpath "$archive")"
DATA_DIR="$(realpath -m "${DATA_DIR:-$ROOT/.data}")"
STORAGE_DIR="$(realpath -m "${STORAGE_DIR:-$DATA_DIR/storage}")"
ensure_apt_packages sqlite3 redis-server

refuse() { log "refused: $*; nothing was changed"; exit 1; }

# ---- check the archive (in a scratch folder beside the installation, so the move is a rename) ----
mkdir -p "$DATA_DIR"
scratch="$(mktemp -d "$DATA_DIR/.restore.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT INT TERM
gzip -t "$archive" 2>/dev/null || refuse "$archive is not a whole gzip file (truncated or not a backup)"
tar -C "$scratch" -xzf "$archive" 2>/dev/null || refuse "$archive does not unpack"
[ -f "$scratch/manifest.json" ] || refuse "$archive has no manifest.json: not a backup of this studio"
why="$(node -e '
  const fs = require("fs"), path = require("path"), crypto = require("crypto");
  const dir = process.argv[1];
  const fail = (why) => { console.error(why); process.exit(1); };
  let m;
  try { m = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8")); } catch { fail("manifest.json is not JSON"); }
  if (m.format !== "ai-studio-backup") fail("manifest.json is not of an ai-studio backup");
  if (m.version !== 1) fail(`backup format version ${m.version} is not one this studio reads`);
  const listed = new Set(m.files.map((f) => f.path));
  const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(d, e.name)) : [path.relative(dir, path.join(d, e.name))]);
  for (const f of walk(dir)) if (f !== "manifest.json" && !listed.has(f)) fail(`${f} is not in the manifest`);
  for (const f of m.files) {
    const p = path.join(dir, f.path);
    if (!fs.existsSync(p)) fail(`${f.path} is missing`);
    const sha = crypto.createHash("sha256").update(fs.readFileSync(p)).digest("hex");
    if (sha !== f.sha256 || fs.statSync(p).size !== f.size) fail(`${f.path} does not match its checksum`);
  }
  if (!m.databases?.length || !listed.has("report.json") || !listed.has("redis/dump.rdb")) fail("incomplete backup");
' "$scratch" 2>&1)" || refuse "$why"
for db in "$scratch"/ferretdb/*.sqlite; do
  [ "$(sqlite3 "$db" 'PRAGMA integrity_check' 2>&1)" = ok ] || refuse "$(basename "$db") fails SQLite's integrity check"
done
redis-check-rdb "$scratch/redis/dump.rdb" >/dev/null 2>&1 || refuse "the Redis snapshot fails redis-check-rdb"

# ---- the installation must be stopped: npm start holds DATA_DIR/.running while it runs ----
exec 9>"$DATA_DIR/.running"
flock -n 9 || refuse "the studio is running on $DATA_DIR: stop npm start first"

# ---- replace: the current data aside, the backup's into place ----
aside="$DATA_DIR/replaced-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$aside"
for part in ferretdb redis session-secret admin-password stripe-webhook-secret provenance restore-pending; do
  [ -e "$DATA_DIR/$part" ] && mv "$DATA_DIR/$part" "$aside/"
done
[ -e "$STORAGE_DIR" ] && mv "$STORAGE_DIR" "$aside/storage"
rmdir "$aside" 2>/dev/null || log "the data it replaced is in $aside"

mkdir -p "$DATA_DIR/ferretdb" "$DATA_DIR/redis/appendonlydir" "$(dirname "$STORAGE_DIR")"
mv "$scratch"/ferretdb/*.sqlite "$DATA_DIR/ferretdb/"
# Redis (7) runs with the append-only file: the snapshot becomes its base, as a rewrite makes it.
mv "$scratch/redis/dump.rdb" "$DATA_DIR/redis/appendonlydir/appendonly.aof.1.base.rdb"
printf 'file appendonly.aof.1.base.rdb seq 1 type b\n' >"$DATA_DIR/redis/appendonlydir/appendonly.aof.manifest"
mv "$scratch/storage" "$STORAGE_DIR"
for secret in session-secret admin-password stripe-webhook-secret provenance; do
  [ -e "$scratch/$secret" ] && mv "$scratch/$secret" "$DATA_DIR/$secret"
done
# Read by the next start (RESTORE_MARKER_FILE): the jobs in progress at backup time are failed and refunded.
node -e 'const m = require(process.argv[1]); process.stdout.write(JSON.stringify({ archive: process.argv[2], createdAt: m.createdAt, restoredAt: new Date().toISOString() }) + "\n")' \
  "$scratch/manifest.json" "$archive" >"$DATA_DIR/restore-pending"
cp "$scratch/report.json" "$DATA_DIR/restored-report.json"
log "restored $archive into $DATA_DIR; start it with npm start (jobs in progress at backup time will be failed and refunded)"
