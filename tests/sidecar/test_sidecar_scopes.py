"""Scopes by sidecar token: a real sidecar (uvicorn subprocess, MiniLM) over a real
embedded PostgreSQL, with MEMORY_SIDECAR_TOKENS mapping each token to an agent. No
endpoint lets one agent read or change another agent's private memories."""

from __future__ import annotations

import hashlib
import json
import uuid

import httpx
import pytest
from vector_helpers import start_sidecar

from palace.errors import ConfigError
from palace.settings import Settings
from vector_service.identities import TokenMap

pytest_plugins = ["conftest_postgres", "conftest_vectors"]

ALICE, BOB, CAROL, OWN = "alice-token-0123456789", "bob-token-0123456789", "carol-token-0123456789", "own-token-0123456789"
client = httpx.Client(trust_env=False, timeout=60.0)


@pytest.fixture(scope="module")
def database(postgres_server):
    name = "sc_" + uuid.uuid4().hex[:10]
    url = postgres_server.create_database(name)
    yield url
    postgres_server.drop_database(name)


@pytest.fixture(scope="module")
def sidecar(tmp_path_factory, minilm_path, database):
    tmp = tmp_path_factory.mktemp("sidecar-scopes")
    tokens = tmp / "tokens.json"
    tokens.write_text(json.dumps({"tokens": [
        {"token": ALICE, "agent": "alice", "scope": "agent:alice"},
        {"token": BOB, "agent": "bob"},
        {"sha256": hashlib.sha256(CAROL.encode()).hexdigest(), "agent": "carol", "user": "zhang",
         "scope": "user:zhang"},
    ]}), "utf-8")
    running = start_sidecar(tmp, minilm_path, "--workspace", str(tmp / "ws"), env={
        "MEMORY_BACKEND": "postgres", "MEMORY_DATABASE_URL": database, "MEMORY_SIDECAR_TOKENS": str(tokens),
        "MEMORY_VECTOR_SERVICE_TOKEN": OWN, "MEMORY_TIMEZONE": "Asia/Shanghai"})
    try:
        running.wait_until_ready()
        yield running
    finally:
        running.stop()


def call(sidecar, method: str, path: str, token: str | None, payload=None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.request(method, sidecar.url + path, json=payload, headers=headers)


def test_each_token_is_its_own_agent_and_private_memories_stay_private(sidecar):
    assert call(sidecar, "GET", "/health", None).status_code == 200
    assert call(sidecar, "POST", "/memories/search", None, {"query": "x"}).status_code == 401
    assert call(sidecar, "POST", "/memories/search", "not-a-token-0123456789", {"query": "x"}).status_code == 401

    stored = call(sidecar, "POST", "/memories", ALICE, {"content": "alice's private plan: the vault code is 4711"})
    assert stored.status_code == 201, stored.text
    secret = stored.json()["id"]
    team = call(sidecar, "POST", "/memories", BOB, {"content": "team note: the vault opens on Friday"}).json()["id"]

    # alice reads hers; bob, carol and the sidecar's own identity cannot, by any endpoint
    assert call(sidecar, "GET", f"/memories/{secret}", ALICE, None).json()["content"].endswith("4711")
    for other in (BOB, CAROL, OWN):
        assert call(sidecar, "GET", f"/memories/{secret}", other, None).status_code == 404
        found = call(sidecar, "POST", "/memories/search", other, {"query": "vault code 4711"}).json()
        assert secret not in json.dumps(found) and team in json.dumps(found)
        hits = call(sidecar, "POST", "/search", other, {"query": "vault code 4711"}).json()["results"]
        assert [h["id"] for h in hits] == [team]
        context = call(sidecar, "POST", "/context", other, {"query": "vault code"}).json()
        assert "4711" not in context["text"]
        assert "4711" not in call(sidecar, "POST", "/bootstrap", other, {"query": "vault"}).json()["text"]
    both = call(sidecar, "POST", "/memories/search", ALICE, {"query": "vault"}).json()
    assert secret in json.dumps(both) and team in json.dumps(both)

    # nor change it: delete, restore, overwrite by id through the provider's /index
    assert call(sidecar, "DELETE", f"/memories/{secret}", BOB, None).json() == {"id": secret, "removed": False}
    assert call(sidecar, "POST", "/remove", BOB, {"id": secret}).json()["removed"] is False
    assert call(sidecar, "POST", f"/memories/{secret}/restore", BOB, None).status_code == 404
    assert call(sidecar, "POST", "/index", BOB, {"id": secret, "content": "overwritten"}).status_code == 400
    assert call(sidecar, "GET", f"/memories/{secret}", ALICE, None).json()["content"].endswith("4711")

    # a trashed private memory is alice's alone too
    assert call(sidecar, "DELETE", f"/memories/{secret}", ALICE, None).json()["removed"] is True
    assert call(sidecar, "POST", f"/memories/{secret}/restore", BOB, None).status_code == 404
    assert call(sidecar, "POST", f"/memories/{secret}/restore", ALICE, None).status_code == 200


def test_a_token_written_as_its_digest_and_a_user_scope(sidecar):
    mine = call(sidecar, "POST", "/memories", CAROL, {"content": "张三的私人偏好：咖啡不加糖"}).json()["id"]
    assert call(sidecar, "GET", f"/memories/{mine}", CAROL, None).status_code == 200
    assert call(sidecar, "GET", f"/memories/{mine}", BOB, None).status_code == 404


def write_tokens(tmp_path, data, name: str = "tokens.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, "utf-8")
    return str(path)


def test_a_tokens_file_is_checked_and_needs_the_postgres_backend(tmp_path):
    from vector_service.app import create_app

    good = write_tokens(tmp_path, {"tokens": [{"token": ALICE, "agent": "alice"}]}, "good.json")
    with pytest.raises(ConfigError, match="only the postgres backend keeps scopes apart"):
        create_app(Settings.from_env({}, sidecar_tokens=good), tmp_path / "ws")
    for bad, message in [("{", "not JSON"), ({"tokens": []}, "needs"),
                         ({"tokens": [{"token": "short", "agent": "a"}]}, "16 characters"),
                         ({"tokens": [{"token": ALICE}]}, "say who"),
                         ({"tokens": [{"token": ALICE, "agent": "a", "scope": "agent"}]}, "expected team, agent:<id> or user:<id>"),
                         ({"tokens": [{"token": ALICE, "agent": "a"}, {"token": ALICE, "agent": "b"}]}, "twice"),
                         ({"tokens": [{"token": ALICE, "agent": "a", "role": "admin"}]}, "an object with")]:
        with pytest.raises(ConfigError, match=message):
            TokenMap.load(write_tokens(tmp_path, bad))
    tokens = TokenMap.load(good)
    assert tokens.identity(ALICE.encode()).agent_id == "alice"
    assert tokens.identity(b"alice-token-012345678") is None


def test_the_viewer_beside_a_tokens_file_needs_the_sidecars_own_token(tmp_path):
    from vector_service.app import create_app, mount_viewer

    tokens = write_tokens(tmp_path, {"tokens": [{"token": ALICE, "agent": "alice"}]})
    settings = Settings.from_env({}, backend="postgres", database_url="postgresql://nobody@127.0.0.1:1/none",
                                 sidecar_tokens=tokens)
    app = create_app(settings, tmp_path / "ws")
    with pytest.raises(ConfigError, match="needs MEMORY_VECTOR_SERVICE_TOKEN"):
        mount_viewer(app, settings, tmp_path / "ws")


def test_capture_over_http_keeps_each_tokens_spool_and_observations_apart(sidecar):
    """POST /capture on Postgres: alice and bob capture sessions with the same id; the
    open turn waits in the database under each one's scope, and each turn ends as an
    observation only its own agent finds."""
    def capture(token, events):
        answer = call(sidecar, "POST", "/capture", token, {"source": "palace", "events": events})
        assert answer.status_code == 200, answer.text
        assert answer.json()["errors"] == [], answer.json()
        return answer.json()

    def ev(kind, **fields):
        return {"v": 1, "kind": kind, "session": "same-id-7", "agent": "claude-code", "cwd": "/srv/app", **fields}

    capture(ALICE, [ev("user_prompt", text="alice: rotate the zephyr credentials")])
    capture(BOB, [ev("user_prompt", text="bob: tidy the zephyr dashboard")])
    capture(ALICE, [ev("tool_call", tool={"name": "Bash", "input": {"command": "zephyr rotate"}})])
    capture(BOB, [ev("tool_call", tool={"name": "Bash", "input": {"command": "zephyr tidy"}})])
    [mine] = capture(ALICE, [ev("turn_end")])["observations"]
    [his] = capture(BOB, [ev("turn_end")])["observations"]
    assert mine != his
    alice_obs = call(sidecar, "GET", f"/memories/{mine}", ALICE, None).json()
    assert "zephyr rotate" in alice_obs["content"] and "zephyr tidy" not in alice_obs["content"]
    assert call(sidecar, "GET", f"/memories/{mine}", BOB, None).status_code == 404
    bob_obs = call(sidecar, "GET", f"/memories/{his}", BOB, None).json()
    assert "zephyr tidy" in bob_obs["content"] and "rotate" not in bob_obs["content"]
