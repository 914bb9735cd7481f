#!/usr/bin/env python3
"""Serve palace's embedding sidecar (vector_service.app) with uvicorn.

    python scripts/vector-service.py [--workspace DIR] [--host 127.0.0.1] [--port 8765] [--model NAME]

Settings come from MEMORY_* variables (MEMORY_VECTOR_MODEL, MEMORY_VECTOR_SERVICE_TOKEN,
...); the flags override them. Clients find it through MEMORY_VECTOR_SERVICE_URL, and
when that is set its port is the default here, so both sides read one variable.
The same server as ``palace sidecar`` (options and start-up: palace/cli/servers.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from palace.cli.servers import vector_service_script  # noqa: E402

if __name__ == "__main__":
    sys.exit(vector_service_script())
