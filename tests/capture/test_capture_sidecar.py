"""``POST /capture`` on the real sidecar (scripts/vector-service.py, MiniLM): batches of
raw hook payloads in, memories out; bad items reported in the app's error shape; after
search has embedded the captured memories, no planted secret is in any file, vector or
in the sidecar's own log."""

from __future__ import annotations

import json

import httpx
import pytest
from capture_corpus import SECRETS
from capture_helpers import CLAUDE_HOOKS, OPENCLAW_HOOKS, lines
from capture_corpus import planted_hook_payloads, scan
from vector_helpers import start_sidecar

pytest_plugins = ["conftest_vectors"]

client = httpx.Client(trust_env=False, timeout=120.0)


@pytest.fixture(scope="module")
def sidecar(tmp_path_factory, minilm_path):
    tmp = tmp_path_factory.mktemp("capture-sidecar")
    running = start_sidecar(tmp, minilm_path, "--workspace", str(tmp / "workspace"),
                            env={})
    running.workspace = tmp / "workspace"
    try:
        running.wait_until_ready()
        yield running
    finally:
        running.stop()


def capture(sidecar, body):
    return client.post(sidecar.url + "/capture", json=body)


def test_hook_payloads_from_both_hosts_in_batches(sidecar):
    answer = capture(sidecar, {"source": "claude-code",
                               "events": [json.loads(ln) for ln in lines(CLAUDE_HOOKS)]})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["accepted"] == 10 and body["errors"] == [] and body["stored"] >= 3
    assert len(body["observations"]) == 1 and len(body["sessions"]) == 1
    detected = capture(sidecar, {"events": [json.loads(ln) for ln in lines(OPENCLAW_HOOKS)]}).json()
    assert detected["accepted"] == 6 and detected["errors"] == [] and detected["observations"]
    found = client.post(sidecar.url + "/search", json={"query": "RSS 生成脚本", "topK": 3}).json()
    assert any(r["id"] == body["observations"][0] for r in found["results"])


def test_bad_items_are_reported_per_index_and_the_rest_is_kept(sidecar):
    events = [{"v": 1, "kind": "user_prompt", "session": "batch-1", "text": "Rename the billing module"},
              {"v": 1, "kind": "bogus", "session": "batch-1"},
              ["not", "an", "object"],
              {"v": 1, "kind": "turn_end", "session": "batch-1"}]
    body = capture(sidecar, {"source": "palace", "events": events}).json()
    assert body["accepted"] == 2 and body["stored"] >= 1
    assert [(e["index"], e["error"]) for e in body["errors"]] == [(1, "invalid_event"), (2, "invalid_event")]
    wrong = capture(sidecar, {"source": "slack", "events": []})
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_request"
    missing = client.post(sidecar.url + "/capture", json={"source": "palace"})
    assert missing.status_code == 400 and "events" in missing.json()["message"]
    too_many = capture(sidecar, {"events": [{}] * 1001})
    assert too_many.status_code == 400 and "at most 1000" in too_many.json()["message"]


def test_no_secret_in_files_vectors_or_the_sidecar_log(sidecar):
    payloads = planted_hook_payloads()
    for start in range(0, len(payloads), 200):
        answer = capture(sidecar, {"source": "claude-code", "events": payloads[start:start + 200]})
        assert answer.status_code == 200, answer.text
        assert answer.json()["errors"] == []
        assert not any(s in answer.text for _n, s, _l in SECRETS)
    # each batch was embedded when it ended (writes_batched): its vectors are on disk now
    found = client.post(sidecar.url + "/search", json={"query": "configure stripe", "topK": 5}).json()
    assert found["results"]
    leaks = scan(sidecar.workspace, (sidecar.log(),))
    assert leaks == [], leaks[:5]


def test_a_batch_sent_again_with_its_idempotency_key_is_captured_once(sidecar):
    """A client whose request timed out sends the batch again with the same
    Idempotency-Key (the OpenClaw plugin does): the sidecar answers with the first
    answer and writes nothing twice; another key is another batch."""
    turn = [{"v": 1, "kind": "user_prompt", "session": "idem-1", "agent": "openclaw",
             "text": "Move the nightly export of the ledger to 02:30"},
            {"v": 1, "kind": "tool_call", "session": "idem-1", "agent": "openclaw",
             "tool": {"name": "exec", "input": {"command": "crontab -l"}, "output": "30 1 * * * export-ledger"}},
            {"v": 1, "kind": "turn_end", "session": "idem-1", "agent": "openclaw"}]
    body = {"source": "palace", "events": turn}
    first = client.post(sidecar.url + "/capture", json=body, headers={"Idempotency-Key": "batch-7f3a"})
    assert first.status_code == 200, first.text
    assert first.json()["observations"] and "duplicate" not in first.json()
    def files():
        return {p: p.read_bytes() for p in sidecar.workspace.rglob("*") if p.is_file() and p.suffix == ".md"}

    before = files()
    again = client.post(sidecar.url + "/capture", json=body, headers={"Idempotency-Key": "batch-7f3a"})
    assert again.json() == {**first.json(), "duplicate": True}
    assert files() == before
    # the control: the same events under another key are another batch (a second turn)
    other = client.post(sidecar.url + "/capture", json=body, headers={"Idempotency-Key": "batch-9c21"})
    assert "duplicate" not in other.json() and files() != before
    bad = client.post(sidecar.url + "/capture", json=body, headers={"Idempotency-Key": "x" * 201})
    assert bad.status_code == 400 and bad.json()["error"] == "invalid_request"
    assert "Idempotency-Key" in bad.json()["message"]
