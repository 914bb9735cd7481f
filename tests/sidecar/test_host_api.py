"""The sidecar's endpoints for agent hosts (vector_service/host_api.py), on the sidecar
app in process with MiniLM (the real process is tested in test_vector_service.py):
bootstrap, context, search, memories, experiences, the OpenAPI document, and routing
errors in the {error, message} shape."""

import pytest
from vector_helpers import sidecar_in_process

from palace.features.context import set_essence
from palace.manager import MemoryPalaceManager
from palace.settings import Settings

pytest_plugins = ["conftest_vectors"]

NOW = "2026-11-30T09:00:00+08:00"


@pytest.fixture(scope="module")
def sidecar(tmp_path_factory, minilm_path):
    tmp = tmp_path_factory.mktemp("host-api")
    workspace = tmp / "workspace"
    # Written before the sidecar starts, by another process's manager (as the CLI would).
    settings = Settings.from_env(workspace_dir=str(workspace), vector_enabled=False,
                                 timezone="Asia/Shanghai")
    with MemoryPalaceManager(str(workspace), settings=settings, embedder=None) as pm:
        set_essence(pm, "User: Wang Xiaoming, backend engineer. Answer briefly.")
        pm.store("Session 2026-11-27: wired the backup cron job (pg_dump at 03:00); next: test a restore.",
                 type="session", created_at="2026-11-27T18:30:00+08:00")
        pm.store("Write the restore runbook for PostgreSQL", type="task",
                 created_at="2026-11-27T18:31:00+08:00")
        pm.store("I live in Berlin and I like jazz", created_at="2026-11-20T10:00:00+08:00")
        pm.store("We decided to use PostgreSQL as the main database: we need JSONB.",
                 type="decision", tags=["database"], location="projects/palace",
                 created_at="2026-11-24T15:00:00+08:00")
    with sidecar_in_process(minilm_path, workspace, env={"MEMORY_TIMEZONE": "Asia/Shanghai"}) as client:
        client.workspace = workspace
        yield client


def post(sidecar, path, payload=None):
    return sidecar.post(path, json=payload)


def test_bootstrap_returns_essence_sessions_tasks_and_relevant_memories(sidecar):
    answer = post(sidecar, "/bootstrap", {"query": "database backups", "maxTokens": 600, "now": NOW})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    text = body["text"]
    assert text.index("# Essence") < text.index("# Recent sessions") < text.index("# Open tasks")
    assert "Wang Xiaoming" in text and "pg_dump at 03:00" in text and "restore runbook" in text
    assert "PostgreSQL as the main database" in text
    assert {p["section"] for p in body["pieces"]} == {"essence", "session", "task", "relevant"}
    assert 0 < body["tokens_used"] <= 600 and body["max_tokens"] == 600


def test_context_packs_the_relevant_memories_into_the_budget(sidecar):
    body = post(sidecar, "/context", {"query": "which database did we choose", "max_tokens": 200,
                                      "now": NOW}).json()
    assert body["pieces"][0]["type"] == "decision"
    assert body["text"].startswith("[")  # the label line: [id] room · date · type
    assert body["tokens_used"] <= 200
    tiny = post(sidecar, "/context", {"query": "x", "maxTokens": 10})
    assert tiny.status_code == 400 and "maxTokens" in tiny.json()["message"] and "50" in tiny.json()["message"]


def test_store_get_search_delete_and_restore_a_memory(sidecar):
    stored = post(sidecar, "/memories", {"content": "The staging server is called kestrel.",
                                         "tags": ["ops"], "location": "projects/infra",
                                         "source": "openclaw"})
    assert stored.status_code == 201, stored.text
    memory = stored.json()
    assert memory["source"] == "openclaw" and memory["location"] == "projects/infra"

    got = sidecar.get(f"/memories/{memory['id']}").json()
    assert got["content"] == "The staging server is called kestrel." and got["path"].endswith(".md")

    found = post(sidecar, "/memories/search", {"query": "what is the staging server's name",
                                               "topK": 3}).json()
    assert found["count"] >= 1
    hit = found["results"][0]
    assert hit["id"] == memory["id"] and hit["score"] > 0 and "bm25" in hit["why"]
    assert hit["path"] == f"memory/palace/projects/infra/{memory['id']}.md"

    assert sidecar.delete(f"/memories/{memory['id']}").json()["removed"] is True
    gone = sidecar.get(f"/memories/{memory['id']}")
    assert gone.status_code == 404
    assert gone.json()["error"] == "not_found" and "restore" in gone.json()["message"]
    restored = post(sidecar, f"/memories/{memory['id']}/restore")
    assert restored.status_code == 200 and restored.json()["status"] == "active"
    assert sidecar.get(f"/memories/{memory['id']}").status_code == 200


def test_search_reads_time_words(sidecar):
    body = post(sidecar, "/memories/search", {"query": "last week's decision about the database",
                                              "now": NOW}).json()
    assert body["time_range"]["start"].startswith("2026-11-23")
    assert body["results"][0]["type"] == "decision"


def test_experiences_are_recorded_verified_and_found(sidecar):
    recorded = post(sidecar, "/experiences", {"whatHappened": "deploy failed: port 5432 already in use",
                                              "whatWorked": "stop the old postgres container first"})
    assert recorded.status_code == 201, recorded.text
    experience_id = recorded.json()["id"]
    for _ in range(2):
        verified = post(sidecar, f"/experiences/{experience_id}/verify", {"effective": True})
        assert verified.status_code == 200, verified.text
    assert verified.json()["stats"]["verified"] is True
    found = post(sidecar, "/experiences/search", {"query": "port 5432 in use", "verifiedOnly": True}).json()
    assert found["results"][0]["id"] == experience_id
    assert found["results"][0]["lesson"]["what_worked"] == "stop the old postgres container first"


@pytest.mark.parametrize("method, path, payload, status, code", [
    ("POST", "/memories", {"content": "x", "colour": "red"}, 400, "invalid_request"),
    ("POST", "/memories", {"content": "x", "importance": "high"}, 400, "invalid_request"),
    ("POST", "/bootstrap", None, 400, "invalid_request"),
    ("GET", "/memories/nope", None, 404, "not_found"),
    ("GET", "/memories/bad%20id", None, 400, "invalid_request"),
    ("POST", "/experiences/nope/verify", {"effective": True}, 404, "not_found"),
    ("GET", "/no/such/endpoint", None, 404, "not_found"),
    ("PUT", "/memories/x", {}, 405, "method_not_allowed"),
    ("GET", "/bootstrap", None, 405, "method_not_allowed"),
])
def test_every_error_has_the_documented_shape(sidecar, method, path, payload, status, code):
    answer = sidecar.request(method, path, json=payload)
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert set(body) == {"error", "message"} and body["error"] == code and body["message"]


def test_openapi_documents_request_and_response_schemas(sidecar):
    spec = sidecar.get("/openapi.json").json()
    bootstrap = spec["paths"]["/bootstrap"]["post"]
    body_schema = bootstrap["requestBody"]["content"]["application/json"]["schema"]
    assert {"query", "maxTokens", "now"} <= set(body_schema["properties"])
    assert "ContextResponse" in str(bootstrap["responses"]["200"])
    assert "ErrorResponse" in str(bootstrap["responses"]["400"])
    for path in ("/context", "/memories", "/memories/search", "/memories/{memory_id}",
                 "/memories/{memory_id}/restore", "/experiences", "/experiences/search",
                 "/experiences/{experience_id}/verify"):
        assert path in spec["paths"], path
    assert "text" in spec["components"]["schemas"]["ContextResponse"]["properties"]
    # The sidecar's first endpoints are documented too, and no operation promises a 422.
    search = spec["paths"]["/search"]["post"]
    assert "topK" in search["requestBody"]["content"]["application/json"]["schema"]["properties"]
    assert "results" in str(search["responses"]["200"]) and "503" in search["responses"]
    assert "vectors" in str(spec["paths"]["/embed"]["post"]["responses"]["200"])
    assert all("422" not in op["responses"] for ops in spec["paths"].values() for op in ops.values())


def test_persona_as_bootstrap_shows_it(sidecar):
    """Last in this file: refreshing creates the persona, which bootstrap then shows."""
    before = post(sidecar, "/persona", {})
    assert before.status_code == 200, before.text
    assert before.json()["text"] == "" and "no persona yet" in before.json()["notes"][0]
    body = post(sidecar, "/persona", {"refresh": True, "maxTokens": 300}).json()
    assert body["text"].startswith("# Persona\n\n[persona]")
    assert "- lives in Berlin" in body["text"] and "- likes jazz" in body["text"]
    shown = post(sidecar, "/bootstrap", {"maxTokens": 2000, "now": NOW}).json()
    [piece] = [p for p in shown["pieces"] if p["section"] == "persona"]
    assert piece["text"] in body["text"]
    assert post(sidecar, "/persona", {"refresh": "yes"}).status_code == 400


def test_an_empty_search_says_why_and_every_hit_says_how_strong_it_is(sidecar):
    for text in ("妈妈的生日是三月五日，每年给她订蛋糕", "陈静是新来的后端同事，负责支付模块",
                 "周五下午组里聚餐，定在公司楼下的面馆，陈静说她不吃辣"):
        assert post(sidecar, "/memories", {"content": text, "location": "people"}).status_code == 201
    # nothing about it: the vectors' nearest memories come back, every one weak, and
    # asked for strong results only the answer is empty and says why
    unrelated = post(sidecar, "/memories/search", {"query": "量子计算论文"}).json()
    assert {hit["confidence"] for hit in unrelated["results"]} == {"weak"}
    assert any(note.startswith("no strong match") for note in unrelated["notes"])
    empty = post(sidecar, "/memories/search", {"query": "量子计算论文", "includeWeak": False}).json()
    assert empty["count"] == 0 and empty["results"] == []
    assert any("weak matches hidden" in note for note in empty["notes"])
    found = post(sidecar, "/memories/search", {"query": "陈静负责哪个模块"}).json()
    assert found["count"] >= 2 and found["results"][0]["content"].startswith("陈静是新来的后端同事")
    assert {hit["confidence"] for hit in found["results"]} <= {"strong", "weak"}
    assert all(hit["reason"] for hit in found["results"])
    ranks = [hit["confidence"] for hit in found["results"]]
    assert ranks == sorted(ranks)  # strong ones ("s" < "w") before weak ones
    strong = post(sidecar, "/memories/search", {"query": "陈静负责哪个模块", "includeWeak": False}).json()
    assert [hit["id"] for hit in strong["results"]] == [hit["id"] for hit in found["results"]
                                                        if hit["confidence"] == "strong"]
    people = [hit for hit in found["results"] if hit["location"] == "people"]
    assert people and all(hit["path"].startswith("memory/palace/people/") for hit in people)


def test_search_and_get_say_where_the_text_lies_in_the_file(sidecar):
    """``lines`` is the [first, last] line of the memory's text in its file, below the
    frontmatter, so a host's citation ``path#Lfirst-Llast`` points at the text."""
    content = "Rotate the TLS certificate of gannet-proxy.\nIt expires on the 14th.\nOwner: the ops rota."
    memory = post(sidecar, "/memories", {"content": content, "tags": ["ops", "tls"],
                                         "summary": "TLS rotation for gannet-proxy"}).json()
    got = sidecar.get(f"/memories/{memory['id']}").json()
    hit = next(r for r in post(sidecar, "/memories/search", {"query": "gannet-proxy certificate"}).json()["results"]
               if r["id"] == memory["id"])
    assert got["lines"] == hit["lines"]
    first, last = hit["lines"]
    text = (sidecar.workspace / hit["path"]).read_text(encoding="utf-8").split("\n")
    assert text[0] == "---" and first > 5  # the frontmatter comes first
    assert text[first - 1:last] == content.split("\n")
