#!/bin/bash
# Stop: do not let the agent finish while the project's own check fails. Exit 2 sends
# stderr to the model and the session goes on; `stop_hook_active` is true when this stop
# already follows such a block, and then it lets the agent stop (no endless loop).
input=$(cat)
[ "$(jq -r '.stop_hook_active' <<<"$input")" = "true" ] && exit 0
cd "$CLAUDE_PROJECT_DIR" || exit 0
[ -x ./check.sh ] || exit 0
if ! out=$(./check.sh 2>&1); then
  echo "The project's check fails; fix this before you finish:" >&2
  echo "$out" | tail -n 20 >&2
  exit 2
fi
exit 0
