"""The sidecar refuses bad request bodies with a 4xx, keeps the client's keep-alive
connection, and tells strangers nothing about the machine."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlparse

import httpx
import pytest
from vector_helpers import start_sidecar

pytest_plugins = ["conftest_vectors"]
TOKEN = "s3cret-token"


@pytest.fixture(scope="module")
def sidecar(tmp_path_factory, minilm_path):
    tmp = tmp_path_factory.mktemp("sidecar-hardening")
    running = start_sidecar(tmp, minilm_path, "--workspace", str(tmp / "private-workspace"),
                            env={})
    try:
        running.wait_until_ready()
        yield running
    finally:
        running.stop()


def _connection(sidecar) -> http.client.HTTPConnection:
    url = urlparse(sidecar.url)
    return http.client.HTTPConnection(url.hostname, url.port, timeout=30)


def _post(conn, path, payload, headers=None):
    body = json.dumps(payload).encode() if not isinstance(payload, bytes) else payload
    conn.request("POST", path, body=body, headers={"Content-Type": "application/json", **(headers or {})})
    response = conn.getresponse()
    return response, response.read()


@pytest.mark.parametrize("created", [1e300, -1e300, "9999-12-31T23:59:59-23:59",
                                     "0001-01-01T00:00:00+23:59", 99999999999999999999, "nope"])
def test_index_with_an_extreme_created_at_is_a_400_and_the_connection_stays_open(sidecar, created):
    conn = _connection(sidecar)
    response, body = _post(conn, "/index", {"id": "edge-1", "content": "边界", "metadata": {"createdAt": created}})
    assert response.status == 400, body
    assert json.loads(body)["error"] == "invalid_request"
    assert (response.getheader("connection") or "").lower() != "close"
    sock = conn.sock
    assert sock is not None
    response, body = _post(conn, "/search", {"query": "边界"})
    assert response.status == 200, body
    assert conn.sock is sock  # the same TCP connection answered
    assert all(r["id"] != "edge-1" for r in json.loads(body)["results"])


@pytest.mark.parametrize("payload", [
    b'{"id": "x", "content": "c", "metadata": {"importance": 1e400}}',  # inf once parsed
    b'{"id": "x", "content": "c", "metadata": {"importance": NaN}}',
    {"id": "x", "content": "c", "metadata": {"tags": [[[[]]]]}},
    {"id": "x", "content": "c", "metadata": {"location": "😀" * 70}},
    {"query": "q", "topK": 1e300},
    {"query": "q", "filter": {"createdAfter": 1e300}},
])
def test_odd_bodies_never_cause_a_500(sidecar, payload):
    path = "/search" if "query" in (payload if isinstance(payload, dict) else {}) else "/index"
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    response = httpx.post(sidecar.url + path, content=body, timeout=30, trust_env=False,
                          headers={"Content-Type": "application/json"})
    assert response.status_code < 500, response.text


def test_health_does_not_reveal_the_workspace_path(sidecar):
    health = httpx.get(sidecar.url + "/health", trust_env=False).json()
    assert "private-workspace" not in json.dumps(health)
    assert health["status"] == "ready"


def test_health_with_a_token_reveals_nothing_private_to_strangers(tmp_path, minilm_path):
    running = start_sidecar(tmp_path, minilm_path, "--workspace", str(tmp_path / "private-workspace"),
                            env={"MEMORY_VECTOR_SERVICE_TOKEN": TOKEN})
    try:
        health = running.wait_until_listening()
        assert "private-workspace" not in json.dumps(health)
        assert str(tmp_path) not in json.dumps(health)
    finally:
        running.stop()


def test_fuzz_request_bodies_from_the_sidecars_schemas(sidecar):
    """Short form of scripts/fuzz.py's sidecar target: every answer a 4xx or 2xx on the
    same keep-alive connection, nothing written outside the workspace."""
    import os
    from datetime import timedelta
    from pathlib import Path

    from hypothesis import HealthCheck, given, settings

    import fuzz_targets as ft

    conn = _connection(sidecar)

    @settings(max_examples=int(os.environ.get("PALACE_FUZZ_EXAMPLES", "60")), deadline=timedelta(seconds=30),
              database=None, suppress_health_check=list(HealthCheck))
    @given(request=ft.sidecar_bodies())
    def run(request):
        path, body = request
        response, raw = _post(conn, path, ft.encode_body(body))
        ft.check_sidecar_answer(path, body, response.status, raw.decode("utf-8", "replace"))
        assert (response.getheader("connection") or "").lower() != "close"

    run()
    base = Path(sidecar.log_path).parent
    assert ft.files_outside(base, {base / "private-workspace", Path(sidecar.log_path)}) == []
