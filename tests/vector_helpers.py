"""Helpers for vector tests: run the embedding sidecar (scripts/vector-service.py) as a
real subprocess on a free loopback port and wait for it, or its app in this process
(``sidecar_in_process``, where the process itself is not the point); an embedder that counts."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SIDECAR_SCRIPT = REPO / "scripts" / "vector-service.py"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Sidecar:
    """scripts/vector-service.py running as a real subprocess."""

    def __init__(self, process: subprocess.Popen, url: str, log_path: Path):
        self.process = process
        self.url = url
        self.log_path = log_path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def wait_until_listening(self, timeout: float = 60.0) -> dict:
        """The first /health answer (usually ``loading``)."""
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"sidecar exited with {self.process.returncode}:\n{self.log()}")
            try:
                return httpx.get(self.url + "/health", timeout=1.0, trust_env=False).json()
            except httpx.HTTPError:
                time.sleep(0.05)
        raise AssertionError(f"sidecar did not listen within {timeout}s:\n{self.log()}")

    def wait_until_ready(self, timeout: float = 120.0) -> dict:
        import httpx

        deadline = time.monotonic() + timeout
        health: dict = {}
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"sidecar exited with {self.process.returncode}:\n{self.log()}")
            try:
                health = httpx.get(self.url + "/health", timeout=1.0, trust_env=False).json()
            except httpx.HTTPError:
                health = {}
            if health.get("status") == "ready":
                return health
            if health.get("status") == "error":
                raise AssertionError(f"sidecar model failed: {health}")
            time.sleep(0.1)
        raise AssertionError(f"sidecar not ready within {timeout}s (last {health}):\n{self.log()}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)  # in case a test paused it
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def start_sidecar(tmp_dir: Path, model: str, *args: str, env: dict | None = None,
                  port: int | None = None, command: list[str] | None = None) -> Sidecar:
    """Start the sidecar on a free loopback port; returns once the process runs.
    ``command``: how to start it (default: python scripts/vector-service.py)."""
    port = port or free_port()
    run_env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    run_env.update({"HF_HUB_OFFLINE": "1", "MEMORY_VECTOR_MODEL": model,
                    "PYTHONUNBUFFERED": "1", "TOKENIZERS_PARALLELISM": "false"})
    run_env.update(env or {})
    log_path = Path(tmp_dir) / f"sidecar-{port}.log"
    with open(log_path, "wb") as log_file:
        process = subprocess.Popen(
            [*(command or [sys.executable, str(SIDECAR_SCRIPT)]), "--port", str(port), "--log-level", "warning", *args],
            cwd=str(tmp_dir), env=run_env, stdout=log_file, stderr=subprocess.STDOUT,
        )
    return Sidecar(process, f"http://127.0.0.1:{port}", log_path)


class CountingEmbedder:
    """The real embedder, counting the texts it embeds (documents) and the questions."""

    def __init__(self, inner):
        self.inner = inner
        self.documents = 0
        self.queries = 0

    name = property(lambda self: self.inner.name)
    dimension = property(lambda self: self.inner.dimension)
    max_chars = property(lambda self: self.inner.max_chars)
    status = property(lambda self: self.inner.status)

    def available(self):
        return True

    def embed_documents(self, texts):
        self.documents += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text):
        self.queries += 1
        return self.inner.embed_query(text)


@contextlib.contextmanager
def sidecar_in_process(model: str, workspace: Path | None = None, *, env: dict | None = None,
                       timeout: float = 120.0):
    """The sidecar app (vector_service.app.create_app) served in this process by
    Starlette's TestClient, its lifespan run (the model loads in the background), once
    /health says ready. Settings come from ``env`` alone, as start_sidecar's do from the
    MEMORY_* variables it passes; requests go to http://127.0.0.1 (the client's base)."""
    from starlette.testclient import TestClient

    from palace.settings import Settings
    from vector_service.app import create_app

    settings = Settings.from_env({"MEMORY_VECTOR_MODEL": model, **(env or {})})
    with TestClient(create_app(settings, workspace), base_url="http://127.0.0.1") as client:
        deadline = time.monotonic() + timeout
        while (health := client.get("/health").json())["status"] != "ready":
            if health["status"] == "error" or time.monotonic() > deadline:
                raise AssertionError(f"sidecar model not ready: {health}")
            time.sleep(0.05)
        yield client
