#!/bin/bash
# PreToolUse on Bash: refuse `rm -rf`. Exit 2 blocks the call; stderr is the reason the
# model is given. Any other failure of this script (jq missing, a typo) would let the call
# through, so settings.json declares it "onFailure": "block" (harness fails it closed).
command=$(jq -r '.tool_input.command // empty')
if echo "$command" | grep -Eq '\brm[[:space:]]+(-[[:alpha:]]*[rR][[:alpha:]]*f|-[[:alpha:]]*f[[:alpha:]]*[rR]|-[rR][[:space:]]+-f|-f[[:space:]]+-[rR]|--recursive[[:space:]]+--force|--force[[:space:]]+--recursive)'; then
  echo "Blocked: rm -rf is not allowed in this project. Delete the files you mean one by one." >&2
  exit 2
fi
exit 0
