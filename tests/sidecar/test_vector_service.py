"""The embedding sidecar as a real subprocess (scripts/vector-service.py) with MiniLM."""

import os
import signal
import subprocess
import sys
import time

import httpx
import numpy as np
import pytest
from vector_helpers import SIDECAR_SCRIPT, free_port, start_sidecar

from palace.embedders import HttpEmbedder
from palace.errors import EmbedderUnavailableError, InvalidInputError
from palace.settings import Settings

# Fixtures minilm_path, minilm_model and vector_env live in tests/conftest_vectors.py.
pytest_plugins = ["conftest_vectors"]

client = httpx.Client(trust_env=False, timeout=30.0)


@pytest.fixture(scope="module")
def sidecar(tmp_path_factory, minilm_path):
    """One sidecar with a workspace; records what it said while the model loaded."""
    tmp = tmp_path_factory.mktemp("sidecar")
    # Time words are another module's business; these queries must test retrieval only.
    running = start_sidecar(tmp, minilm_path, "--workspace", str(tmp / "workspace"),
                            env={})
    try:
        running.first_health = running.wait_until_listening()
        running.early_embed = client.post(running.url + "/embed", json={"texts": ["early"]})
        running.health_after_early_embed = client.get(running.url + "/health").json()
        running.ready_health = running.wait_until_ready()
        yield running
    finally:
        running.stop()


def post(sidecar, path, payload=None, **kwargs):
    return client.post(sidecar.url + path, json=payload, **kwargs)


def test_health_answers_while_the_model_loads_then_turns_ready(sidecar, minilm_model):
    assert sidecar.first_health["status"] == "loading"
    assert sidecar.first_health["model"] == minilm_model.name
    assert sidecar.first_health["dimension"] is None
    if sidecar.health_after_early_embed["status"] == "loading":
        # The embed call was made before that health answer, so surely during loading.
        assert sidecar.early_embed.status_code == 503
        assert sidecar.early_embed.headers["Retry-After"] == "2"
        assert sidecar.early_embed.json()["error"] == "loading"
    ready = sidecar.ready_health
    assert ready["status"] == "ready"
    assert (ready["model"], ready["dimension"], ready["max_chars"]) == (
        minilm_model.name, 384, minilm_model.max_chars)
    assert ready["load_seconds"] > 0


def test_embed_returns_the_same_vectors_as_the_model_in_process(sidecar, minilm_model):
    texts = ["The deploy key is in the vault.", "部署密钥放在保险库里。"]
    answer = post(sidecar, "/embed", {"texts": texts, "kind": "document"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["model"] == minilm_model.name and body["dimension"] == 384
    vectors = np.asarray(body["vectors"], dtype=np.float32)
    assert vectors.shape == (2, 384)
    assert np.allclose(vectors, minilm_model.embed_documents(texts), atol=1e-5)
    query = post(sidecar, "/embed", {"texts": ["where is the key"], "kind": "query"}).json()
    assert np.allclose(query["vectors"][0], minilm_model.embed_query("where is the key"), atol=1e-5)


def test_embed_accepts_a_body_sent_as_text_plain(sidecar):
    # fetch(url, {body: JSON.stringify(...)}) without headers sends text/plain.
    answer = client.post(sidecar.url + "/embed", content=b'{"texts": ["hi"]}',
                         headers={"Content-Type": "text/plain;charset=UTF-8"})
    assert answer.status_code == 200, answer.text


@pytest.mark.parametrize("payload, status, fragment", [
    ({"texts": "not a list"}, 400, "texts"),
    ({"texts": [1, 2]}, 400, "valid string"),
    ({"texts": []}, 400, "at least one"),
    ({"texts": ["a"], "kind": "passage"}, 400, "kind"),
    ({"texts": ["a"], "colour": "blue"}, 400, "colour"),
    ({"texts": ["a" * 8193]}, 400, "8192"),
    ({"texts": ["a"] * 257}, 400, "in batches"),
    ({}, 400, "texts"),
])
def test_embed_rejects_bad_requests_with_clear_json(sidecar, payload, status, fragment):
    answer = post(sidecar, "/embed", payload)
    assert answer.status_code == status
    body = answer.json()
    assert body["error"] == "invalid_request"
    assert fragment in body["message"]


def test_not_json_and_oversized_bodies_are_refused(sidecar):
    answer = client.post(sidecar.url + "/embed", content=b"{oops",
                         headers={"Content-Type": "application/json"})
    assert answer.status_code == 400 and "JSON" in answer.json()["message"]
    huge = b'{"texts": ["' + b"x" * (3 * 1024 * 1024) + b'"]}'
    answer = client.post(sidecar.url + "/embed", content=huge,
                         headers={"Content-Type": "application/json"})
    assert answer.status_code == 413 and answer.json()["error"] == "body_too_large"
    assert client.get(sidecar.url + "/embed").status_code == 405


def test_http_embedder_talks_to_the_sidecar(sidecar, minilm_model):
    # A generous timeout: this test is about answers, and CI machines can be slow.
    settings = Settings(vector_service_url=sidecar.url, vector_batch_size=16, vector_timeout_s=30.0)
    embedder = HttpEmbedder(settings)
    assert embedder.available()
    assert embedder.name == minilm_model.name
    assert (embedder.dimension, embedder.max_chars) == (384, minilm_model.max_chars)
    texts = [f"memory {i}: the meeting moved to room {i}" for i in range(40)]  # three batches
    vectors = embedder.embed_documents(texts)
    assert vectors.shape == (40, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert np.allclose(vectors, minilm_model.embed_documents(texts), atol=1e-5)
    assert np.allclose(embedder.embed_query("room"), minilm_model.embed_query("room"), atol=1e-5)
    assert "ready" in embedder.status
    with pytest.raises(InvalidInputError, match="8192"):  # our mistake, not the sidecar's
        embedder.embed_documents(["y" * 9000])
    assert embedder.available()  # a rejected request does not trip the breaker


def test_provider_endpoints_index_search_and_remove(sidecar):
    memories = {
        "db-backup": ("The Postgres database is backed up to S3 every night at 2am.",
                      {"tags": ["ops"], "location": "projects/infra", "importance": 0.8}),
        "dentist": ("Dentist appointment on Friday at 9 in the morning.",
                    {"tags": ["personal"], "location": "life", "type": "event"}),
        "cat-food": ("The cat only eats the salmon flavoured food.",
                     {"tags": ["personal"], "location": "life", "openclawPath": "memory/2026-11-30.md"}),
    }
    for memory_id, (content, metadata) in memories.items():
        answer = post(sidecar, "/index", {"id": memory_id, "content": content, "metadata": metadata})
        assert answer.status_code == 200, answer.text
        assert answer.json()["created"] is True

    found = post(sidecar, "/search", {"query": "when does the database get saved", "topK": 2}).json()
    top = found["results"][0]
    assert top["id"] == "db-backup" and top["score"] > 0
    assert top["content"].startswith("The Postgres database")
    assert top["metadata"]["tags"] == ["ops"] and top["metadata"]["location"] == "projects/infra"
    assert "vector" in top["metadata"]["explanation"]["retrievers"]

    filtered = post(sidecar, "/search", {"query": "appointment food", "topK": 5,
                                          "filter": {"location": "life", "type": "event"}}).json()
    assert [r["id"] for r in filtered["results"]] == ["dentist"]
    refused = post(sidecar, "/search", {"query": "x", "filter": {"colour": "red"}})
    assert refused.status_code == 400 and "colour" in refused.json()["message"]

    updated = post(sidecar, "/index", {"id": "dentist", "content": "Dentist moved to Monday at 10.",
                                       "metadata": {"type": "event"}}).json()
    assert updated["created"] is False

    cat = post(sidecar, "/search", {"query": "what does the cat eat", "topK": 1}).json()["results"][0]
    assert cat["id"] == "cat-food"
    assert cat["metadata"]["openclawPath"] == "memory/2026-11-30.md"  # OpenClaw's own metadata, kept
    assert post(sidecar, "/remove", {"id": "cat-food"}).json() == {"id": "cat-food", "removed": True}
    assert post(sidecar, "/remove", {"id": "cat-food"}).json()["removed"] is False
    assert client.delete(sidecar.url + "/memories/dentist").json()["removed"] is True
    left = post(sidecar, "/search", {"query": "cat food dentist database", "topK": 10}).json()
    assert [r["id"] for r in left["results"]] == ["db-backup"]

    again = post(sidecar, "/index", {"id": "cat-food", "content": "The cat now eats chicken."}).json()
    assert again["created"] is True  # a removed id can be indexed again
    bad_id = post(sidecar, "/index", {"id": "../escape", "content": "x"})
    assert bad_id.status_code == 400 and "invalid memory id" in bad_id.json()["message"]


def test_non_loopback_address_needs_a_token(tmp_path, minilm_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env["MEMORY_VECTOR_MODEL"] = minilm_path
    refused = subprocess.run([sys.executable, str(SIDECAR_SCRIPT), "--host", "0.0.0.0",
                              "--port", str(free_port())],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2
    assert refused.stderr.startswith("vector-service: refusing to listen on 0.0.0.0")
    assert "MEMORY_VECTOR_SERVICE_TOKEN" in refused.stderr


def test_palace_sidecar_is_the_same_server(tmp_path, minilm_path, minilm_model):
    """`palace -w WS sidecar` serves what scripts/vector-service.py --workspace WS serves."""
    workspace = tmp_path / "workspace"
    running = start_sidecar(tmp_path, minilm_path,
                            command=[sys.executable, "-m", "palace", "-w", str(workspace), "sidecar"])
    try:
        health = running.wait_until_listening()
        assert health["model"] == minilm_model.name
        assert health["workspace"] is True  # served, but where is not told (issue 12)
    finally:
        running.stop()


def test_palace_sidecar_serves_the_palace_of_the_folder_it_starts_in(tmp_path, minilm_path):
    """As every other command: no --workspace means the current folder, when it holds a
    palace; a folder without one stays embeddings only and gets no palace made in it."""
    from cli_helpers import invoke

    workspace, empty = tmp_path / "workspace", tmp_path / "empty"
    empty.mkdir()
    invoke("add", "the nightly backup of db-2 goes to /mnt/backup2", "-w", str(workspace))
    command = [sys.executable, "-m", "palace", "sidecar"]
    running = start_sidecar(workspace, minilm_path, command=command)
    bare = start_sidecar(empty, minilm_path, command=command)
    try:
        assert running.wait_until_ready()["workspace"] is True
        found = post(running, "/search", {"query": "where does the db-2 backup go", "topK": 1})
        assert found.status_code == 200, found.text
        assert "/mnt/backup2" in found.json()["results"][0]["content"]
        assert bare.wait_until_listening()["workspace"] is False
        assert post(bare, "/search", {"query": "backup"}).status_code == 404
        assert not (empty / "memory").exists()
    finally:
        running.stop()
        bare.stop()


def test_palace_sidecar_refuses_a_public_address_without_a_token(monkeypatch, minilm_path):
    from cli_helpers import BAD_CONFIG, assert_failed, invoke

    monkeypatch.setenv("MEMORY_VECTOR_MODEL", minilm_path)
    result = invoke("sidecar", "--host", "0.0.0.0", "--port", str(free_port()))
    assert_failed(result, BAD_CONFIG, "refusing to listen on 0.0.0.0", "MEMORY_VECTOR_SERVICE_TOKEN")


def test_with_a_token_every_call_but_health_needs_it(tmp_path, minilm_path):
    token = "s3cret-token"
    running = start_sidecar(tmp_path, minilm_path, "--host", "0.0.0.0",
                            env={"MEMORY_VECTOR_SERVICE_TOKEN": token})
    try:
        running.wait_until_listening()  # listening on every address, since it has a token
        assert client.get(running.url + "/health").status_code == 200
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": token}):
            answer = client.post(running.url + "/embed", json={"texts": ["a"]}, headers=headers)
            assert answer.status_code == 401 and answer.json()["error"] == "unauthorized"
            assert answer.headers["WWW-Authenticate"] == "Bearer"
        allowed = client.post(running.url + "/embed", json={"texts": ["a"]},
                              headers={"Authorization": f"Bearer {token}"})
        assert allowed.status_code in (200, 503)  # 503 while still loading
        running.wait_until_ready()
        wrong = HttpEmbedder(Settings(vector_service_url=running.url, vector_service_token="nope"))
        with pytest.raises(EmbedderUnavailableError, match="MEMORY_VECTOR_SERVICE_TOKEN"):
            wrong.embed_query("a")
        right = HttpEmbedder(Settings(vector_service_url=running.url, vector_service_token=token,
                                      vector_timeout_s=30.0))
        assert right.embed_query("a").shape == (384,)
    finally:
        running.stop()


def test_a_hung_then_dead_sidecar_costs_one_timeout(tmp_path, minilm_path):
    running = start_sidecar(tmp_path, minilm_path)
    try:
        running.wait_until_ready()
        settings = Settings(vector_service_url=running.url, vector_timeout_s=1.0,
                            vector_breaker_cooldown_s=2.0)
        embedder = HttpEmbedder(settings)
        patient = HttpEmbedder(settings.replace(vector_timeout_s=30.0))
        assert patient.embed_query("warm").shape == (384,)  # first call pays for lazy setup

        running.process.send_signal(signal.SIGSTOP)  # hung: accepts connections, never answers
        started = time.perf_counter()
        with pytest.raises(EmbedderUnavailableError, match="no answer within 1s"):
            embedder.embed_query("hello")
        assert time.perf_counter() - started < 4  # one timeout (plus a slow machine's slack)
        started = time.perf_counter()
        for _ in range(10):
            with pytest.raises(EmbedderUnavailableError, match="skipping"):
                embedder.embed_query("hello")
        assert not embedder.available()
        assert time.perf_counter() - started < 0.1

        running.process.send_signal(signal.SIGCONT)  # back: after the cooldown it is used again
        assert patient.embed_query("wake up").shape == (384,)
        time.sleep(max(0.0, 2.1 - (time.perf_counter() - started)))
        assert embedder.embed_query("again").shape == (384,)

        running.process.kill()  # dead: connection refused, fast
        running.process.wait(10)
        started = time.perf_counter()
        with pytest.raises(EmbedderUnavailableError, match="ConnectError"):
            embedder.embed_query("hello")
        with pytest.raises(EmbedderUnavailableError, match="skipping"):
            embedder.embed_documents(["a", "b"])
        assert time.perf_counter() - started < 1.0
    finally:
        running.stop()
