"""The event format and the host adapters, on payloads shaped like the hosts' own."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from capture_helpers import CLAUDE_HOOKS, OPENCLAW_HOOKS, lines

from palace.capture.events import (EVENT_VERSION, Event, adapt, detect_source, from_palace,
                                   iter_json_lines, is_bad_line, parse_ts)
from palace.errors import InvalidInputError


def test_claude_code_hooks_map_onto_events():
    kinds = []
    for payload in lines(CLAUDE_HOOKS):
        kinds.append([e.kind for e in adapt("claude-code", json.loads(payload))])
    assert kinds == [["session_start"], ["user_prompt"], [], ["tool_call"], ["tool_call"],
                     ["assistant_message", "turn_end"], ["user_prompt"], ["turn_end"],
                     ["compaction"], ["session_end"]]
    bash = adapt(None, json.loads(lines(CLAUDE_HOOKS)[3]))[0]
    assert bash.tool_name == "Bash" and bash.tool_input["command"] == "npm run build"
    assert bash.tool_error and "TypeError" in bash.tool_output and bash.id == "toolu_01HookBash"
    assert bash.cwd == "/home/dev/blog" and bash.agent == "claude-code" and bash.ts is None
    end = adapt(None, json.loads(lines(CLAUDE_HOOKS)[-1]))[0]
    assert end.reason == "prompt_input_exit"


def test_claude_code_tool_failure_hook():
    [event] = adapt("claude-code", {"session_id": "s", "hook_event_name": "PostToolUseFailure",
                                    "tool_name": "Bash", "tool_input": {"command": "make"},
                                    "error": "make: *** [all] Error 2"})
    assert event.tool_error and event.tool_output == "make: *** [all] Error 2"


def test_openclaw_hooks_map_onto_events():
    kinds = [[e.kind for e in adapt("openclaw", json.loads(p))] for p in lines(OPENCLAW_HOOKS)]
    assert kinds == [["session_start"], ["user_prompt"], ["tool_call"],
                     ["assistant_message", "turn_end"], ["compaction"], ["session_end"]]
    call = adapt(None, json.loads(lines(OPENCLAW_HOOKS)[2]))[0]
    assert (call.session, call.tool_name, call.tool_input, call.cwd) == (
        "oc-main-42", "read", {"path": "meetings/2026-03-21.md"}, "/home/dev/notes")
    assert "Alice owns the migration" in call.tool_output
    ctx = {"sessionKey": "agent:main:main", "workspaceDir": "/w"}
    [persist] = adapt("openclaw", {"hook": "tool_result_persist", "ctx": ctx, "event": {
        "toolName": "exec", "toolCallId": "c9", "message": {"role": "toolResult", "isError": True,
                                                           "content": [{"type": "text", "text": "boom"}]}}})
    assert (persist.kind, persist.id, persist.tool_output, persist.tool_error) == ("tool_result", "c9", "boom", True)
    assert persist.session == "agent:main:main"
    [reset] = adapt("openclaw", {"hook": "before_reset", "ctx": ctx, "event": {"reason": "/new"}})
    assert (reset.kind, reset.reason) == ("reset", "/new")
    assert adapt("openclaw", {"hook": "gateway_start", "ctx": ctx, "event": {}}) == []
    failed = adapt("openclaw", {"hook": "after_tool_call", "ctx": ctx, "event": {
        "toolName": "exec", "params": {"command": "ls /nope"}, "error": "ENOENT"}})[0]
    assert failed.tool_error and failed.tool_output == "ENOENT"


def test_palace_events_round_trip_and_newer_versions_are_refused():
    event = Event(kind="tool_call", session="s", agent="pi", ts=datetime(2026, 3, 18, tzinfo=timezone.utc),
                  cwd="/w", id="t1", tool_name="bash", tool_input={"command": "ls"}, tool_output="a",
                  tool_error=True)
    data = event.to_dict()
    assert data["v"] == EVENT_VERSION and from_palace(json.loads(json.dumps(data))) == event
    with pytest.raises(InvalidInputError, match="newer than this palace"):
        from_palace({**data, "v": EVENT_VERSION + 1})
    with pytest.raises(InvalidInputError, match="'kind' must be one of"):
        from_palace({"v": 1, "kind": "typing", "session": "s"})
    with pytest.raises(InvalidInputError, match="needs a 'session'"):
        from_palace({"v": 1, "kind": "user_prompt", "text": "hi"})


def test_shapes_are_detected_and_unknown_ones_refused_without_quoting_them():
    assert detect_source({"hook_event_name": "Stop", "session_id": "s"}) == "claude-code"
    assert detect_source({"hook": "agent_end", "event": {}, "ctx": {}}) == "openclaw"
    assert detect_source({"v": 1, "kind": "user_prompt", "session": "s"}) == "palace"
    assert detect_source({"role": "user", "content": "hi"}) == "jsonl"
    with pytest.raises(InvalidInputError) as caught:
        detect_source({"password": "hunter2-secret-value"})
    assert "hunter2" not in str(caught.value)
    with pytest.raises(InvalidInputError, match="no session_id"):
        adapt("claude-code", {"hook_event_name": "UserPromptSubmit", "prompt": "sk-ant-xyz"})
    with pytest.raises(InvalidInputError, match="unknown capture source"):
        adapt("slack", {})


def test_timestamps_and_json_lines():
    assert parse_ts("2026-03-18T02:00:00.000Z") == datetime(2026, 3, 18, 2, tzinfo=timezone.utc)
    assert parse_ts(1774084501000) == parse_ts(1774084501) == datetime.fromtimestamp(1774084501, timezone.utc)
    assert parse_ts("yesterday") is None and parse_ts(None) is None
    items = list(iter_json_lines('{"a": 1}\nnot json\n\n{"b": 2}\n'))
    assert [n for n, _ in items] == [1, 2, 4] and is_bad_line(items[1][1])
    assert [v for _n, v in iter_json_lines('{\n  "a": 1\n}\n')] == [{"a": 1}]   # one pretty document
    assert [v for _n, v in iter_json_lines('[{"a": 1}, {"b": 2}]')] == [{"a": 1}, {"b": 2}]


def test_openclaw_plugin_shape_payload_fields_beside_hook_and_context():
    """What integrations/openclaw/src/capture.ts sends: the hook payload's own fields
    with "hook" and "context" added."""
    context = {"sessionKey": "agent:main:cap", "sessionId": "cap-1", "agentId": "main",
               "workspaceDir": "/srv/app", "toolName": "exec"}
    [call] = adapt("openclaw", {"toolName": "exec", "params": {"command": "pytest -q"},
                                "result": "FAILED test_retry", "durationMs": 31000,
                                "hook": "after_tool_call", "context": context})
    assert (call.kind, call.session, call.cwd, call.tool_name) == ("tool_call", "cap-1", "/srv/app", "exec")
    assert call.tool_input == {"command": "pytest -q"} and call.tool_output == "FAILED test_retry"
    assert call.meta["sessionKey"] == "agent:main:cap"
    [prompt] = adapt(None, {"from": "user", "content": "fix the upload test", "hook": "message_received",
                            "context": {"channelId": "cli", "sessionKey": "agent:main:cap"}})
    assert prompt.kind == "user_prompt" and prompt.text == "fix the upload test"
    assert prompt.session == "agent:main:cap"  # only the key: the capture finds its sessionId
    # a turn no channel message opened (openclaw agent): the plugin sends its request
    # from before_prompt_build
    [asked] = adapt("openclaw", {"currentUserMessage": "What is the staging database called?",
                                 "hook": "before_prompt_build", "context": context})
    assert (asked.kind, asked.session, asked.text) == ("user_prompt", "cap-1", "What is the staging database called?")
    assert adapt("openclaw", {"currentUserMessage": "  ", "hook": "before_prompt_build", "context": context}) == []
    # the older {hook, event, ctx} shape still reads the same
    [same] = adapt("openclaw", {"hook": "after_tool_call", "event": {"toolName": "exec", "params": {}},
                                "ctx": context})
    assert same.session == "cap-1" and same.tool_name == "exec"
