#!/usr/bin/env python3
"""Serve palace's embedding sidecar (vector_service.app) with uvicorn.

    python scripts/vector-service.py [--workspace DIR] [--host 127.0.0.1] [--port 8765] [--model NAME]

Settings come from MEMORY_* variables (MEMORY_VECTOR_MODEL, MEMORY_VECTOR_SERVICE_TOKEN,
...); the flags override them. Clients find it through MEMORY_VECTOR_SERVICE_URL, and
when that is set its port is the default here, so both sides read one variable.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from palace.errors import ConfigError  # noqa: E402
from palace.settings import Settings  # noqa: E402

DEFAULT_PORT = 8765


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspace", help="serve /search, /index, /remove over this palace "
                        "workspace (default: MEMORY_WORKSPACE_DIR if set, else embeddings only)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; any other needs "
                        "MEMORY_VECTOR_SERVICE_TOKEN)")
    parser.add_argument("--port", type=int, help=f"port (default: the one in "
                        f"MEMORY_VECTOR_SERVICE_URL, else {DEFAULT_PORT})")
    parser.add_argument("--model", help="embedding model (overrides MEMORY_VECTOR_MODEL)")
    parser.add_argument("--threads", type=int, help="CPU threads for the model (sets "
                        "OMP_NUM_THREADS; 1 is often fastest on a busy 2-core machine)")
    parser.add_argument("--viewer", action="store_true",
                        help="also serve the palace viewer at /viewer/ (needs a workspace)")
    parser.add_argument("--log-level", default="info",
                        choices=["critical", "error", "warning", "info", "debug"])
    args = parser.parse_args(argv)
    if args.threads:
        os.environ["OMP_NUM_THREADS"] = str(args.threads)  # read when torch/BLAS load

    try:
        settings = Settings.from_env(vector_model=args.model)
        from vector_service.app import check_bind_address, create_app

        check_bind_address(args.host, settings.vector_service_token)
    except ConfigError as exc:
        print(f"vector-service: {exc}", file=sys.stderr)
        return 2

    port = args.port or _port_from_url(settings.vector_service_url) or DEFAULT_PORT
    workspace = args.workspace
    if workspace is None and settings.sources.get("workspace_dir") == "env":
        workspace = settings.workspace_dir
    app = create_app(settings, workspace)
    if args.viewer:
        if workspace is None:
            print("vector-service: --viewer needs --workspace (or MEMORY_WORKSPACE_DIR)", file=sys.stderr)
            return 2
        from vector_service.app import mount_viewer

        mount_viewer(app, settings, workspace)

    import uvicorn

    uvicorn.run(app, host=args.host, port=port, log_level=args.log_level)
    return 0


def _port_from_url(url: str | None) -> int | None:
    if not url:
        return None
    try:
        return urlsplit(url).port
    except ValueError:
        return None


if __name__ == "__main__":
    sys.exit(main())
