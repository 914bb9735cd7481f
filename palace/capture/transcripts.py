"""Transcript readers: a session file on disk becomes a stream of capture events.

Formats (detected from the first records):
* ``claude-code``: ``~/.claude/projects/<slug>/<session>.jsonl`` — ``user`` and
  ``assistant`` lines (``message.content`` a string or ``text``/``thinking``/
  ``tool_use``/``tool_result`` blocks), ``summary``/``ai-title``/``custom-title``
  records, ``system`` lines (``compact_boundary``), bookkeeping lines.
* ``pi`` (OpenClaw and pi): a ``{"type":"session","version":3,…}`` header, then
  ``message`` entries (roles ``user``, ``assistant`` with ``text``/``thinking``/
  ``toolCall`` blocks, ``toolResult``, ``bashExecution``), ``compaction`` and others.
* ``kimi``: Kimi Code's ``wire.jsonl`` — a ``{"type":"metadata"}`` header, then
  ``{timestamp, message: {type, payload}}`` (TurnBegin, ContentPart, ToolCall,
  ToolResult, CompactionBegin, …).
* ``messages``: ``{role, content}`` lines; ``palace``: palace events, one a line;
  ``hooks``: a log of hook payloads (Claude Code hook stdin, OpenClaw hook calls).

Files are read line by line in binary (memory stays bounded whatever the size);
unknown record types are skipped and counted; a last line cut short (the host was
still writing it) is tolerated and left for the next import.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from palace.errors import InvalidInputError
from palace.capture.events import Event, as_text, from_message_line, from_palace, parse_ts

FORMATS = ("claude-code", "pi", "kimi", "messages", "palace", "hooks")
_CLAUDE_TYPES = {"user", "assistant", "summary", "system", "ai-title", "custom-title",
                 "file-history-snapshot", "queue-operation", "mode", "last-prompt",
                 "permission-mode", "agent-name", "attachment", "progress"}
_CLAUDE_BOOKKEEPING = _CLAUDE_TYPES - {"user", "assistant", "summary", "system", "ai-title",
                                       "custom-title"}
_CLAUDE_META_PREFIXES = ("<command-name>", "<command-message>", "<local-command-stdout>",
                         "<local-command-stderr>", "<local-command-caveat>", "<system-reminder>",
                         "Caveat: The messages below", "[Request interrupted by user")


@dataclass
class ReadStats:
    path: str
    format: str | None = None
    bytes_total: int = 0
    bytes_read: int = 0
    lines: int = 0
    records: int = 0
    events: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    bad_lines: int = 0
    truncated_tail: bool = False

    def skip(self, what: str) -> None:
        self.skipped[what] = self.skipped.get(what, 0) + 1

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "format": self.format, "bytes": self.bytes_read,
                "lines": self.lines, "records": self.records, "events": self.events,
                "skipped": dict(self.skipped), "bad_lines": self.bad_lines,
                "truncated_tail": self.truncated_tail}


def _records(path: Path, stats: ReadStats, progress: Callable[[int], None] | None) -> Iterator[Any]:
    """Parsed JSON lines. A line that does not parse is counted; the last line without
    its newline that does not parse is the host still writing: not an error."""
    with open(path, "rb") as handle:
        for raw in handle:
            stats.bytes_read += len(raw)
            stats.lines += 1
            if progress:
                progress(len(raw))
            if not raw.strip():
                continue
            try:
                value = json.loads(raw)
            except ValueError:
                if not raw.endswith(b"\n"):
                    stats.truncated_tail = True
                else:
                    stats.bad_lines += 1
                continue
            stats.records += 1
            yield value


def detect_format(first: Any) -> str | None:
    if not isinstance(first, Mapping):
        return None
    kind = first.get("type")
    if kind == "session" and ("version" in first or "cwd" in first):
        return "pi"
    if kind == "metadata" and "protocol_version" in first:
        return "kimi"
    if "message" in first and isinstance(first.get("message"), Mapping) and "timestamp" in first \
            and "type" in first["message"] and "payload" in first["message"]:
        return "kimi"
    if kind in _CLAUDE_TYPES or "sessionId" in first or "leafUuid" in first:
        return "claude-code"
    if "kind" in first and "session" in first:
        return "palace"
    if "hook_event_name" in first or (("hook" in first or "hookName" in first)
                                      and ("event" in first or "ctx" in first)):
        return "hooks"
    if "role" in first:
        return "messages"
    return None


def read_transcript(path: str | os.PathLike, *, stats: ReadStats | None = None,
                    progress: Callable[[int], None] | None = None,
                    format: str | None = None) -> Iterator[Event]:
    """Events of one transcript file, ending with a ``session_end`` event (its ``title``
    the host's own title when it wrote one; ``meta.source = "transcript"``)."""
    path = Path(path)
    stats = stats if stats is not None else ReadStats(str(path))
    try:
        stats.bytes_total = path.stat().st_size
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror or exc}") from None
    records = _records(path, stats, progress)
    first = next(records, None)
    if first is None:
        return
    fmt = format or detect_format(first)
    if fmt is None:
        raise InvalidInputError(
            f"{path}: not a transcript palace knows (Claude Code, OpenClaw/pi session, Kimi "
            "wire.jsonl, {role, content} lines or palace events)")
    stats.format = fmt
    reader = {"claude-code": _claude_code, "pi": _pi, "kimi": _kimi,
              "messages": _messages, "palace": _palace, "hooks": _hooks}[fmt]

    def chained() -> Iterator[Any]:
        yield first
        yield from records

    for event in reader(path, chained(), stats):
        stats.events += 1
        yield event


# --------------------------------------------------------------------------- Claude Code

def _claude_code(path: Path, records: Iterator[Any], stats: ReadStats) -> Iterator[Event]:
    session = path.stem
    agent = "claude-code"
    cwd = None
    title = None
    last_ts = None
    for record in records:
        if not isinstance(record, Mapping):
            stats.skip("not-an-object")
            continue
        kind = record.get("type")
        session = record.get("sessionId") or session
        cwd = record.get("cwd") or cwd
        ts = parse_ts(record.get("timestamp")) or last_ts
        last_ts = ts or last_ts
        if kind in ("ai-title", "custom-title", "summary"):
            title = record.get("customTitle") or record.get("aiTitle") or record.get("title") \
                or record.get("summary") or title
            continue
        if kind == "system":
            if record.get("subtype") == "compact_boundary":
                yield Event(kind="compaction", session=session, agent=agent, ts=ts, cwd=cwd,
                            id=record.get("uuid"),
                            reason=(record.get("compactMetadata") or {}).get("trigger"))
            else:
                stats.skip("system")
            continue
        if kind in _CLAUDE_BOOKKEEPING:
            stats.skip(str(kind))
            continue
        if kind not in ("user", "assistant"):
            stats.skip(str(kind))
            continue
        if record.get("isSidechain"):
            stats.skip("sidechain")
            continue
        message = record.get("message") or {}
        content = message.get("content") if isinstance(message, Mapping) else None
        base: dict[str, Any] = dict(session=session, agent=agent, ts=ts, cwd=cwd)
        uuid = record.get("uuid")
        if kind == "user":
            if record.get("isMeta") or record.get("isCompactSummary"):
                stats.skip("meta")
                continue
            if isinstance(content, str):
                if content.lstrip().startswith(_CLAUDE_META_PREFIXES):
                    stats.skip("command")
                    continue
                yield Event(kind="user_prompt", id=uuid, text=content, **base)
                continue
            texts = []
            for block in content or []:
                if not isinstance(block, Mapping):
                    continue
                btype = block.get("type")
                if btype == "tool_result":
                    yield Event(kind="tool_result", id=block.get("tool_use_id"),
                                tool_output=as_text(block.get("content")),
                                tool_error=bool(block.get("is_error")), **base)
                elif btype == "text":
                    text = block.get("text") or ""
                    if not text.lstrip().startswith(_CLAUDE_META_PREFIXES):
                        texts.append(text)
            if texts:
                yield Event(kind="user_prompt", id=uuid, text="\n".join(texts), **base)
            continue
        yield from _assistant_blocks(content, uuid, base, tool_type="tool_use", input_key="input")
    yield Event(kind="session_end", session=session, agent=agent, ts=last_ts, cwd=cwd,
                title=title, meta={"source": "transcript"})


def _assistant_blocks(content: Any, message_id: Any, base: dict[str, Any], *, tool_type: str,
                      input_key: str) -> Iterator[Event]:
    """An assistant message's text and tool-call blocks as events. Claude Code and pi
    differ only in the tool block's type and where its input is; any other block
    (thinking, redacted thinking: the model's private reasoning) is not captured."""
    for block in content if isinstance(content, list) else [content]:
        if isinstance(block, str):
            block = {"type": "text", "text": block}
        if not isinstance(block, Mapping):
            continue
        btype = block.get("type")
        if btype == "text" and (block.get("text") or "").strip():
            yield Event(kind="assistant_message", id=message_id, text=block["text"], **base)
        elif btype == tool_type:
            yield Event(kind="tool_call", id=block.get("id"), tool_name=block.get("name"),
                        tool_input=block.get(input_key), **base)


FINAL_ANSWER_TAIL_BYTES = 4 * 1024 * 1024  # a turn's end lies in the last few MB of any transcript


def claude_code_final_answer(path: str | os.PathLike, prompt: str, *, tool_calls: int = 0,
                             clean: Callable[[str], str] = lambda text: text,
                             tail_bytes: int = FINAL_ANSWER_TAIL_BYTES) -> str | None:
    """The answer that ended a turn of a Claude Code transcript: the assistant's text
    blocks after the turn's last tool call. The turn is the last one whose prompt
    (through ``clean``, the redactor the hook's copy went through) is ``prompt``. A live
    Stop hook without ``last_assistant_message`` gets its answer here.

    Claude Code writes the transcript after the hooks fire, so the file may lag: a turn
    that holds fewer tool calls than the ``tool_calls`` the hooks saw, or ends on a tool
    call, is not finished there yet, and gives None (no answer beats a wrong one). Only
    the file's tail is read."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - tail_bytes))
            lines = handle.read().splitlines()
    except OSError:
        return None
    if size > tail_bytes:
        lines = lines[1:]  # the first line is cut: not a record
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            continue  # the host still writing its last line
    wanted = " ".join(prompt.split())
    found: tuple[int, list[str]] | None = None
    turn: tuple[int, list[str]] | None = None  # (tool calls, texts since the last one)
    for event in _claude_code(path, iter(records), ReadStats(str(path))):
        if event.kind == "user_prompt":
            if turn is not None:
                found = turn
            turn = (0, []) if " ".join(clean(event.text or "").split()) == wanted else None
        elif turn is None:
            continue
        elif event.kind == "tool_call":
            turn = (turn[0] + 1, [])
        elif event.kind == "tool_result":
            turn = (turn[0], [])
        elif event.kind == "assistant_message" and event.text:
            turn[1].append(event.text)
    found = turn or found
    if found is None or found[0] < tool_calls or not found[1]:
        return None
    return "\n".join(found[1])


# --------------------------------------------------------------------------- pi / OpenClaw

def _pi(path: Path, records: Iterator[Any], stats: ReadStats) -> Iterator[Event]:
    agent = "openclaw" if ".openclaw" in path.parts or "openclaw" in str(path).lower() else "pi"
    session = path.stem.split("_", 1)[-1]
    cwd = None
    title = None
    last_ts = None
    for record in records:
        if not isinstance(record, Mapping):
            stats.skip("not-an-object")
            continue
        kind = record.get("type")
        ts = parse_ts(record.get("timestamp")) or last_ts
        last_ts = ts or last_ts
        if kind == "session":
            session = record.get("id") or session
            cwd = record.get("cwd") or cwd
            continue
        base: dict[str, Any] = dict(session=session, agent=agent, ts=ts, cwd=cwd)
        if kind == "session_info":
            title = record.get("name") or title
            continue
        if kind == "compaction":
            yield Event(kind="compaction", id=record.get("id"), **base)
            continue
        if kind != "message":
            stats.skip(str(kind))
            continue
        message = record.get("message") or {}
        role = message.get("role")
        content = message.get("content")
        mid = record.get("id")
        if role == "user":
            text = as_text([b for b in content if isinstance(b, Mapping) and b.get("type") == "text"]
                           if isinstance(content, list) else content)
            if text.strip():
                yield Event(kind="user_prompt", id=mid, text=text, **base)
        elif role == "assistant":
            yield from _assistant_blocks(content, mid, base, tool_type="toolCall", input_key="arguments")
        elif role == "toolResult":
            yield Event(kind="tool_result", id=message.get("toolCallId"),
                        tool_name=message.get("toolName"), tool_output=as_text(content),
                        tool_error=bool(message.get("isError")), **base)
        elif role == "bashExecution":
            code = message.get("exitCode")
            yield Event(kind="tool_call", id=mid, tool_name="bash",
                        tool_input={"command": message.get("command")},
                        tool_output=as_text(message.get("output")),
                        tool_error=isinstance(code, int) and code != 0, **base)
        else:
            stats.skip(f"message:{role}")
    yield Event(kind="session_end", session=session, agent=agent, ts=last_ts, cwd=cwd,
                title=title, meta={"source": "transcript"})


# --------------------------------------------------------------------------- Kimi Code

def _kimi(path: Path, records: Iterator[Any], stats: ReadStats) -> Iterator[Event]:
    agent = "kimi"
    # ~/.kimi/sessions/<work-dir hash>/<session id>/wire.jsonl
    session = path.parent.name if path.name == "wire.jsonl" else path.stem
    cwd = kimi_work_dir(path)
    last_ts = None
    turn = 0
    for record in records:
        if not isinstance(record, Mapping):
            stats.skip("not-an-object")
            continue
        if record.get("type") == "metadata":
            continue
        message = record.get("message")
        if not isinstance(message, Mapping):
            stats.skip("no-message")
            continue
        kind = message.get("type")
        payload = message.get("payload") or {}
        ts = parse_ts(record.get("timestamp")) or last_ts
        last_ts = ts or last_ts
        base: dict[str, Any] = dict(session=session, agent=agent, ts=ts, cwd=cwd)
        if kind in ("TurnBegin", "SteerInput"):
            turn += 1
            text = as_text(payload.get("user_input"))
            if text.strip():
                yield Event(kind="user_prompt", id=f"turn-{turn}-{record.get('timestamp')}",
                            text=text, **base)
        elif kind == "ContentPart":
            if payload.get("type") == "text" and (payload.get("text") or "").strip():
                yield Event(kind="assistant_message", text=payload["text"], **base)
        elif kind == "ToolCall":
            function = payload.get("function") or {}
            arguments = function.get("arguments")
            try:
                arguments = json.loads(arguments) if isinstance(arguments, str) else arguments
            except ValueError:
                pass
            yield Event(kind="tool_call", id=payload.get("id"), tool_name=function.get("name"),
                        tool_input=arguments, **base)
        elif kind == "ToolResult":
            value = payload.get("return_value") or {}
            output = as_text(value.get("output")) or as_text(value.get("message"))
            yield Event(kind="tool_result", id=payload.get("tool_call_id"), tool_output=output,
                        tool_error=bool(value.get("is_error")), **base)
        elif kind == "CompactionBegin":
            yield Event(kind="compaction", **base)
        elif kind in ("TurnEnd", "StepBegin", "StepInterrupted", "StatusUpdate", "CompactionEnd",
                      "ToolCallPart", "HookTriggered", "HookResolved", "MCPLoadingBegin",
                      "MCPLoadingEnd", "ApprovalRequest", "ApprovalResponse", "SubagentEvent",
                      "Notification", "PlanDisplay", "QuestionRequest", "ToolCallRequest"):
            stats.skip(str(kind))
        else:
            stats.skip(str(kind))
    yield Event(kind="session_end", session=session, agent=agent, ts=last_ts, cwd=cwd,
                meta={"source": "transcript"})


def kimi_work_dir(path: Path) -> str | None:
    """The working directory of a Kimi session: its sessions folder is named by the md5
    of the directory, and ``kimi.json`` beside ``sessions/`` lists the directories."""
    import hashlib

    try:
        folder_hash = path.parents[1].name
        meta = json.loads((path.parents[3] / "kimi.json").read_text(encoding="utf-8"))
    except (IndexError, OSError, ValueError):
        return None
    for entry in meta.get("work_dirs") or [] if isinstance(meta, Mapping) else []:
        work_dir = entry.get("path") if isinstance(entry, Mapping) else None
        if isinstance(work_dir, str) and hashlib.md5(work_dir.encode("utf-8")).hexdigest() == folder_hash:
            return work_dir
    return None


# --------------------------------------------------------------------------- plain lines

def _messages(path: Path, records: Iterator[Any], stats: ReadStats) -> Iterator[Event]:
    session = path.stem
    last_ts = None
    for index, record in enumerate(records):
        if not isinstance(record, Mapping):
            stats.skip("not-an-object")
            continue
        session = record.get("session") or record.get("session_id") or session
        events = from_message_line(record, session=str(session), index=index)
        if not events:
            stats.skip(f"role:{record.get('role')}")
        for event in events:
            last_ts = event.ts or last_ts
            yield event
    yield Event(kind="session_end", session=str(session), agent="jsonl", ts=last_ts,
                meta={"source": "transcript"})


def _palace(path: Path, records: Iterator[Any], stats: ReadStats) -> Iterator[Event]:
    sessions: dict[str, Event] = {}
    for record in records:
        try:
            event = from_palace(record)
        except InvalidInputError:
            stats.skip("invalid-event")
            continue
        sessions[event.session] = event
        yield event
    for last in sessions.values():
        if last.kind != "session_end":
            yield Event(kind="session_end", session=last.session, agent=last.agent, ts=last.ts,
                        cwd=last.cwd, meta={"source": "transcript"})


def _hooks(path: Path, records: Iterator[Any], stats: ReadStats) -> Iterator[Event]:
    """A log of hook payloads (Claude Code hook stdin, OpenClaw hook calls), replayed."""
    from palace.capture.events import adapt

    sessions: dict[str, Event] = {}
    for record in records:
        try:
            events = adapt(None, record)
        except InvalidInputError:
            stats.skip("invalid-payload")
            continue
        if not events:
            stats.skip(str(record.get("hook_event_name") or record.get("hook") or "payload")
                       if isinstance(record, Mapping) else "payload")
        for event in events:
            sessions[event.session] = event
            yield event
    for last in sessions.values():
        if last.kind != "session_end":
            yield Event(kind="session_end", session=last.session, agent=last.agent, ts=last.ts,
                        cwd=last.cwd, meta={"source": "transcript"})


# --------------------------------------------------------------------------- discovery

def claude_code_dir() -> Path:
    base = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(base).expanduser() if base else Path.home() / ".claude") / "projects"


def find_transcripts(paths: Sequence[str | os.PathLike]) -> list[Path]:
    """Files, and the ``.jsonl`` files under folders (sorted, so runs are repeatable).
    Claude Code's sub-agent files (``<session>/subagents/``) are left out."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            for file in sorted(path.rglob("*.jsonl")):
                if "subagents" not in file.parts and not file.name.startswith("."):
                    found.append(file)
        elif path.exists():
            found.append(path)
        else:
            raise InvalidInputError(f"no such file or folder: {path}")
    return found
