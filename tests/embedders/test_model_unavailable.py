"""No slow silent failure on defaults: the default BGE model with no model hub.

Everything here uses the real sentence-transformers / huggingface_hub stack and a hub
name that is not in the cache. Before, loading spent 20 s (HF_HUB_OFFLINE) to 84 s
(no network: 5 retries per file) before failing; now it fails before torch is even
imported, says how to fix it, and search keeps working on keywords.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import httpx
import pytest
from vector_helpers import free_port, start_sidecar

pytest.importorskip("sentence_transformers", reason="pip install 'palace-memory[vector]'")

DEFAULT_MODEL = "BAAI/bge-small-zh-v1.5"
# Far below the minute of retries it replaces, with room for a loaded CI machine.
BOUND_S = 10.0

LOAD = """
import json, sys, time
started = time.perf_counter()
from palace.embedders.models import load_model
from palace.errors import EmbedderUnavailableError
try:
    load_model(sys.argv[1])
    outcome = {"loaded": True}
except EmbedderUnavailableError as exc:
    outcome = {"loaded": False, "message": str(exc)}
outcome["seconds"] = time.perf_counter() - started
outcome["torch_imported"] = "torch" in sys.modules
print(json.dumps(outcome))
"""


def _env(**changes: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MEMORY_", "HF_", "TRANSFORMERS_", "SENTENCE_TRANSFORMERS_"))}
    env.update({k: v for k, v in changes.items() if v is not None})
    return env


def _load(env: dict[str, str], model: str = DEFAULT_MODEL) -> dict:
    proc = subprocess.run([sys.executable, "-c", LOAD, model], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _assert_fast_and_helpful(outcome: dict, reason: str) -> None:
    assert outcome["loaded"] is False
    assert outcome["seconds"] < BOUND_S, outcome
    assert outcome["torch_imported"] is False  # it failed before the heavy imports
    message = outcome["message"]
    assert DEFAULT_MODEL in message and reason in message
    assert "MEMORY_VECTOR_MODEL" in message and "use-multilingual" in message
    assert "local model folder" in message and "allow the hub" in message


def test_offline_hub_and_an_uncached_model_fail_within_seconds_naming_the_fix(tmp_path):
    env = _env(HF_HUB_OFFLINE="1", HF_HOME=str(tmp_path / "hf"))  # an empty cache
    _assert_fast_and_helpful(_load(env), "HF_HUB_OFFLINE is set")


def test_an_unreachable_hub_fails_within_seconds_too(tmp_path):
    """No HF_HUB_OFFLINE, but nothing answers at the hub's address (no network)."""
    endpoint = f"http://127.0.0.1:{free_port()}"
    env = _env(HF_ENDPOINT=endpoint, HF_HOME=str(tmp_path / "hf"))
    _assert_fast_and_helpful(_load(env), f"{endpoint} did not answer")


def test_the_manager_searches_by_keyword_and_says_why(tmp_path):
    code = """
import json, time
from palace import MemoryPalaceManager
pm = MemoryPalaceManager(%r)
pm.store("我们决定用 PostgreSQL 作为主数据库")
started = time.perf_counter()
results = pm.search("PostgreSQL")
print(json.dumps({"seconds": time.perf_counter() - started,
                  "ids": [r.memory.id for r in results],
                  "notes": [note for r in results for note in r.explanation.notes]}))
""" % str(tmp_path / "ws")
    env = _env(HF_HUB_OFFLINE="1", HF_HOME=str(tmp_path / "hf"), MEMORY_VECTOR_MODE="inprocess",
               MEMORY_TIMEZONE="Asia/Shanghai")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    outcome = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(outcome["ids"]) == 1 and outcome["seconds"] < BOUND_S
    assert any("use-multilingual" in note for note in outcome["notes"]), outcome["notes"]
    # the log says why once, on one line, however many writes and searches follow
    said = [line for line in proc.stderr.splitlines() if DEFAULT_MODEL in line]
    assert len(said) == 1, proc.stderr


def test_the_sidecar_reports_the_error_within_seconds_and_serves_keywords(tmp_path):
    running = start_sidecar(tmp_path, DEFAULT_MODEL, "--workspace", str(tmp_path / "ws"),
                            env={"HF_HOME": str(tmp_path / "hf")})
    client = httpx.Client(trust_env=False, timeout=30.0)
    try:
        running.wait_until_listening()
        started = time.monotonic()
        health: dict = {}
        while time.monotonic() - started < 60:
            health = client.get(running.url + "/health").json()
            if health["status"] != "loading":
                break
            time.sleep(0.1)
        assert health["status"] == "error", health
        assert time.monotonic() - started < BOUND_S
        assert "use-multilingual" in health["error"] and "MEMORY_VECTOR_MODEL" in health["error"]

        stored = client.post(running.url + "/index", json={
            "id": "db", "content": "The Postgres database is backed up every night."})
        assert stored.status_code == 200, stored.text
        found = client.post(running.url + "/search", json={"query": "Postgres backed up", "topK": 3})
        assert found.status_code == 200, found.text
        assert [r["id"] for r in found.json()["results"]] == ["db"]
        log = running.log()
        assert "Retrying" not in log  # no minute of hub retries behind the scenes
        assert "MEMORY_VECTOR_MODEL" in log  # the log says what to do, not only /health
    finally:
        client.close()
        running.stop()
