#!/usr/bin/env bash
# npm run test:loaded: `npm test` (same arguments) beside CPU hogs that keep every core busy (one
# busy loop per core, TEST_LOAD_HOGS to choose), as on a shared CI machine. A test that passes
# only on a quiet machine fails here.
hogs=()
stop_hogs() { [ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2>/dev/null; hogs=(); }
trap stop_hogs EXIT INT TERM
for _ in $(seq "${TEST_LOAD_HOGS:-$(nproc)}"); do
  node -e 'for (;;);' &
  hogs+=($!)
done
echo "[studio] ${#hogs[@]} CPU hogs running (pids ${hogs[*]})" >&2
status=0
bash "$(dirname "$0")/test.sh" "$@" || status=$?
exit $status
