#!/usr/bin/env bash
# Install the real platform, `claude` from @anthropic-ai/claude-code, into the
# ignored folder .cache/claude-code for the real-platform test tier. Idempotent.
set -euo pipefail
version="${CLAUDE_CODE_VERSION:-2.1.328}"
dir="$(cd "$(dirname "$0")/.." && pwd)/.cache/claude-code"
bin="$dir/node_modules/.bin/claude"
if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "^$version "; then
  exit 0
fi
mkdir -p "$dir"
echo "installing @anthropic-ai/claude-code@$version into $dir" >&2
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
  "@anthropic-ai/claude-code@$version" >&2
"$bin" --version >&2
