"""Deterministic refinement: the events of a turn become one observation; the
observations of a session become its summary and its open tasks. No LLM: rules
only, so the same transcript always gives the same memories.

A turn is a user prompt and everything up to the next prompt (assistant messages,
tool calls and their results). Its observation keeps a title, the facts (list
items and lines with decision or status words, Chinese and English), files read
and modified, commands run, errors (type and first line), next steps, and long
tool output cut to its head, its error lines and its tail.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable, Iterator, Mapping

from palace.capture.events import Event
from palace.text.script import HAN_RUN, has_han
from palace.text.words import EN_STOPWORDS

MAX_TURN_TEXT = 64 * 1024     # assistant text kept per turn (bounded memory on huge turns)
MAX_TOOLS = 200
MAX_FACTS = 12
MAX_LINE = 240
OUTPUT_HEAD, OUTPUT_TAIL, OUTPUT_ERRORS = 4, 4, 6

FACT_WORDS = re.compile(
    r"(?i)\b(decided|decide|decision|chose|choose|switched|fixed|fix|resolved|done|completed|"
    r"finished|implemented|added|removed|blocked|blocker|next|because|root cause|due to|"
    r"works now|passing|failing)\b|决定|已完成|完成|修复|解决|阻塞|卡住|下一步|原因|因为|选择|改为|"
    r"采用|通过|失败")
DECISION_WORDS = re.compile(r"(?i)\b(decided|decide|decision|chose|choose|switched|go with|"
                            r"instead of)\b|决定|选择|改为|采用")
DONE_WORDS = re.compile(r"(?i)\b(fixed|resolved|done|completed|finished|implemented|works now|"
                        r"added|removed)\b|已完成|完成|修复|解决")
NEXT_WORDS = re.compile(r"(?i)\b(next steps?|todo|to-do|follow[- ]ups?|remaining|still need(?:s|ed)? to|"
                        r"not yet|left to do|later)\b|下一步|待办|还需要|尚未|未完成|后续|接下来")
# "Next step: do X" -> "do X"
NEXT_LABEL = re.compile(r"(?i)^(?:next steps?|todo|to-do|follow[- ]ups?|下一步|待办|后续|接下来)\s*[:：]\s*")
BLOCKED_WORDS = re.compile(r"(?i)\b(blocked|blocker|waiting (?:on|for)|stuck)\b|阻塞|卡住|等待")
ERROR_LINE = re.compile(
    r"(?:^|\s)((?:[A-Za-z_][\w.]*\.)?[A-Z][A-Za-z]*(?:Error|Exception|Failure|Fault|Interrupt))"
    r"(?::\s*(.*))?$")
ERROR_HINT = re.compile(r"(?i)^\s*(?:error|fatal|failed|failure|panic|traceback|exception|"
                        r"e\s|FAIL\b|✗|×)|\b(?:error|failed|exception|traceback|not found|"
                        r"denied|refused|timed? ?out)\b|错误|失败|异常")
LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+(?:\[[ xX]\]\s+)?(.+)$")
CHECKBOX_OPEN = re.compile(r"^\s*(?:[-*+]|\d{1,2}[.)])\s+\[ \]\s+(.+)$")
CHECKBOX_DONE = re.compile(r"^\s*(?:[-*+]|\d{1,2}[.)])\s+\[[xX]\]\s+(.+)$")
# an explicit to-do written in the text: "TODO: X", "Open TODO: X", "待办：X" (X up to the sentence's end)
TODO_MARK = re.compile(r"(?:^|(?<=[\s（(，,;；>*-]))(?:open\s+)?(?:TODO|待办)\s*[:：]\s*(?P<task>[^\n]+?)"
                       r"(?:(?<=[^\d\s])[.。！!？?](?=\s|$)|$)", re.IGNORECASE | re.MULTILINE)
HEADING = re.compile(r"^\s*(?:#{1,6}\s+|\*\*)?(.+?)(?:\*\*)?\s*[:：]?\s*$")
TRIVIAL_PROMPT = re.compile(
    r"(?i)^\s*(?:hi|hello|hey|yo|thanks?|thank you|thx|ty|ok(?:ay)?|k|yes|no|y|n|sure|cool|nice|"
    r"great|good|continue|go on|go ahead|proceed|bye|你好|您好|谢谢|多谢|好的|好|嗯|行|可以|继续|"
    r"再见)[\s.!?！？。,，~]*$")

READ_TOOLS = {"read", "read_file", "readfile", "view", "notebookread", "cat", "open_file",
              "readmediafile"}
WRITE_TOOLS = {"write", "edit", "multiedit", "notebookedit", "write_file", "writefile",
               "edit_file", "strreplacefile", "str_replace", "apply_patch", "create_file",
               "replace", "patch"}
SHELL_TOOLS = {"bash", "shell", "exec", "run_shell_command", "terminal", "run_command",
               "execute_command", "powershell"}
TODO_TOOLS = {"todowrite", "settodolist", "todo_write", "update_plan"}
PATH_KEYS = ("file_path", "path", "notebook_path", "filePath", "file", "filename", "target_file")


def _hash(*parts: Any) -> str:
    return hashlib.blake2b("\x1f".join(str(p) for p in parts).encode("utf-8", "surrogatepass"),
                           digest_size=10).hexdigest()


def one_line(text: str, limit: int = MAX_LINE) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def cut_output(text: str | None, *, head: int = OUTPUT_HEAD, tail: int = OUTPUT_TAIL,
               errors: int = OUTPUT_ERRORS, width: int = 200) -> str:
    """Long tool output cut to what matters: the first lines, the error lines, the last
    lines, with a note of how much was left out."""
    if not text:
        return ""
    lines = text.splitlines()
    if len(lines) <= head + tail + errors:
        return "\n".join(line[:width] for line in lines)
    keep = set(range(head)) | set(range(len(lines) - tail, len(lines)))
    error_rows = [i for i in range(head, len(lines) - tail) if ERROR_HINT.search(lines[i])]
    keep |= set(error_rows[:errors])
    out, last = [], -1
    for i in sorted(keep):
        if i != last + 1:
            out.append(f"… {i - last - 1} lines cut …")
        out.append(lines[i][:width])
        last = i
    return "\n".join(out)


# --------------------------------------------------------------------------- turns

@dataclass
class ToolUse:
    name: str
    input: Any = None
    output: str = ""
    error: bool = False
    id: str | None = None


@dataclass
class Turn:
    session: str
    agent: str
    key: str
    cwd: str | None = None
    start: datetime | None = None
    end: datetime | None = None
    prompt: str = ""
    texts: list[str] = field(default_factory=list)
    tools: list[ToolUse] = field(default_factory=list)
    text_chars: int = 0

    def add_text(self, text: str) -> None:
        if self.text_chars < MAX_TURN_TEXT and text.strip():
            room = MAX_TURN_TEXT - self.text_chars
            self.texts.append(text[:room])
            self.text_chars += min(len(text), room)


class TurnBuilder:
    """Feeds events, yields completed turns. A tool result joins the call with its id
    (or, without ids, the last call still waiting for one). Tool outputs are cut when
    they arrive, so a turn never holds a whole log."""

    def __init__(self) -> None:
        self.current: Turn | None = None
        self.count = 0

    def _start(self, event: Event, key: str) -> Turn:
        self.count += 1
        return Turn(session=event.session, agent=event.agent, key=key, cwd=event.cwd,
                    start=event.ts, end=event.ts)

    def feed(self, event: Event) -> Iterator[Turn]:
        kind = event.kind
        if kind == "user_prompt":
            if self.current is not None:
                yield self.current
            # no message id: the time of the prompt, or (a replayed log without times)
            # its place in the stream, makes the turn's identity
            key = event.id or _hash(event.session, event.ts.isoformat() if event.ts else self.count,
                                    event.text or "")
            self.current = self._start(event, key)
            self.current.prompt = event.text or ""
            return
        if kind in ("session_end", "reset", "compaction", "turn_end", "session_start"):
            if self.current is not None:
                yield self.current
                self.current = None
            return
        if self.current is None:  # activity before any prompt (a resumed session)
            self.current = self._start(event, event.id or _hash("noprompt", event.ts, event.text,
                                                                event.tool_name))
        turn = self.current
        turn.end = event.ts or turn.end
        turn.cwd = turn.cwd or event.cwd
        if kind == "assistant_message":
            turn.add_text(event.text or "")
        elif kind == "tool_call":
            if len(turn.tools) < MAX_TOOLS:
                turn.tools.append(ToolUse(name=event.tool_name or "tool", input=event.tool_input,
                                          output=cut_output(event.tool_output),
                                          error=event.tool_error, id=event.id))
        elif kind == "tool_result":
            target = None
            for tool in reversed(turn.tools):
                if (event.id and tool.id == event.id) or (not event.id and not tool.output):
                    target = tool
                    break
            if target is None:
                if len(turn.tools) < MAX_TOOLS:
                    turn.tools.append(ToolUse(name=event.tool_name or "tool", id=event.id,
                                              output=cut_output(event.tool_output),
                                              error=event.tool_error))
            else:
                target.output = cut_output(event.tool_output)
                target.error = target.error or event.tool_error

    def finish(self) -> Iterator[Turn]:
        if self.current is not None:
            yield self.current
            self.current = None


def turns_of(events: Iterable[Event]) -> Iterator[Turn]:
    builder = TurnBuilder()
    for event in events:
        yield from builder.feed(event)
    yield from builder.finish()


# --------------------------------------------------------------------------- observations

@dataclass
class Observation:
    """What one turn leaves behind. ``to_extra``/``from_extra`` carry it in the
    memory's frontmatter so a session summary can be rebuilt from stored memories."""

    session: str
    agent: str
    key: str
    project: str
    cwd: str | None
    start: datetime | None
    end: datetime | None
    title: str
    request: str = ""
    facts: list[str] = field(default_factory=list)
    files_read: list[str] = field(default_factory=list)
    files_modified: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    next_steps: list[str] = field(default_factory=list)
    todos: list[tuple[str, str]] = field(default_factory=list)   # (text, todo|doing|done)
    checklist: list[tuple[str, str]] = field(default_factory=list)   # written to-dos (explicit_todos)
    answer: str = ""
    outputs: list[tuple[str, str]] = field(default_factory=list)  # (label, cut output)
    tools: list[str] = field(default_factory=list)
    trivial: bool = False

    def content(self) -> str:
        parts = [self.title]
        if self.request and self.request != self.title:
            parts.append(f"Request: {self.request}")
        sections = (("Facts", self.facts), ("Errors", self.errors), ("Next steps", self.next_steps))
        for label, items in sections:
            if items:
                parts.append(f"{label}:\n" + "\n".join(f"- {item}" for item in items))
        if self.files_modified:
            parts.append("Files modified: " + ", ".join(f"`{f}`" for f in self.files_modified))
        if self.files_read:
            parts.append("Files read: " + ", ".join(f"`{f}`" for f in self.files_read))
        if self.commands:
            parts.append("Commands:\n" + "\n".join(f"- `{c}`" for c in self.commands))
        if self.todos:
            parts.append("Tasks:\n" + "\n".join(f"- [{'x' if s == 'done' else ' '}] {t} ({s})"
                                              for t, s in self.todos))
        if self.answer:
            parts.append(f"Answer: {self.answer}")
        for label, output in self.outputs:
            indented = "\n".join("    " + line for line in output.splitlines())
            parts.append(f"Output of {label}:\n{indented}")
        return "\n\n".join(parts)

    def to_extra(self) -> dict[str, Any]:
        data: dict[str, Any] = {"sessionId": self.session, "agent": self.agent, "turnKey": self.key,
                                "project": self.project}
        if self.request:
            data["request"] = self.request
        if self.cwd:
            data["cwd"] = self.cwd
        if self.end and self.start and self.end != self.start:
            data["endedAt"] = self.end.isoformat()
        for key, value in (("facts", self.facts), ("filesRead", self.files_read),
                           ("filesModified", self.files_modified), ("commands", self.commands),
                           ("errors", self.errors), ("nextSteps", self.next_steps),
                           ("tools", self.tools)):
            if value:
                data[key] = list(value)
        if self.todos:
            data["todos"] = [{"text": t, "state": s} for t, s in self.todos]
        if self.checklist:
            data["checklist"] = [{"text": t, "state": s} for t, s in self.checklist]
        return data

    @classmethod
    def from_memory(cls, memory: Any) -> "Observation":
        extra = memory.extra or {}
        return cls(session=str(extra.get("sessionId", "")), agent=str(extra.get("agent", "")),
                   key=str(extra.get("turnKey", memory.id)), project=str(extra.get("project", "")),
                   cwd=extra.get("cwd"), start=memory.created_at, end=memory.created_at,
                   title=memory.summary or memory.content.split("\n", 1)[0],
                   request=str(extra.get("request") or ""),
                   facts=list(extra.get("facts") or []),
                   files_read=list(extra.get("filesRead") or []),
                   files_modified=list(extra.get("filesModified") or []),
                   commands=list(extra.get("commands") or []),
                   errors=list(extra.get("errors") or []),
                   next_steps=list(extra.get("nextSteps") or []),
                   todos=[(str(t.get("text")), str(t.get("state"))) for t in extra.get("todos") or []
                          if isinstance(t, Mapping)],
                   checklist=[(str(t.get("text")), str(t.get("state"))) for t in extra.get("checklist") or []
                              if isinstance(t, Mapping)],
                   tools=list(extra.get("tools") or []))


def project_of(cwd: str | None) -> str:
    """The room name for a working directory: its last folder name, made safe."""
    if not cwd:
        return "unknown"
    name = cwd.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or "root"
    name = re.sub(r'[\x00-\x1f\x7f\\:*?"<>|/]+', "-", name).strip(" .-") or "root"
    return name[:60]


def _tool_path(tool: ToolUse) -> str | None:
    data = tool.input
    if isinstance(data, Mapping):
        for key in PATH_KEYS:
            value = data.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
    return None


def _patch_paths(data: Any) -> list[str]:
    text = data if isinstance(data, str) else (data.get("input") or data.get("patch") or ""
                                               if isinstance(data, Mapping) else "")
    return re.findall(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", str(text), re.M)


def _command(tool: ToolUse) -> str | None:
    data = tool.input
    if isinstance(data, Mapping):
        value = data.get("command") or data.get("cmd") or data.get("script")
        if isinstance(value, list):
            value = " ".join(str(v) for v in value)
        if isinstance(value, str) and value.strip():
            return one_line(value, 160)
    elif isinstance(data, str) and data.strip():
        return one_line(data, 160)
    return None


def _todos(tool: ToolUse) -> list[tuple[str, str]]:
    data = tool.input if isinstance(tool.input, Mapping) else {}
    items = data.get("todos") or data.get("plan") or data.get("items") or []
    out = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, Mapping):
            continue
        text = item.get("content") or item.get("title") or item.get("step") or item.get("text")
        status = str(item.get("status") or "pending").lower().replace("-", "_")
        state = {"completed": "done", "done": "done", "in_progress": "doing",
                 "blocked": "blocked"}.get(status, "todo")
        if isinstance(text, str) and text.strip():
            out.append((one_line(text, 200), state))
    return out


def error_lines(output: str, limit: int = 2) -> list[str]:
    found = []
    for line in output.splitlines():
        match = ERROR_LINE.search(line.strip())
        if match:
            message = (match.group(2) or "").strip()
            found.append(one_line(f"{match.group(1)}: {message}" if message else match.group(1), 200))
            if len(found) >= limit:
                break
    return found


def _clean_line(line: str) -> str:
    match = LIST_ITEM.match(line)
    text = match.group(1) if match else line
    return one_line(text.strip().strip("*_").strip())


def explicit_todos(text: str) -> list[tuple[str, str]]:
    """The to-dos a message writes out, outside code blocks: unchecked checklist lines
    ("- [ ] X": todo), checked ones ("- [x] X": done) and "TODO: X" (todo). Never the
    narration of a next step ("下一步会…", "Next I'll…"): that is no to-do list."""
    found: list[tuple[str, str]] = []
    in_code = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("```") or line.startswith("~~~"):
            in_code = not in_code
            continue
        if in_code or not line or line.startswith(("|", ">", "$ ")):
            continue   # code, a table row, quoted or shell output: not the agent's list
        for pattern, state in ((CHECKBOX_OPEN, "todo"), (CHECKBOX_DONE, "done")):
            match = pattern.match(line)
            if match:
                found.append((_clean_line(match.group(1)), state))
                break
        else:
            for match in TODO_MARK.finditer(line):
                task = match.group("task").strip().strip("*_").strip()
                before = line[:match.start()].strip(" ，,;；-*")
                if before and len(before) <= 40 and not re.search(r"[.。!！?？:：]", before):
                    task = f"{before}，{task}" if has_han(before) else f"{before}, {task}"
                task = one_line(task, 200)
                if len(task) >= 4 and not DONE_AFTER.search(task):
                    found.append((task, "todo"))
    return [(t, s) for t, s in found if len(t) >= 4]


# "1 月份留下的 TODO 也做了" or "TODO: done": an item reported done is no open to-do
DONE_AFTER = re.compile(r"(?i)^(?:done|fixed|completed|resolved)\b|已(?:完成|做|修复|解决)|也做了|做完了")


def _scan_text(text: str, facts: list[str], next_steps: list[str]) -> None:
    """Facts and next steps out of an assistant message: list items and lines with
    decision/status words; items under a 'Next steps:' heading are next steps (the
    session's summary shows them; they are no tasks: ``explicit_todos``)."""
    under_next = False
    in_code = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        if not line:
            under_next = False
            continue
        item = LIST_ITEM.match(line)
        checkbox = CHECKBOX_OPEN.match(line) or CHECKBOX_DONE.match(line)
        if not item and NEXT_WORDS.search(line) and len(line) < 80 and HEADING.match(line) \
                and (line.rstrip("*").endswith((":", "：")) or line.startswith("#")):
            under_next = True
            continue
        if not item:
            under_next = False
        cleaned = _clean_line(line)
        if len(cleaned) < 4:
            continue
        if checkbox:
            continue   # a checklist line is a to-do (explicit_todos), not a next step
        if (item and under_next) or (not item and NEXT_WORDS.search(line) and not line.startswith("#")):
            cleaned = NEXT_LABEL.sub("", cleaned).strip() or cleaned
            if cleaned not in next_steps:
                next_steps.append(cleaned)
            continue
        if line.startswith("#"):
            continue
        if item or FACT_WORDS.search(line):
            if cleaned not in facts and len(facts) < MAX_FACTS:
                facts.append(cleaned)


def is_trivial_prompt(prompt: str) -> bool:
    return not prompt.strip() or bool(TRIVIAL_PROMPT.match(prompt))


def refine_turn(turn: Turn) -> Observation:
    prompt = turn.prompt.strip()
    facts: list[str] = []
    next_steps: list[str] = []
    checklist: list[tuple[str, str]] = []
    for text in (turn.prompt, *turn.texts):
        if text is not turn.prompt:
            _scan_text(text, facts, next_steps)
        checklist.extend(explicit_todos(text or ""))
    files_read: list[str] = []
    files_modified: list[str] = []
    commands: list[str] = []
    errors: list[str] = []
    outputs: list[tuple[str, str]] = []
    todos: list[tuple[str, str]] = []
    tools: list[str] = []
    meaningful_tools = 0
    for tool in turn.tools:
        name = (tool.name or "tool").lower()
        if name not in tools:
            tools.append(name)
        if tool.input in (None, {}, "", []) and not tool.output:
            continue  # an empty call: nothing to remember
        meaningful_tools += 1
        path = _tool_path(tool)
        if name in TODO_TOOLS:
            todos = _todos(tool) or todos
        elif name in WRITE_TOOLS or (name == "str_replace_based_edit_tool" and
                                     isinstance(tool.input, Mapping) and tool.input.get("command") != "view"):
            for p in ([path] if path else _patch_paths(tool.input)):
                if p not in files_modified:
                    files_modified.append(p)
        elif name in READ_TOOLS or name == "str_replace_based_edit_tool":
            if path and path not in files_read:
                files_read.append(path)
        command = _command(tool) if name in SHELL_TOOLS else None
        if command and command not in commands:
            commands.append(command)
        failed = tool.error or bool(tool.output and error_lines(tool.output, 1)
                                    and name in SHELL_TOOLS)
        if failed:
            found = error_lines(tool.output) if tool.output else []
            if not found:
                first = next((ln for ln in (tool.output or "").splitlines() if ln.strip()), "failed")
                found = [one_line(f"{tool.name} failed: {first}", 200)]
            for line in found:
                if line not in errors and len(errors) < 5:
                    errors.append(line)
            if tool.output and len(outputs) < 3:
                outputs.append((f"{tool.name}" + (f" `{command}`" if command else ""), tool.output))
    files_read = [f for f in files_read if f not in files_modified]
    answer = one_line(turn.texts[-1], 300) if turn.texts else ""
    if prompt:
        title = one_line(prompt.split("\n", 1)[0], 100)
    elif turn.texts:
        title = one_line(turn.texts[0].split("\n", 1)[0], 100)
    elif tools:
        title = "Tool calls: " + ", ".join(tools[:5])
    else:
        title = "(empty turn)"
    trivial = (meaningful_tools == 0 and not facts and not next_steps and not todos and not checklist
               and (is_trivial_prompt(prompt) or (not prompt and not turn.texts)))
    if not prompt and not turn.texts and meaningful_tools == 0:
        trivial = True
    return Observation(session=turn.session, agent=turn.agent, key=turn.key,
                       project=project_of(turn.cwd), cwd=turn.cwd, start=turn.start, end=turn.end,
                       title=title, request=one_line(prompt, 400) if prompt else "",
                       facts=facts, files_read=files_read[:20], files_modified=files_modified[:20],
                       commands=commands[:10], errors=errors, next_steps=next_steps[:8],
                       todos=todos, checklist=checklist, answer=answer, outputs=outputs, tools=tools,
                       trivial=trivial)


# --------------------------------------------------------------------------- sessions

@dataclass
class SessionSummary:
    session: str
    agent: str
    project: str
    cwd: str | None
    title: str
    start: datetime | None
    end: datetime | None
    request: str
    decisions: list[str]
    done: list[str]
    files: list[str]
    errors: list[str]
    next_steps: list[str]
    observation_ids: list[str]
    turns: int
    stored: int
    tasks: list[tuple[str, str, str]]   # (text, state, source) for task memories

    def content(self, tz: Any = None) -> str:
        when = ""
        if self.start:
            start = self.start.astimezone(tz) if tz else self.start
            end = (self.end.astimezone(tz) if tz else self.end) if self.end else None
            when = start.strftime("%Y-%m-%d %H:%M")
            if end and end.date() == start.date() and end != start:
                when += "–" + end.strftime("%H:%M")
        head = f"Session: {self.title}"
        meta = f"{self.agent} · {self.project}" + (f" · {when}" if when else "") + \
               f" · {self.stored} of {self.turns} turns kept"
        parts = [head, meta]
        if self.request:
            parts.append(f"Request: {self.request}")
        for label, items in (("Key decisions", self.decisions), ("Done", self.done),
                             ("Errors", self.errors), ("Next steps", self.next_steps)):
            if items:
                parts.append(f"{label}:\n" + "\n".join(f"- {i}" for i in items))
        if self.files:
            parts.append("Files: " + ", ".join(f"`{f}`" for f in self.files))
        if self.observation_ids:
            parts.append("Observations: " + ", ".join(self.observation_ids))
        return "\n\n".join(parts)


def summarize(observations: list[tuple[str, Observation]], *, session: str, agent: str,
              title: str | None, turns: int) -> SessionSummary:
    """The session memory from its stored observations (id, observation), in order.
    Next steps come from the last turns (earlier ones were usually done since);
    the last to-do list the agent wrote says which of its items are open."""
    first = observations[0][1] if observations else None
    decisions: list[str] = []
    done: list[str] = []
    files: list[str] = []
    errors: list[str] = []
    todos: dict[str, str] = {}
    written: dict[str, str] = {}      # checklist / TODO: items, the last state seen wins
    for _id, obs in observations:
        for fact in obs.facts:
            if DECISION_WORDS.search(fact) and fact not in decisions:
                decisions.append(fact)
            elif DONE_WORDS.search(fact) and fact not in done:
                done.append(fact)
        for f in obs.files_modified + obs.files_read:
            if f not in files:
                files.append(f)
        for e in obs.errors:
            if e not in errors:
                errors.append(e)
        if obs.todos:
            todos = {text: state for text, state in obs.todos}
        for text, state in obs.checklist:
            written.pop(text, None)
            written[text] = state
    next_steps: list[str] = []
    for _id, obs in observations[-2:]:
        for step in obs.next_steps:
            if step not in next_steps:
                next_steps.append(step)
    tasks = merge_tasks([(t, s, "todowrite") for t, s in todos.items()]
                        + [(t, "blocked" if s == "todo" and BLOCKED_WORDS.search(t) else s, "checklist")
                           for t, s in written.items()])
    request = next((o.request for _i, o in observations if o.request), "")
    project = first.project if first else "unknown"
    start = min((o.start for _i, o in observations if o.start), default=None)
    end = max((t for _i, o in observations if (t := o.end or o.start) is not None), default=None)
    return SessionSummary(session=session, agent=agent, project=project,
                          cwd=first.cwd if first else None,
                          title=one_line(title or (first.title if first else session), 100),
                          start=start, end=end, request=request, decisions=decisions[:12],
                          done=done[:12], files=files[:40], errors=errors[:10],
                          next_steps=next_steps[:10], observation_ids=[i for i, _ in observations],
                          turns=turns, stored=len(observations), tasks=tasks[:20])


def task_words(text: str) -> tuple[set[str], set[str]]:
    """What two wordings of one task share: Latin words (folded, a plural's s dropped)
    and CJK bigrams."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    latin = {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in re.findall(r"[a-z0-9]+", folded)}
    cjk: set[str] = set()
    for run in HAN_RUN.findall(folded):
        cjk.update(run[i:i + 2] for i in range(max(1, len(run) - 1)))
    return latin - EN_STOPWORDS, cjk


def _contained(a: set[str], b: set[str], at_least: int) -> bool:
    small = min(len(a), len(b))
    return small >= at_least and len(a & b) / small >= 0.8


def same_task(a: str, b: str) -> bool:
    """One task in two wordings (a TodoWrite item and the "TODO:" line that repeats it):
    nearly all of the shorter one's words are in the longer one, its Latin words alone
    when both name enough of them (a Chinese note about an English to-do)."""
    (la, ca), (lb, cb) = task_words(a), task_words(b)
    return _contained(la | ca, lb | cb, 2) or _contained(la, lb, 3)


def merge_tasks(items: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """Each task once (the first wording kept; a later state of it wins)."""
    out: list[tuple[str, str, str]] = []
    for text, state, source in items:
        for index, (kept, _state, kept_source) in enumerate(out):
            if same_task(kept, text):
                out[index] = (kept, state if source == kept_source else _state, kept_source)
                break
        else:
            out.append((text, state, source))
    return out


def content_hash(*parts: Any) -> str:
    return hashlib.blake2b(json.dumps(parts, ensure_ascii=False, default=str, sort_keys=True)
                           .encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def stable_id(prefix: str, *parts: Any) -> str:
    return f"{prefix}-{_hash(*parts)}"
