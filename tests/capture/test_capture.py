"""Capture end to end: transcripts and hook payloads (hand-made, faithful to each host's
real format) become observations, session summaries and open tasks, idempotently."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
import shutil

import pytest
from capture_helpers import (CLAUDE_HOOKS, CLAUDE_SESSION, KIMI_WIRE, MESSAGES, OPENCLAW_HOOKS,
                             OPENCLAW_SESSION, invoke, invoke_json, lines)

from palace.capture.pipeline import Capturer
from palace.capture.recall import compact_search, get_many, timeline
from palace.capture.tasks import open_tasks, set_task_state, task_state
from palace.capture.transcripts import ReadStats, read_transcript
from palace.errors import InvalidInputError, MemoryNotFoundError


def by_type(pm, type_):
    return [m for m in pm.list(type=type_, status="all")]


def ingest(pm, *paths):
    capturer = Capturer(pm)
    for path in paths:
        capturer.ingest_file(path)
    return capturer.report


# --------------------------------------------------------------------------- formats

def test_claude_code_transcript_becomes_an_observation_a_session_and_open_tasks(pm):
    report = ingest(pm, CLAUDE_SESSION)
    [obs] = by_type(pm, "observation")
    assert obs.location.startswith("capture/shop-api/") and obs.importance < 0.3
    assert obs.summary.startswith("The checkout test fails with a KeyError")
    assert "KeyError: 'currency'" in obs.content                       # error: type and line
    assert "Decided to keep Postgres" in obs.content                    # a decision fact
    assert obs.extra["filesModified"] == ["/home/dev/shop-api/shop/checkout.py"]
    assert obs.extra["filesRead"] == ["/home/dev/shop-api/tests/test_checkout.py"]
    assert obs.extra["commands"] == ["pytest -q tests/test_checkout.py"]
    assert "Let me look at the test first" not in obs.content          # thinking is not kept
    assert "/cost" not in obs.content
    # the greeting turn ("thanks!" / "You're welcome!") is trivial: not stored
    assert report.trivial == 1 and report.turns["7c1e9a52-3b4d-4f6e-8a90-1b2c3d4e5f60"] == [2, 1]
    [session] = by_type(pm, "session")
    assert session.summary == "Session: Fix checkout currency KeyError"   # the host's ai-title
    assert obs.extra["session"] == session.id and session.extra["observations"] == [obs.id]
    assert session.location == obs.location
    for part in ("Key decisions", "Decided to keep Postgres", "Done:", "Fixed the KeyError",
                 "Next steps", "Backfill the currency column", "checkout.py", "KeyError"):
        assert part in session.content, part
    tasks = {t.summary: task_state(t) for t in open_tasks(pm)}
    # the to-do list's pending item; the completed one is not open, and the 'Next steps'
    # the agent narrates are no to-do list (the session keeps them in its summary)
    assert tasks == {"Add a test for orders without a currency": "todo"}
    [task] = open_tasks(pm)
    assert task.extra["session"] == session.id and task.extra["taskSource"] == "todowrite"
    # where it came from is frontmatter: the body is the task alone
    assert task.content == "Add a test for orders without a currency"
    assert task.extra["sessionTitle"] == "Fix checkout currency KeyError"


def test_openclaw_pi_session_file(pm):
    ingest(pm, OPENCLAW_SESSION)
    observations = sorted(by_type(pm, "observation"), key=lambda m: m.extra["turnIndex"])
    assert [o.summary for o in observations] == ["Why does the watering schedule skip Sundays?",
                                                 "Tool calls: bash"]
    first = observations[0]
    assert first.extra["agent"] == "openclaw" and first.location.startswith("capture/garden-bot/")
    assert first.extra["filesModified"] == ["schedule/cron.yaml"]
    assert "Check the cron file" not in first.content
    assert any("because the schedule was copied" in f for f in first.extra["facts"])
    assert observations[1].extra["commands"] == ["systemctl --user restart garden-bot"]
    [task] = open_tasks(pm)
    assert task.summary == "Restart the garden-bot service so the new schedule loads"


def test_kimi_wire_file_and_its_unknown_records_are_counted(pm):
    stats = ReadStats(str(KIMI_WIRE))
    events = list(read_transcript(KIMI_WIRE, stats=stats))
    assert stats.format == "kimi" and stats.skipped["FutureEventType"] == 1
    assert [e.kind for e in events if e.kind == "tool_call"] == ["tool_call"] * 3
    assert events[-1].kind == "session_end" and events[-1].session == "0f3c2a9e-6b1d-4c5e-9a8f-2d7e1b4c6a30"
    ingest(pm, KIMI_WIRE)
    [obs] = by_type(pm, "observation")
    assert obs.summary == "给 CLI 加一个 --dry-run 选项"
    assert obs.extra["filesModified"] == ["src/tool/cli.py"] and obs.extra["commands"] == ["python -m pytest -q"]
    assert "已完成：新增 --dry-run 选项，测试全部通过。" in obs.extra["facts"]
    assert open_tasks(pm) == []   # "下一步：…" narrates the next step: no to-do


def test_kimi_sessions_find_their_working_directory_in_kimi_json(pm, tmp_path):
    import hashlib

    work_dir = "/home/dev/tool"
    folder = tmp_path / ".kimi" / "sessions" / hashlib.md5(work_dir.encode()).hexdigest() / KIMI_WIRE.parent.name
    folder.mkdir(parents=True)
    shutil.copy(KIMI_WIRE, folder / "wire.jsonl")
    (tmp_path / ".kimi" / "kimi.json").write_text(json.dumps(
        {"work_dirs": [{"path": "/elsewhere", "last_session_id": None},
                       {"path": work_dir, "last_session_id": KIMI_WIRE.parent.name}]}))
    ingest(pm, folder / "wire.jsonl")
    [obs] = by_type(pm, "observation")
    assert obs.extra["cwd"] == work_dir and obs.location.startswith("capture/tool/")


def test_role_content_lines(pm):
    ingest(pm, MESSAGES)
    [obs] = by_type(pm, "observation")
    assert obs.summary == "Which port does the staging API listen on?"
    assert "8443, because 443 is taken" in obs.content


def test_an_unknown_file_is_refused_with_its_path(pm, tmp_path):
    odd = tmp_path / "notes.jsonl"
    odd.write_text('{"foo": 1}\n')
    with pytest.raises(InvalidInputError, match="notes.jsonl: not a transcript"):
        ingest(pm, odd)


# --------------------------------------------------------------------------- idempotence

def test_ingesting_twice_adds_nothing(pm):
    first = ingest(pm, CLAUDE_SESSION, OPENCLAW_SESSION)
    files = sorted(p.name for p in pm.root.rglob("*.md"))
    again = ingest(pm, CLAUDE_SESSION, OPENCLAW_SESSION)
    assert first.created > 0 and again.created == 0 and again.updated == 0
    assert sorted(p.name for p in pm.root.rglob("*.md")) == files


def test_a_grown_transcript_adds_only_what_is_new(pm, tmp_path):
    rows = lines(CLAUDE_SESSION)
    cut = next(i for i, row in enumerate(rows) if '"name":"Edit"' in row)
    growing = tmp_path / "7c1e9a52-3b4d-4f6e-8a90-1b2c3d4e5f60.jsonl"
    growing.write_text("\n".join(rows[:cut]) + "\n")
    ingest(pm, growing)
    [early] = by_type(pm, "observation")
    assert "Files modified" not in early.content and "Backfill" not in early.content
    with open(growing, "a") as handle:
        handle.write("\n".join(rows[cut:]) + "\n")
    report = ingest(pm, growing)
    [grown] = by_type(pm, "observation")
    assert grown.id == early.id                         # the same turn, completed in place
    assert "Files modified: `/home/dev/shop-api/shop/checkout.py`" in grown.content
    assert "Backfill" in grown.content
    assert report.created == 1 and report.updated == 2  # the to-do list's task; the turn and session updated
    assert len(by_type(pm, "session")) == 1


def test_a_truncated_last_line_is_tolerated_and_taken_next_time(pm, tmp_path):
    rows = lines(OPENCLAW_SESSION)
    target = tmp_path / "2026-03-20T09-15-00-000Z_e5a1c2d3-4b5f-4a6e-8c7d-9e0f1a2b3c4d.jsonl"
    last_full = next(i for i, row in enumerate(rows) if '"id":"m6"' in row)
    target.write_text("\n".join(rows[:last_full]) + "\n" + rows[last_full][:70])  # host mid-write
    stats = Capturer(pm).ingest_file(target)
    assert stats.truncated_tail and stats.bad_lines == 0
    assert not open_tasks(pm)                           # m6 (with the open item) not read yet
    target.write_text("\n".join(rows) + "\n")
    stats = Capturer(pm).ingest_file(target)
    assert not stats.truncated_tail
    assert [t.summary for t in open_tasks(pm)] == ["Restart the garden-bot service so the new schedule loads"]


def test_a_deleted_observation_stays_deleted_on_reimport(pm):
    ingest(pm, CLAUDE_SESSION)
    [obs] = by_type(pm, "observation")
    pm.delete(obs.id)
    report = ingest(pm, CLAUDE_SESSION)
    assert not by_type(pm, "observation") and report.deleted_kept == 1


def test_a_task_closed_by_hand_is_not_reopened_by_reimport(pm):
    ingest(pm, CLAUDE_SESSION)
    task = next(t for t in open_tasks(pm) if t.summary.startswith("Add a test"))
    set_task_state(pm, task.id, "done")
    ingest(pm, CLAUDE_SESSION)
    assert task.id not in {t.id for t in open_tasks(pm)}
    with pytest.raises(InvalidInputError, match="task state must be one of"):
        set_task_state(pm, task.id, "finished")


def _write_long_session(path, turns, session="7c1e9a52-3b4d-4f6e-8a90-1b2c3d4e5f60"):
    """The Claude Code fixture's first turn repeated, each tool result 40 KB."""
    rows = lines(CLAUDE_SESSION)
    with open(path, "w") as handle:
        for n in range(turns):
            for row in rows[1:12]:
                record = json.loads(row)
                record["uuid"] = f"{record['uuid'][:-4]}{n:04d}"
                record["sessionId"] = session
                if record["type"] == "user" and isinstance(record["message"]["content"], list):
                    for block in record["message"]["content"]:
                        block["content"] = ("x" * 200 + "\n") * 200
                handle.write(json.dumps(record) + "\n")
    return path


def test_a_large_transcript_streams_in_bounded_memory(pm, tmp_path):
    import tracemalloc

    import numpy  # noqa: F401  (the index imports it lazily on its first postings merge)

    # warm up on a small file of the same kind: imports and caches are not the file's cost
    ingest(pm, _write_long_session(tmp_path / "small.jsonl", 3, session="warm-up"))
    big = _write_long_session(tmp_path / "big.jsonl", 100)
    size = big.stat().st_size
    assert size > 10_000_000
    tracemalloc.start()
    report = ingest(pm, big)
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert report.turns["7c1e9a52-3b4d-4f6e-8a90-1b2c3d4e5f60"] == [100, 100]
    assert peak < size / 10, (peak, size)   # the file is never held whole


# --------------------------------------------------------------------------- live hooks

def test_claude_code_hooks_one_process_per_event(workspace):
    for payload in lines(CLAUDE_HOOKS):
        result = invoke("capture", "--source", "claude-code", "-w", str(workspace), input=payload)
        assert result.exit_code == 0, result.output
    data = invoke_json("tasks", "-w", str(workspace))
    assert data["tasks"] == []   # "下一步：- …" is the agent's narration, not a to-do list
    from palace import MemoryPalaceManager

    with MemoryPalaceManager(workspace) as pm:
        [obs] = by_type(pm, "observation")
        assert obs.summary == "构建失败了，修复 RSS 生成脚本"
        assert obs.extra["commands"] == ["npm run build"]
        assert "TypeError: Cannot read properties of undefined (reading 'date')" in obs.extra["errors"]
        assert obs.extra["filesModified"] == ["/home/dev/blog/scripts/rss.js"]
        assert "已修复" in obs.content                    # Stop's last_assistant_message
        [session] = by_type(pm, "session")
        assert session.extra["turns"] == 2 and session.extra["storedTurns"] == 1
        assert session.extra["observations"] == [obs.id]


def test_openclaw_hook_calls_as_json_lines_on_stdin(workspace):
    data = invoke_json("capture", "-w", str(workspace), input=OPENCLAW_HOOKS.read_text())
    assert data["accepted"] == 6 and data["errors"] == [] and data["stored"] >= 2   # the turn and its session
    from palace import MemoryPalaceManager

    with MemoryPalaceManager(workspace) as pm:
        [obs] = by_type(pm, "observation")
        assert obs.extra["agent"] == "openclaw" and obs.location.startswith("capture/notes/")
        assert obs.extra["filesRead"] == ["meetings/2026-03-21.md"]
        assert open_tasks(pm) == []   # a 'Next steps:' list is narration, not a to-do list


def test_capture_reports_bad_items_without_quoting_them_and_never_exits_2(workspace):
    payload = '{"hook_event_name": "UserPromptSubmit", "prompt": "sk-ant-api03-secretsecretsecretsecret"}\nnot json\n'
    result = invoke("capture", "-w", str(workspace), input=payload)
    assert result.exit_code == 1
    assert "no session_id" in result.output and "line 2 is not JSON" in result.output
    assert "secretsecret" not in result.output


def test_capture_excludes_tools_paths_and_projects(workspace, monkeypatch):
    monkeypatch.setenv("MEMORY_CAPTURE_EXCLUDE_TOOLS", "edit")
    monkeypatch.setenv("MEMORY_CAPTURE_EXCLUDE_PROJECTS", "garden-*")
    invoke_json("ingest", str(CLAUDE_SESSION), str(OPENCLAW_SESSION), "-w", str(workspace))
    from palace import MemoryPalaceManager

    with MemoryPalaceManager(workspace) as pm:
        observations = by_type(pm, "observation")
        assert {o.extra["project"] for o in observations} == {"shop-api"}
        assert "filesModified" not in observations[0].extra        # the Edit call was dropped
        assert observations[0].extra["commands"] == ["pytest -q tests/test_checkout.py"]
    env_file = workspace.parent / "hooks.jsonl"
    env_file.write_text(json.dumps({
        "session_id": "s-env", "cwd": "/home/dev/app", "hook_event_name": "PostToolUse",
        "tool_name": "Read", "tool_input": {"file_path": "/home/dev/app/.env"},
        "tool_response": {"file": {"content": "STRIPE=sk_live_abcdefghijklmnop1234"}}}) + "\n")
    data = invoke_json("capture", "--file", str(env_file), "-w", str(workspace))
    assert data["accepted"] == 1 and data["skipped"] == 1          # .env is excluded by default


# --------------------------------------------------------------------------- recall

def test_timeline_and_compact_search_and_get_many(pm):
    ingest(pm, OPENCLAW_SESSION)
    observations = sorted(by_type(pm, "observation"), key=lambda m: m.extra["turnIndex"])
    view = timeline(pm, observations[1].id, before=5, after=5)
    assert [i["id"] for i in view["items"]] == [o.id for o in observations]
    assert view["items"][1]["anchor"] and view["total"] == 2
    [session] = by_type(pm, "session")
    assert [i["id"] for i in timeline(pm, session.id)["items"]] == [o.id for o in observations]
    with pytest.raises(MemoryNotFoundError):
        timeline(pm, "obs-nope")
    manual = pm.store("a note typed by hand")
    with pytest.raises(InvalidInputError, match="no captured session"):
        timeline(pm, manual.id)
    hits = compact_search(pm, "watering schedule Sundays")
    assert hits["results"] and hits["results"][0]["id"] in {o.id for o in observations} | {session.id}
    assert all(set(h) >= {"id", "title", "date", "type"} for h in hits["results"])
    assert all(len(json.dumps(h, ensure_ascii=False)) < 400 for h in hits["results"])
    got = get_many(pm, [observations[0].id, "missing-id"])
    assert [m.id for m in got["memories"]] == [observations[0].id] and got["missing"] == ["missing-id"]


def test_timeline_command(workspace):
    invoke_json("ingest", str(OPENCLAW_SESSION), "-w", str(workspace))
    from palace import MemoryPalaceManager

    with MemoryPalaceManager(workspace) as pm:
        [session] = by_type(pm, "session")
    result = invoke("timeline", session.id, "-w", str(workspace))
    assert result.exit_code == 0 and "Why does the watering schedule skip Sundays?" in result.output
    assert invoke("timeline", "nope", "-w", str(workspace)).exit_code == 1


# --------------------------------------------------------------------------- themes

def test_themes_tag_trace_and_list_across_sessions(workspace):
    invoke_json("ingest", str(CLAUDE_SESSION), str(KIMI_WIRE), "-w", str(workspace))
    from palace import MemoryPalaceManager

    with MemoryPalaceManager(workspace) as pm:
        kimi = next(o for o in by_type(pm, "observation") if o.extra["agent"] == "kimi")
    tagged = invoke_json("theme", "tag", "CLI & tests", kimi.id, "-w", str(workspace))
    assert tagged["added"] == [kimi.id]
    more = invoke_json("theme", "tag", "cli & tests", "--query", "checkout KeyError currency",
                       "-w", str(workspace))
    assert more["added"] and kimi.id not in more["added"]          # same theme, names fold case
    trace = invoke_json("theme", "trace", "CLI & Tests", "-w", str(workspace))
    dates = [i["date"] for i in trace["items"]]
    assert dates == sorted(dates) and trace["sessions"] == 2
    assert trace["items"][-1]["id"] == kimi.id                     # the newest session last
    listed = invoke_json("theme", "list", "-w", str(workspace))
    assert [(t["theme"], t["count"]) for t in listed["themes"]] == [("cli & tests", trace_count(trace))]
    missing = invoke("theme", "tag", "x", "no-such-id", "-w", str(workspace))
    assert missing.exit_code == 1 and "no-such-id" in missing.output


def trace_count(trace):
    return len(trace["items"]) + len(trace["missing"])


def test_ingest_command_folder_progress_and_claude_code_discovery(workspace, tmp_path, monkeypatch):
    home = tmp_path / "claude"
    project = home / "projects" / "-home-dev-shop-api"
    project.mkdir(parents=True)
    shutil.copy(CLAUDE_SESSION, project / CLAUDE_SESSION.name)
    (project / "7c1e9a52-3b4d-4f6e-8a90-1b2c3d4e5f60" / "subagents").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    result = invoke("ingest", "--claude-code", "--progress", "-w", str(workspace))
    assert result.exit_code == 0, result.output
    assert "ingest 1 file" in result.stderr and "100%" in result.stderr
    assert "1 file, 1 session:" in result.stdout
    again = invoke_json("ingest", "--claude-code", "-w", str(workspace))
    assert again["created"] == 0 and again["unchanged"] >= 2
    assert invoke("ingest", "-w", str(workspace)).exit_code == 2


@pytest.mark.parametrize("one_batch", [True, False])
def test_openclaw_message_hooks_with_only_a_session_key_join_their_session(pm, one_batch):
    """OpenClaw's message hooks know the conversation (sessionKey), not the transcript
    (sessionId); the prompt still opens the turn the tool call and the run end close."""
    from palace.capture.service import capture_payloads

    key, sid = "agent:main:cap", "cap-1"
    plugin_events = [
        {"from": "user", "content": "Please fix the flaky upload test in uploader.py",
         "hook": "message_received", "context": {"channelId": "cli", "sessionKey": key}},
        {"toolName": "exec", "params": {"command": "pytest tests/test_uploader.py"},
         "result": "FAILED tests/test_uploader.py::test_retry - TimeoutError: upload took 31s",
         "hook": "after_tool_call", "context": {"toolName": "exec", "sessionKey": key, "sessionId": sid}},
        {"messages": [{"role": "assistant", "content": "Fixed: the retry now waits with backoff."}],
         "success": True, "hook": "agent_end",
         "context": {"sessionKey": key, "sessionId": sid, "agentId": "main", "workspaceDir": "/srv/app"}},
    ]
    batches = [plugin_events] if one_batch else [[e] for e in plugin_events]
    for batch in batches:
        result = capture_payloads(pm, "openclaw", batch)
        assert result["errors"] == [], result["errors"]
    [obs] = by_type(pm, "observation")
    assert obs.extra["sessionId"] == sid
    assert obs.summary == "Please fix the flaky upload test in uploader.py"
    assert obs.extra["commands"] == ["pytest tests/test_uploader.py"]


@pytest.mark.parametrize("order", ["channel, run, end", "run, channel, end", "run, end, channel"])
def test_openclaw_request_given_by_two_hooks_is_one_turn(pm, order):
    """A channel message reaches the plugin twice: message_received (the gateway's
    channel dispatch, key only, fired and forgotten) and before_prompt_build (the run),
    in any order, even after the run's end (the real gateway does this), and not
    through one plugin instance that could tell them apart. The turn keeps one request;
    the same request sent again later is a turn of its own."""
    from palace.capture.service import capture_payloads

    key, sid, text = "agent:main:main", "ee03c948-8a68-4141-b306-a28bd7f78521", "Remember: the VPN is wg-orca."
    channel = {"content": text, "messageId": "chat-1", "senderId": "cli", "sessionKey": key,
               "hook": "message_received",
               "context": {"channelId": "webchat", "conversationId": key, "sessionKey": key, "messageId": "chat-1"}}
    run = {"agentId": "main", "sessionKey": key, "sessionId": sid, "runId": "chat-1", "trigger": "user",
           "channel": "webchat", "workspaceDir": "/srv/ws"}
    prompt = {"currentUserMessage": f"{text}\n", "hook": "before_prompt_build", "context": run}
    end = {"messages": [{"role": "user", "content": text},
                        {"role": "assistant", "content": "Noted: the VPN is wg-orca."}],
           "success": True, "hook": "agent_end", "context": run}
    compaction = {"messageCount": 2, "hook": "before_compaction", "context": run}
    by_name = {"channel": channel, "run": prompt, "end": end}
    for event in [by_name[name] for name in order.split(", ")] + [compaction]:
        result = capture_payloads(pm, "openclaw", [event])
        assert result["errors"] == [], result["errors"]
    [obs] = by_type(pm, "observation")
    assert obs.extra["sessionId"] == sid
    assert obs.summary == text
    assert obs.content.count("wg-orca") == 2, obs.content  # the request once, the answer once
    # the user sends the same words again half a minute later, in a new run: a turn of
    # its own (hooks carry no time; "ts" stands for the moment capture receives them)
    later = (datetime.now(timezone.utc) + timedelta(seconds=30)).isoformat()
    again = {**run, "runId": "chat-2"}
    for event in [{**channel, "ts": later}, {**prompt, "context": again, "ts": later},
                  {**end, "context": again, "ts": later}, {**compaction, "ts": later}]:
        capture_payloads(pm, "openclaw", [event])
    assert sorted(m.summary for m in by_type(pm, "observation")) == [text, text]


@pytest.mark.parametrize("order", ["channel, run, end", "run, channel, end", "run, end, channel"])
def test_openclaw_request_given_by_two_hooks_is_one_turn_when_deferred(pm, order):
    """Deferred hooks (only spooled, stored by a later drain) are judged when they are
    replayed, as they would have been live: the second report of the request is still
    left out, while the open turn's spooled request is not taken for a twin of itself."""
    from palace.capture.service import capture_payloads, drain_sessions

    key, sid, text = "agent:main:main", "5b0e1a52-3f0e-4a8e-9d3c-0f6c1d2e7a41", "Remember: the VPN is wg-orca."
    channel = {"content": text, "messageId": "chat-1", "senderId": "cli", "sessionKey": key,
               "hook": "message_received",
               "context": {"channelId": "webchat", "conversationId": key, "sessionKey": key, "messageId": "chat-1"}}
    run = {"agentId": "main", "sessionKey": key, "sessionId": sid, "runId": "chat-1", "trigger": "user",
           "channel": "webchat", "workspaceDir": "/srv/ws"}
    prompt = {"currentUserMessage": f"{text}\n", "hook": "before_prompt_build", "context": run}
    end = {"messages": [{"role": "user", "content": text},
                        {"role": "assistant", "content": "Noted: the VPN is wg-orca."}],
           "success": True, "hook": "agent_end", "context": run}
    by_name = {"channel": channel, "run": prompt, "end": end}
    for event in [by_name[name] for name in order.split(", ")]:
        result = capture_payloads(pm, "openclaw", [event], defer=True)
        assert result["errors"] == [], result["errors"]
    assert by_type(pm, "observation") == []  # deferred: nothing stored yet
    drain_sessions(pm, [sid])
    [obs] = by_type(pm, "observation")
    assert obs.extra["sessionId"] == sid
    assert obs.summary == text
    assert obs.content.count("wg-orca") == 2, obs.content  # the request once, the answer once


# --------------------------------------------------------------------------- live, then ingested

def _transcript_of_hook_session(path, started):
    """The Claude Code transcript of the session in claude_code_hooks.jsonl, as the host
    writes it: message uuids and timestamps, which the hook payloads do not carry."""
    from datetime import timedelta

    sid, cwd = "3d9f2b7a-1c4e-4a8b-9e6f-0a1b2c3d4e5f", "/home/dev/blog"

    def at(seconds):
        return (started + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.000Z")

    def record(n, kind, message, seconds):
        return {"type": kind, "sessionId": sid, "cwd": cwd, "uuid": f"b0000000-0000-4000-8000-{n:012d}",
                "timestamp": at(seconds), "message": message}

    rows = [
        record(1, "user", {"role": "user", "content": "构建失败了，修复 RSS 生成脚本"}, 0),
        record(2, "assistant", {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_01HookBash", "name": "Bash",
             "input": {"command": "npm run build"}}]}, 2),
        record(3, "user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01HookBash", "is_error": True,
             "content": "TypeError: Cannot read properties of undefined (reading 'date')"}]}, 4),
        record(4, "assistant", {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_01HookEdit", "name": "Edit",
             "input": {"file_path": "/home/dev/blog/scripts/rss.js", "old_string": "a",
                       "new_string": "b"}}]}, 6),
        record(5, "user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01HookEdit", "content": "ok"}]}, 7),
        record(6, "assistant", {"role": "assistant", "content": [
            {"type": "text", "text": "已修复：rss.js 在文章没有 meta 时回退到 created 日期。"}]}, 9),
        record(7, "user", {"role": "user", "content": "谢谢"}, 30),
        record(8, "assistant", {"role": "assistant", "content": [{"type": "text", "text": "不客气"}]}, 31),
    ]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_session_captured_live_then_ingested_keeps_one_observation_per_turn(workspace, tmp_path):
    """Hooks carry no message ids, transcripts do: the same turn, seen both ways, is one
    memory (the transcript's fuller record), and re-importing changes nothing."""
    from datetime import datetime, timezone

    from palace import MemoryPalaceManager

    started = datetime.now(timezone.utc)
    for payload in lines(CLAUDE_HOOKS):
        assert invoke("capture", "--source", "claude-code", "-w", str(workspace),
                      input=payload).exit_code == 0
    transcript = _transcript_of_hook_session(tmp_path / "3d9f2b7a.jsonl", started)
    with MemoryPalaceManager(workspace) as pm:
        [live] = by_type(pm, "observation")
        report = ingest(pm, transcript)
        [obs] = by_type(pm, "observation")
        assert obs.id == live.id and report.created == 0
        assert obs.extra["turnSource"] == "transcript"
        [session] = by_type(pm, "session")
        assert session.extra["observations"] == [obs.id]
        again = ingest(pm, transcript)
        assert again.created == 0 and again.updated == 0
        assert [m.id for m in by_type(pm, "observation")] == [obs.id]


def test_the_same_prompt_asked_again_later_is_another_turn(pm, tmp_path):
    """Matching a live turn to its transcript record needs the prompt and its time to
    agree: the same words an hour later are a new turn, not a twin."""
    from datetime import datetime, timedelta, timezone

    started = datetime.now(timezone.utc)
    capturer = Capturer(pm)
    for payload in lines(CLAUDE_HOOKS):
        from palace.capture.events import from_claude_code_hook

        events = from_claude_code_hook(json.loads(payload))
        capturer.capture([e.with_text(ts=started - timedelta(hours=1)) for e in events])
    ingest(pm, _transcript_of_hook_session(tmp_path / "later.jsonl", started))
    assert len(by_type(pm, "observation")) == 2


def test_only_explicit_to_dos_become_tasks_and_each_once(pm, tmp_path):
    """A task is a TodoWrite item, an unchecked checklist line or "TODO:"; never the
    agent's narration of its next step, a code comment, a table row or a done item;
    the same task from the to-do list and from a "TODO:" line is stored once."""
    from palace.capture.refine import explicit_todos

    text = ("下一步我会运行测试，然后更新文档。\nNext I'll push the fix.\n"
            "- [ ] Rotate the staging keys\n- [x] Update the changelog\n"
            "```python\n# TODO: not a task, a comment in code\n```\n"
            "| TODO: a grep table row | 3 |\n"
            "缓存 token 每 90 天过期，TODO：到期前提醒\nTODO: done, moved the cron job\n"
            "Open TODO: chart colours in dark mode (needs a `useThemeColors()` hook).")
    assert explicit_todos(text) == [("Rotate the staging keys", "todo"), ("Update the changelog", "done"),
                                    ("缓存 token 每 90 天过期，到期前提醒", "todo"),
                                    ("chart colours in dark mode (needs a `useThemeColors()` hook)", "todo")]
    session = tmp_path / "4d2c9a10-1111-4c5e-9a8f-2d7e1b4c6a31.jsonl"
    rows = [
        {"type": "user", "sessionId": session.stem, "cwd": "/home/dev/dash", "timestamp": "2026-03-02T10:00:00Z",
         "message": {"role": "user", "content": "Add dark mode"}, "uuid": "u1"},
        {"type": "assistant", "sessionId": session.stem, "cwd": "/home/dev/dash",
         "timestamp": "2026-03-02T10:00:05Z", "uuid": "a1", "message": {"role": "assistant", "content": [
             {"type": "tool_use", "id": "t1", "name": "TodoWrite", "input": {"todos": [
                 {"content": "Chart colours in dark mode (useThemeColors hook)", "status": "pending"},
                 {"content": "Toggle in the header", "status": "completed"}]}}]}},
        {"type": "assistant", "sessionId": session.stem, "cwd": "/home/dev/dash",
         "timestamp": "2026-03-02T10:05:00Z", "uuid": "a2", "message": {"role": "assistant", "content": [
             {"type": "text", "text": "Dark mode is in.\n\nNext steps:\n- I will look at the charts next\n\n"
                                      "Open TODO: chart colours in dark mode (needs a `useThemeColors()` hook)."}]}},
    ]
    import json as _json
    session.write_text("\n".join(_json.dumps(r) for r in rows) + "\n")
    ingest(pm, session)
    tasks = [t for t in pm.list(type="task")]
    assert [t.content for t in tasks] == ["Chart colours in dark mode (useThemeColors hook)"]
    assert "From session" not in tasks[0].content and tasks[0].extra["project"] == "dash"
    ingest(pm, session)
    assert len(pm.list(type="task")) == 1
