#!/usr/bin/env bash
# Real Claude Code for tests/test_claude_code_real.py: the npm package and its native
# binary for this platform (an optional dependency from the same registry). Its
# postinstall only copies that binary over a placeholder, so it is skipped: the test
# runs node_modules/@anthropic-ai/claude-code-<platform>/claude directly.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
