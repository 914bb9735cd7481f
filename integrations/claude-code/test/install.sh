#!/usr/bin/env bash
# Real Claude Code for tests/integrations/test_claude_code_real.py: the npm package and its native
# binary for this platform (an optional dependency from the same registry, a ~170 MB
# download on a cold npm cache). Its postinstall only copies that binary over a
# placeholder, so it is skipped: the test runs
# node_modules/@anthropic-ai/claude-code-<platform>/claude directly.
# An install that already matches package-lock.json is kept (npm ci would delete and
# unpack 356 MB again); a clean clone unpacks from npm's cache (~/.npm) when it has it.
set -euo pipefail
cd "$(dirname "$0")"
stamp=node_modules/.palace-installed
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
   && [ -n "$(find node_modules/@anthropic-ai -maxdepth 2 -name claude -type f -size +1M 2>/dev/null)" ]; then
  exit 0
fi
npm ci --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error
echo "$want" > "$stamp"
