"""The capture commands in the main ``palace`` group: the group's --workspace/--json,
``palace capture``'s exit codes (never 2: Claude Code reads 2 as "block"), and the
progressive-recall options on the core commands (``get ID…``, ``search --compact``)."""

import json
import subprocess
import sys

import pytest
from cli_helpers import invoke

from capture_helpers import CLAUDE_HOOKS, CLAUDE_SESSION, lines
from palace.text.tokens import estimate_tokens


@pytest.fixture
def captured(tmp_path):
    ws = tmp_path / "ws"
    done = invoke("--workspace", str(ws), "--json", "ingest", str(CLAUDE_SESSION))
    assert done.rc == 0, done
    return ws


def test_capture_takes_the_groups_workspace_and_json(tmp_path):
    ws = tmp_path / "ws"
    for payload in lines(CLAUDE_HOOKS):
        done = invoke("--workspace", str(ws), "--json", "capture", "--source", "claude-code",
                      input=payload)
        assert done.rc == 0, done
        assert {"accepted", "stored", "skipped", "errors"} <= set(json.loads(done.stdout))
    tasks = json.loads(invoke("-w", str(ws), "tasks", "--json").stdout)["tasks"]
    assert tasks == []   # the Stop message's "下一步：" list is narration, not a to-do
    assert (ws / "memory" / "palace").is_dir()  # capture created the palace on first use


@pytest.mark.parametrize("args, stdin", [
    (["capture", "--no-such-flag"], "{}"),
    (["capture", "--source", "bogus"], "{}"),
    (["capture"], b"\xff\xfe not utf-8"),
    (["capture", "--file", "/no/such/file.jsonl"], ""),
    (["capture"], "not json at all"),
])
def test_palace_capture_never_exits_2(tmp_path, args, stdin):
    done = invoke("-w", str(tmp_path / "ws"), *args, input=stdin)
    assert done.rc == 1, done
    assert done.stderr.strip()


def test_capture_into_a_workspace_that_is_a_file_exits_1(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    done = invoke("capture", "-w", str(blocker), input=CLAUDE_HOOKS.read_text())
    assert done.rc == 1 and "not a folder" in done.stderr


def test_get_opens_several_memories_and_lists_the_missing(captured):
    ids = [h["id"] for h in json.loads(invoke("-w", str(captured), "--json", "search", "checkout",
                                              "--compact").stdout)["results"]][:2]
    assert len(ids) == 2
    done = invoke("-w", str(captured), "--json", "get", *ids, "no-such-id")
    assert done.rc == 1, done  # a missing id, as `palace delete` says it
    data = json.loads(done.stdout)
    assert [m["id"] for m in data["memories"]] == ids and data["missing"] == ["no-such-id"]
    assert "no memory with id 'no-such-id'" in done.stderr
    text = invoke("-w", str(captured), "get", *ids).stdout
    assert all(i in text for i in ids) and "---" in text
    assert invoke("-w", str(captured), "get", "nope-1", "nope-2").rc == 1
    single = json.loads(invoke("-w", str(captured), "--json", "get", ids[0]).stdout)
    assert single["id"] == ids[0]  # one id: the memory itself, as before


def test_search_compact_gives_short_hits_that_get_opens(captured):
    full = json.loads(invoke("-w", str(captured), "--json", "search", "checkout currency").stdout)
    compact = json.loads(invoke("-w", str(captured), "--json", "search", "checkout currency",
                                "--compact").stdout)
    assert compact["count"] == full["count"] > 0
    assert [h["id"] for h in compact["results"]] == [r["id"] for r in full["results"]]
    for hit in compact["results"]:
        assert {"id", "title", "date", "type", "score"} <= set(hit)
        assert estimate_tokens(" ".join(str(v) for v in hit.values())) <= 80
    assert len(json.dumps(compact)) < len(json.dumps(full))
    text = invoke("-w", str(captured), "search", "checkout currency", "--compact").stdout
    assert compact["results"][0]["id"] in text
    both = invoke("-w", str(captured), "search", "x", "--compact", "--explain")
    assert both.rc == 2 and "--compact and --explain" in both.stderr


def test_python_dash_m_palace_carries_the_capture_commands(captured):
    done = subprocess.run([sys.executable, "-m", "palace", "--workspace", str(captured),
                           "--json", "tasks"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "tasks" in json.loads(done.stdout)
    bad = subprocess.run([sys.executable, "-m", "palace", "capture", "--bogus"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1
