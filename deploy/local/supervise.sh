#!/usr/bin/env bash
# supervise.sh [--grace SECONDS] [--output FILE] NAME COMMAND [ARG...]
# Runs COMMAND, one of npm start's parts (FerretDB, Redis, the mail catcher, stripe-mock, the API,
# the worker), and starts it again with the same arguments, so on the same port and data, whenever
# it ends: after 0.5 s, doubling up to 10 s while it keeps ending, back to 0.5 s once a run lasted
# 30 s; each restart is logged. Exit status 78 (EX_CONFIG: a setting it cannot start with, which
# would fail again) ends the supervisor with that status instead. --output: COMMAND's stdout and
# stderr go to FILE (emptied once, kept across restarts); the supervisor's own lines to its stderr.
#
# SIGTERM (or SIGHUP, SIGINT) stops it: COMMAND gets SIGTERM, and after --grace seconds (default 5)
# whatever is left of COMMAND's process group (it and what it started) gets SIGKILL. The supervisor
# leads a session of its own, so a Ctrl-C meant for npm start reaches start.sh alone, which stops
# the parts in order (the app before the services it uses). It stops by itself when the process
# that started it ends without stopping it (start.sh killed with SIGKILL).
#
# A bash script rather than supervisord, runit, s6 or pm2: no daemon or package to install, the
# parts stay children of npm start (its terminal, its log), and the stop bound is this script's.
set -uo pipefail

grace=5 output=''
while [ $# -gt 0 ]; do
  case "$1" in
    --grace) grace="$2"; shift 2 ;;
    --output) output="$2"; shift 2 ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { echo "usage: $0 [--grace SECONDS] [--output FILE] NAME COMMAND [ARG...]" >&2; exit 2; }

# A session of its own, unless it leads a process group already (where setsid would fork and the
# caller's pid would no longer be the supervisor's). The pid stays the same through exec.
read -r _ _ _ _ pgrp _ </proc/$$/stat
[ "$pgrp" = $$ ] || exec setsid "$BASH" "$0" --grace "$grace" --output "$output" "$@"

name="$1"
shift
min_ms=500 max_ms=10000 steady_s=30
parent=$PPID
child=''
# The supervisor's lines on fd 4 (its stderr as given); COMMAND's on stdout and stderr.
exec 4>&2
[ -z "$output" ] || exec >"$output" 2>&1

log() { printf '\033[1;34m[studio]\033[0m %s\n' "$*" >&4; }
seconds() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }
describe() { if [ "$1" -gt 128 ]; then echo "status $1, SIG$(kill -l $(($1 - 128)))"; else echo "status $1"; fi; }

# Stops COMMAND: SIGTERM, then after the grace SIGKILL to its process group (it and what it
# started), then the supervisor's own timers; exits 0.
stop() {
  trap '' TERM INT HUP # once is enough: a second signal must not cut the grace short
  # $!: a signal between starting COMMAND and noting its pid still finds it
  local target="${child:-$!}" timer ended
  if kill -TERM "$target" 2>/dev/null; then
    sleep "$grace" &
    timer=$!
    wait -n -p ended "$target" "$timer" 2>/dev/null
    [ "${ended:-}" = "$timer" ] && log "$name did not stop within $grace s of SIGTERM; killing it"
    kill -KILL "$timer" 2>/dev/null # (it ignores SIGTERM, as the trap does now)
  fi
  kill -KILL -- "-$target" 2>/dev/null
  kill "$watch" 2>/dev/null
  exit 0
}
trap stop TERM INT HUP

# Its parent's end ends it too (the parent's SIGTERM never comes then): tail exits when it does.
tail --pid="$parent" -f /dev/null 2>/dev/null &
watch=$!

# wait_for PID: until PID ends (its status in $status) or the parent does (then it stops).
wait_for() {
  local ended
  wait -n -p ended "$1" "$watch"
  status=$?
  [ "${ended:-}" = "$watch" ] && stop
  return 0
}

delay_ms=$min_ms
while :; do
  started=$SECONDS
  # A process group of its own (setsid keeps the pid here): whatever it leaves behind when it
  # ends or is stopped can be killed with it.
  setsid "$@" 4>&- &
  child=$!
  wait_for "$child"
  kill -KILL -- "-$child" 2>/dev/null
  child=''
  if [ $status -eq 78 ]; then
    log "$name ended with status 78 (a setting it cannot start with); it is not started again"
    kill "$watch" 2>/dev/null
    exit 78
  fi
  [ $((SECONDS - started)) -ge $steady_s ] && delay_ms=$min_ms
  log "$name ended ($(describe $status)); starting it again in $(seconds $delay_ms) s"
  sleep "$(seconds $delay_ms)" &
  wait_for $!
  delay_ms=$((delay_ms * 2 > max_ms ? max_ms : delay_ms * 2))
done
