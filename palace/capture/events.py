"""The capture event format (version 1) and the adapters from hosts' own payloads.

A palace event is one JSON object::

    {"v": 1, "kind": "tool_call", "session": "5f1c…", "agent": "claude-code",
     "ts": "2026-03-18T10:00:00+08:00", "cwd": "/home/me/shop", "id": "toolu_01…",
     "tool": {"name": "Bash", "input": {"command": "pytest"}, "output": "…", "error": false}}

``kind`` is one of ``KINDS``; ``text`` carries a prompt or an assistant message;
``tool`` a tool call (``tool_result`` events from transcripts carry only ``id`` and
``output``: they complete the call with the same id); ``reason``/``trigger``/
``title`` are free text from the host. Unknown keys are ignored, so newer hosts can
add fields; ``v`` greater than ``EVENT_VERSION`` is refused.

Adapters: ``from_claude_code_hook`` (the JSON a Claude Code hook reads on stdin),
``from_openclaw_hook`` (``{"hook": name, "event": {…}, "ctx": {…}}`` as the palace
OpenClaw plugin forwards it), ``from_message_line`` (``{role, content}`` lines) and
``adapt(source, payload)`` which picks one (``source=None``: detected).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Iterable, Iterator, Mapping

from palace.errors import InvalidInputError

EVENT_VERSION = 1
KINDS = ("session_start", "session_end", "user_prompt", "assistant_message", "tool_call",
         "tool_result", "compaction", "reset", "turn_end")
SOURCES = ("claude-code", "openclaw", "palace", "jsonl")


@dataclass(frozen=True)
class Event:
    kind: str
    session: str
    agent: str = "unknown"
    ts: datetime | None = None
    cwd: str | None = None
    id: str | None = None
    text: str | None = None
    tool_name: str | None = None
    tool_input: Any = None
    tool_output: str | None = None
    tool_error: bool = False
    reason: str | None = None
    title: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"v": EVENT_VERSION, "kind": self.kind, "session": self.session,
                                "agent": self.agent}
        if self.ts:
            data["ts"] = self.ts.isoformat()
        for key in ("cwd", "id", "text", "reason", "title"):
            value = getattr(self, key)
            if value:
                data[key] = value
        if self.tool_name or self.tool_input is not None or self.tool_output is not None:
            tool: dict[str, Any] = {}
            if self.tool_name:
                tool["name"] = self.tool_name
            if self.tool_input is not None:
                tool["input"] = self.tool_input
            if self.tool_output is not None:
                tool["output"] = self.tool_output
            if self.tool_error:
                tool["error"] = True
            data["tool"] = tool
        if self.meta:
            data["meta"] = dict(self.meta)
        return data

    def with_text(self, **changes: Any) -> "Event":
        return replace(self, **changes)


# --------------------------------------------------------------------------- helpers

def parse_ts(value: Any) -> datetime | None:
    """ISO strings, epoch seconds or milliseconds; None when absent or unreadable
    (a bad timestamp is not worth losing an event for)."""
    if value is None or value == "":
        return None
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            seconds = value / 1000.0 if value > 1e11 else float(value)
            return datetime.fromtimestamp(seconds, tz=timezone.utc)
        if isinstance(value, str):
            text = value.strip()
            if text.endswith("Z"):
                text = text[:-1] + "+00:00"
            parsed = datetime.fromisoformat(text)
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
    except (ValueError, OverflowError, OSError):
        return None
    return None


def as_text(value: Any) -> str:
    """Text out of the many shapes hosts use for content: a string, a list of
    ``{type: text, text}`` blocks, ``{content: …}``, or anything JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        parts = [as_text(item) for item in value]
        return "\n".join(p for p in parts if p)
    if isinstance(value, dict):
        kind = value.get("type")
        if kind in ("image", "image_url", "audio", "video", "document") :
            return ""
        for key in ("text", "output", "content", "stdout", "message", "result"):
            if key in value and value[key] not in (None, ""):
                text = as_text(value[key])
                if key == "stdout" and value.get("stderr"):
                    text = f"{text}\n{as_text(value['stderr'])}"
                return text
        if kind in ("thinking", "think", "redacted_thinking"):
            return ""
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def _str(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _require_mapping(payload: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(payload, Mapping):
        raise InvalidInputError(f"{what} must be a JSON object, got {type(payload).__name__}")
    return payload


# --------------------------------------------------------------------------- palace events

def from_palace(payload: Any) -> Event:
    data = _require_mapping(payload, "a palace event")
    version = data.get("v", EVENT_VERSION)
    if not isinstance(version, int) or version < 1:
        raise InvalidInputError("event field 'v' must be a positive integer (the format version)")
    if version > EVENT_VERSION:
        raise InvalidInputError(
            f"event format version {version} is newer than this palace understands "
            f"({EVENT_VERSION}); upgrade palace")
    kind = data.get("kind")
    if kind not in KINDS:
        raise InvalidInputError(f"event 'kind' must be one of {', '.join(KINDS)}")
    session = _str(data.get("session"))
    if not session:
        raise InvalidInputError("event needs a 'session' (the host's session id)")
    tool = data.get("tool") or {}
    if not isinstance(tool, Mapping):
        raise InvalidInputError("event field 'tool' must be an object {name, input, output, error}")
    output = tool.get("output")
    return Event(kind=kind, session=session, agent=_str(data.get("agent")) or "unknown",
                 ts=parse_ts(data.get("ts")), cwd=_str(data.get("cwd")), id=_str(data.get("id")),
                 text=as_text(data.get("text")) or None, tool_name=_str(tool.get("name")),
                 tool_input=tool.get("input"),
                 tool_output=None if output is None else as_text(output),
                 tool_error=bool(tool.get("error")), reason=_str(data.get("reason")),
                 title=_str(data.get("title")),
                 meta=meta if isinstance(meta := data.get("meta"), Mapping) else {})


# --------------------------------------------------------------------------- Claude Code

_CC_EVENTS = {
    "SessionStart": "session_start", "SessionEnd": "session_end",
    "UserPromptSubmit": "user_prompt", "PostToolUse": "tool_call",
    "PostToolUseFailure": "tool_call", "PreCompact": "compaction", "Stop": "turn_end",
}


def from_claude_code_hook(payload: Any) -> list[Event]:
    """A Claude Code hook's stdin JSON. PreToolUse, Notification, SubagentStop and
    other informational hooks give no event (PostToolUse has the same call, with its
    result)."""
    data = _require_mapping(payload, "a Claude Code hook payload")
    name = data.get("hook_event_name")
    session = _str(data.get("session_id"))
    if not session:
        raise InvalidInputError("Claude Code hook payload has no session_id")
    kind = _CC_EVENTS.get(str(name))
    if kind is None:
        return []
    base: dict[str, Any] = dict(session=session, agent="claude-code", cwd=_str(data.get("cwd")),
                ts=parse_ts(data.get("timestamp")),
                meta={"transcript_path": data["transcript_path"]} if data.get("transcript_path") else {})
    if kind == "user_prompt":
        return [Event(kind=kind, text=as_text(data.get("prompt")), **base)]
    if kind == "tool_call":
        response = data.get("tool_response")
        failed = name == "PostToolUseFailure" or _response_failed(response)
        output = as_text(data.get("error")) if name == "PostToolUseFailure" else as_text(response)
        return [Event(kind=kind, id=_str(data.get("tool_use_id")), tool_name=_str(data.get("tool_name")),
                      tool_input=data.get("tool_input"), tool_output=output, tool_error=failed, **base)]
    if kind == "session_start":
        return [Event(kind=kind, reason=_str(data.get("source")), **base)]
    if kind == "session_end":
        return [Event(kind=kind, reason=_str(data.get("reason")), **base)]
    if kind == "compaction":
        return [Event(kind=kind, reason=_str(data.get("trigger")), **base)]
    # Stop: the turn is over; newer hosts include the last assistant message
    events = []
    last = data.get("last_assistant_message")
    if last:
        events.append(Event(kind="assistant_message", text=as_text(last), **base))
    events.append(Event(kind="turn_end", **base))
    return events


def _response_failed(response: Any) -> bool:
    if isinstance(response, Mapping):
        if response.get("is_error") or response.get("isError") or response.get("interrupted"):
            return True
        if response.get("success") is False:
            return True
        code = response.get("exitCode", response.get("exit_code", response.get("returncode")))
        return isinstance(code, int) and code != 0
    return False


# --------------------------------------------------------------------------- OpenClaw

_OPENCLAW_ENVELOPE = ("hook", "hookName", "context", "ctx")


def from_openclaw_hook(payload: Any) -> list[Event]:
    """One OpenClaw plugin hook call, in either shape:

    * what the palace plugin sends (integrations/openclaw/src/capture.ts): the hook's
      payload with ``"hook": name`` and ``"context": {sessionKey, sessionId, agentId,
      workspaceDir, toolName, …}`` added at its top level;
    * ``{"hook": name, "event": {…}, "ctx": {…}}`` (``hookName``/``type`` and
      ``context`` accepted for the same keys).

    The session is the context's ``sessionId``; a message hook's context often has only
    the ``sessionKey`` (the conversation): the event then carries it in
    ``meta.sessionKey`` and the capture files it under the sessionId that key last had.
    """
    data = _require_mapping(payload, "an OpenClaw hook payload")
    hook = _str(data.get("hook") or data.get("hookName") or data.get("type"))
    if "event" in data:
        event = data.get("event") or {}
    else:  # the plugin's shape: the payload's own fields, next to hook and context
        event = {k: v for k, v in data.items() if k not in _OPENCLAW_ENVELOPE}
    ctx = data.get("ctx") or data.get("context") or {}
    if not isinstance(event, Mapping) or not isinstance(ctx, Mapping):
        raise InvalidInputError("OpenClaw hook payload: 'event' and 'context' must be objects")
    key = _str(ctx.get("sessionKey") or event.get("sessionKey"))
    session = _str(ctx.get("sessionId") or event.get("sessionId") or key
                   or ctx.get("conversationId") or ctx.get("channelId"))
    if not session:
        raise InvalidInputError("OpenClaw hook payload has no session (context.sessionId or "
                                "context.sessionKey)")
    agent = "openclaw"
    base: dict[str, Any] = dict(session=session, agent=agent,
                cwd=_str(ctx.get("workspaceDir") or event.get("workspaceDir") or data.get("cwd")),
                ts=parse_ts(event.get("timestamp") or data.get("ts")),
                meta={"sessionKey": key} if key else {})
    if hook == "message_received":  # the run's before_prompt_build gives it again
        base["meta"] = {**base["meta"], "channelMessage": True}
        return [Event(kind="user_prompt", text=as_text(event.get("content")), **base)]
    if hook == "before_agent_start" and event.get("prompt"):
        return [Event(kind="user_prompt", text=as_text(event.get("prompt")), **base)]
    if hook == "before_prompt_build":  # a turn no channel message opened (openclaw agent)
        text = as_text(event.get("currentUserMessage") or event.get("prompt"))
        return [Event(kind="user_prompt", text=text, **base)] if text.strip() else []
    if hook in ("message_sent", "message_sending") and event.get("content"):
        return [Event(kind="assistant_message", text=as_text(event.get("content")), **base)]
    if hook == "after_tool_call":
        error = event.get("error")
        output = as_text(error) if error else as_text(event.get("result"))
        return [Event(kind="tool_call", id=_str(event.get("toolCallId") or ctx.get("toolCallId")),
                      tool_name=_str(event.get("toolName") or ctx.get("toolName")),
                      tool_input=event.get("params"), tool_output=output,
                      tool_error=bool(error) or _response_failed(event.get("result")), **base)]
    if hook == "tool_result_persist":
        message = event.get("message") or {}
        content = message.get("content") if isinstance(message, Mapping) else message
        return [Event(kind="tool_result", id=_str(event.get("toolCallId") or ctx.get("toolCallId")),
                      tool_name=_str(event.get("toolName") or ctx.get("toolName")),
                      tool_output=as_text(content),
                      tool_error=bool(isinstance(message, Mapping) and message.get("isError")), **base)]
    if hook == "agent_end":
        events = []
        for message in reversed(list(event.get("messages") or [])):
            if isinstance(message, Mapping) and message.get("role") == "assistant":
                text = as_text([b for b in message.get("content") or [] if isinstance(b, Mapping)
                                and b.get("type") == "text"] if isinstance(message.get("content"), list)
                               else message.get("content"))
                if text:
                    events.append(Event(kind="assistant_message", text=text, **base))
                break
        events.append(Event(kind="turn_end", reason=None if event.get("success", True) else
                            _str(event.get("error")) or "failed", **base))
        return events
    if hook == "session_start":
        return [Event(kind="session_start", **base)]
    if hook == "session_end":
        return [Event(kind="session_end", **base)]
    if hook == "before_compaction":
        return [Event(kind="compaction", **base)]
    if hook == "before_reset":
        return [Event(kind="reset", reason=_str(event.get("reason")), **base)]
    return []


# --------------------------------------------------------------------------- plain lines

_ROLE_KINDS = {"user": "user_prompt", "human": "user_prompt", "assistant": "assistant_message",
               "ai": "assistant_message", "model": "assistant_message", "tool": "tool_result"}


def from_message_line(payload: Any, *, session: str, agent: str = "jsonl",
                      index: int | None = None) -> list[Event]:
    """A ``{role, content}`` line (OpenAI-style chat logs). System lines are skipped."""
    data = _require_mapping(payload, "a message line")
    role = str(data.get("role", "")).lower()
    kind = _ROLE_KINDS.get(role)
    if kind is None:
        return []
    events = []
    text = as_text(data.get("content"))
    mid = _str(data.get("id")) or (f"line-{index}" if index is not None else None)
    ts = parse_ts(data.get("timestamp") or data.get("ts") or data.get("created_at"))
    if kind == "tool_result":
        return [Event(kind=kind, session=session, agent=agent, ts=ts,
                      id=_str(data.get("tool_call_id")) or mid, tool_output=text)]
    if text:
        events.append(Event(kind=kind, session=session, agent=agent, ts=ts, id=mid, text=text))
    for call in data.get("tool_calls") or []:
        if isinstance(call, Mapping):
            fn = call.get("function") or {}
            events.append(Event(kind="tool_call", session=session, agent=agent, ts=ts,
                                id=_str(call.get("id")), tool_name=_str(fn.get("name")),
                                tool_input=_maybe_json(fn.get("arguments"))))
    return events


def _maybe_json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


# --------------------------------------------------------------------------- dispatch

def detect_source(payload: Any) -> str:
    if isinstance(payload, Mapping):
        if "hook_event_name" in payload:
            return "claude-code"
        if ("hook" in payload or "hookName" in payload) and (
                "event" in payload or "ctx" in payload or "context" in payload):
            return "openclaw"
        if "kind" in payload and "session" in payload:
            return "palace"
        if "role" in payload:
            return "jsonl"
    raise InvalidInputError(
        "cannot tell what this event is: expected a palace event {v, kind, session, …}, a "
        "Claude Code hook payload (hook_event_name), an OpenClaw hook {hook, context, …} or a "
        "{role, content} line; pass source explicitly")


def adapt(source: str | None, payload: Any, *, session: str | None = None) -> list[Event]:
    """Events from one host payload. ``source=None`` detects the shape."""
    source = source or detect_source(payload)
    if source == "claude-code":
        return from_claude_code_hook(payload)
    if source == "openclaw":
        return from_openclaw_hook(payload)
    if source == "palace":
        return [from_palace(payload)]
    if source == "jsonl":
        if isinstance(payload, Mapping) and "kind" in payload and "session" in payload:
            return [from_palace(payload)]
        data = _require_mapping(payload, "a message line")
        return from_message_line(data, session=_str(data.get("session")) or session or "jsonl")
    raise InvalidInputError(f"unknown capture source {source!r}; use one of {', '.join(SOURCES)}")


def iter_json_lines(text: str) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each non-empty line; a whole JSON document (one object
    spread over lines, or an array) is accepted too."""
    stripped = text.strip()
    if not stripped:
        return
    if stripped[0] == "[" or ("\n" in stripped and stripped[0] == "{" and _is_one_document(stripped)):
        try:
            value = json.loads(stripped)
        except ValueError:
            pass
        else:
            for i, item in enumerate(value if isinstance(value, list) else [value], 1):
                yield i, item
            return
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                yield number, json.loads(line)
            except ValueError:
                yield number, _BadLine(number)


def _is_one_document(text: str) -> bool:
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


@dataclass(frozen=True)
class _BadLine:
    number: int


def is_bad_line(value: Any) -> bool:
    return isinstance(value, _BadLine)


def events_of(items: Iterable[Any], source: str | None = None) -> Iterator[Event]:
    for item in items:
        yield from adapt(source, item)
