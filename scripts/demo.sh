#!/usr/bin/env bash
# The main job on a fresh machine: install palace in .venv and run the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then python3 -m venv .venv; fi
. .venv/bin/activate
python -m pip install -q --upgrade pip >/dev/null
# core + the torch-free multilingual embedder (pure numpy): Chinese and English vectors offline
python -m pip install -q -e '.[vector-light]'
exec python scripts/demo.py "$@"
