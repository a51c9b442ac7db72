#!/bin/bash
# PostToolUse on Edit|MultiEdit|Write: format the file that was just written, with the
# formatter its kind has (when that formatter is installed).
file=$(jq -r '.tool_input.file_path // empty')
[ -f "$file" ] || exit 0
case "$file" in
  *.py) command -v ruff >/dev/null && ruff format --quiet "$file" ;;
  *.js | *.ts | *.tsx | *.json | *.css | *.md)
    command -v prettier >/dev/null && prettier --write --log-level warn "$file" ;;
  *.go) command -v gofmt >/dev/null && gofmt -w "$file" ;;
  *.sh) command -v shfmt >/dev/null && shfmt -w "$file" ;;
esac
exit 0
