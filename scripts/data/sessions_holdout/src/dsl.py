"""A small language for writing Claude Code sessions, and the writer that turns one into the
JSONL transcript Claude Code keeps under ~/.claude/projects/<slug>/<session-id>.jsonl.

What the writer reproduces of the real format (Claude Code 2.x):
* one JSON object a line; ``user`` and ``assistant`` lines carry parentUuid, isSidechain,
  userType, cwd, sessionId, version, gitBranch, type, message, uuid, timestamp;
* an assistant reply is written one content block a line (thinking, text, tool_use), the
  lines of one API response sharing ``message.id`` and ``requestId``;
* a tool's result comes back as a ``user`` line whose content is a ``tool_result`` block,
  with the tool's structured ``toolUseResult`` beside it;
* bookkeeping lines: ``file-history-snapshot`` at the start, ``summary`` (with leafUuid),
  slash-command lines with the local-command caveat (``isMeta``), ``system`` lines
  (``compact_boundary`` then an ``isCompactSummary`` user line), an interrupted request.

Everything is deterministic: ids and timings come from a generator seeded by the session's
key, so rebuilding writes the same bytes.
"""

from __future__ import annotations

import base64
import json
import random
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

SHANGHAI = timezone(timedelta(hours=8))


# --------------------------------------------------------------------------- the language

@dataclass
class Step:
    kind: str                      # user | text | thinking | tool | compact | command | interrupt
    text: str = ""
    tool: str = ""
    tool_input: dict[str, Any] = field(default_factory=dict)
    output: str = ""
    error: bool = False
    result: Any = None             # toolUseResult
    seconds: float = 0.0           # how long the step took (tool run, human typing)
    blocks: bool = False           # a user prompt written as a list of text blocks


def U(text: str, seconds: float = 0, blocks: bool = False) -> Step:
    """A prompt the user typed."""
    return Step("user", text=text, seconds=seconds, blocks=blocks)


def A(text: str) -> Step:
    """A text block of the assistant."""
    return Step("text", text=text)


def TH(text: str) -> Step:
    """A thinking block (private reasoning: not a turn of the conversation)."""
    return Step("thinking", text=text)


def Bash(command: str, output: str, description: str = "", error: bool = False,
         seconds: float = 3) -> Step:
    tool_input: dict[str, Any] = {"command": command}
    if description:
        tool_input["description"] = description
    if error:
        result: Any = "Error: " + output
    else:
        result = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
    return Step("tool", tool="Bash", tool_input=tool_input, output=output, error=error,
                result=result, seconds=seconds)


def Read(path: str, content: str) -> Step:
    lines = content.rstrip("\n").split("\n")
    numbered = "\n".join(f"{i + 1:>6}→{line}" for i, line in enumerate(lines))
    result = {"type": "text", "file": {"filePath": path, "content": content,
                                       "numLines": len(lines), "startLine": 1,
                                       "totalLines": len(lines)}}
    return Step("tool", tool="Read", tool_input={"file_path": path}, output=numbered,
                result=result, seconds=0.5)


def Edit(path: str, old: str, new: str, error: str = "") -> Step:
    tool_input = {"file_path": path, "old_string": old, "new_string": new}
    if error:
        return Step("tool", tool="Edit", tool_input=tool_input, output=error, error=True,
                    result="Error: " + error, seconds=0.3)
    output = f"The file {path} has been updated. Here's the result of running `cat -n` on a " \
             f"snippet of the edited file:\n" + "\n".join(
                 f"{i + 1:>6}→{line}" for i, line in enumerate(new.split("\n")))
    result = {"filePath": path, "oldString": old, "newString": new, "originalFile": None,
              "structuredPatch": [], "userModified": False, "replaceAll": False}
    return Step("tool", tool="Edit", tool_input=tool_input, output=output, result=result,
                seconds=0.3)


def Write(path: str, content: str) -> Step:
    result = {"type": "create", "filePath": path, "content": content, "structuredPatch": []}
    return Step("tool", tool="Write", tool_input={"file_path": path, "content": content},
                output=f"File created successfully at: {path}", result=result, seconds=0.3)


def Grep(pattern: str, output: str, path: str = "", mode: str = "content") -> Step:
    tool_input: dict[str, Any] = {"pattern": pattern, "output_mode": mode}
    if path:
        tool_input["path"] = path
    if mode == "content":
        tool_input["-n"] = True
    lines = [line for line in output.split("\n") if line]
    result = {"mode": mode, "numFiles": len({line.split(":", 1)[0] for line in lines}),
              "filenames": [], "content": output, "numLines": len(lines)}
    return Step("tool", tool="Grep", tool_input=tool_input,
                output=output or "No matches found", result=result, seconds=0.4)


def Todo(*items: tuple[str, str]) -> Step:
    """TodoWrite with (content, status) pairs."""
    todos = [{"content": content, "status": status,
              "activeForm": content[:1].upper() + content[1:]} for content, status in items]
    return Step("tool", tool="TodoWrite", tool_input={"todos": todos},
                output="Todos have been modified successfully. Ensure that you continue to use "
                       "the todo list to track your progress. Please proceed with the current "
                       "tasks if applicable",
                result={"oldTodos": [], "newTodos": todos}, seconds=0.2)


def Compact(summary: str) -> Step:
    """An automatic compaction: the boundary and the summary Claude Code continues from."""
    return Step("compact", text=summary)


def Command(name: str, stdout: str = "") -> Step:
    """A slash command the user ran (/clear, /cost, /model): caveat, command, its output."""
    return Step("command", text=name, output=stdout)


def Interrupt() -> Step:
    return Step("interrupt")


@dataclass
class Session:
    key: str                      # P1, D3, ...: the name questions use
    project: str                  # short project name
    cwd: str
    branch: str
    lang: str                     # zh | en | mixed
    start: str                    # local (Asia/Shanghai) "YYYY-MM-DD HH:MM"
    steps: list[Step]
    summary: str = ""             # a ``summary`` line at the end, as Claude Code writes one
    model: str = "claude-sonnet-4-5-20250929"


# --------------------------------------------------------------------------- the writer

def _version(when: datetime) -> str:
    return ["2.1.9", "2.1.12", "2.1.20", "2.1.29", "2.1.37", "2.1.44", "2.1.52", "2.1.60",
            "2.1.71", "2.1.80", "2.1.88", "2.1.95"][when.month - 1]


def slug(cwd: str) -> str:
    """Claude Code's project folder name: the path with / and . turned into -."""
    return cwd.replace("/", "-").replace(".", "-")


class _Writer:
    def __init__(self, session: Session):
        self.session = session
        self.rng = random.Random("palace-sessions-holdout/" + session.key)
        self.id = self.uuid()
        local = datetime.strptime(session.start, "%Y-%m-%d %H:%M").replace(tzinfo=SHANGHAI)
        self.clock = local.astimezone(timezone.utc) + timedelta(seconds=self.rng.randint(0, 59))
        self.version = _version(local)
        self.lines: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.message_id: str | None = None
        self.request_id: str | None = None
        self.tool_seq = 0

    # ids and time
    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def token(self, n: int) -> str:
        alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789"
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def tick(self, low: float, high: float) -> str:
        self.clock += timedelta(milliseconds=int(self.rng.uniform(low, high) * 1000))
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.clock.microsecond // 1000:03d}Z"

    # lines
    def base(self, kind: str) -> dict[str, Any]:
        return {"parentUuid": self.parent, "isSidechain": False, "userType": "external",
                "cwd": self.session.cwd, "sessionId": self.id, "version": self.version,
                "gitBranch": self.session.branch, "type": kind}

    def emit(self, line: dict[str, Any]) -> None:
        self.lines.append(line)
        if "uuid" in line and line.get("type") in ("user", "assistant", "system"):
            self.parent = line["uuid"]

    def user(self, content: Any, seconds: float, **extra: Any) -> dict[str, Any]:
        line = self.base("user")
        line["message"] = {"role": "user", "content": content}
        line["uuid"] = self.uuid()
        line["timestamp"] = self.tick(seconds * 0.8 + 1, seconds * 1.2 + 2)
        line.update(extra)
        self.emit(line)
        self.message_id = None          # the next assistant line is a new API response
        return line

    def assistant(self, block: dict[str, Any], stop: str | None) -> None:
        if self.message_id is None:
            self.message_id = "msg_01" + self.token(22)
            self.request_id = "req_011C" + self.token(20)
            first = True
        else:
            first = False
        line = self.base("assistant")
        line["message"] = {
            "model": self.session.model, "id": self.message_id, "type": "message",
            "role": "assistant", "content": [block], "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": self.rng.randint(3, 12),
                      "cache_creation_input_tokens": self.rng.randint(200, 4000),
                      "cache_read_input_tokens": self.rng.randint(12000, 60000),
                      "output_tokens": self.rng.randint(20, 900), "service_tier": "standard"}}
        line["requestId"] = self.request_id
        line["uuid"] = self.uuid()
        line["timestamp"] = self.tick(2, 9) if first else self.tick(0.2, 3)
        self.emit(line)

    def write(self) -> list[dict[str, Any]]:
        steps = self.session.steps
        first_prompt = next(i for i, s in enumerate(steps) if s.kind == "user")
        self.snapshot(first_uuid_hint=True)
        for index, step in enumerate(steps):
            nxt = steps[index + 1] if index + 1 < len(steps) else None
            self.step(step, nxt, index == first_prompt)
        if self.session.summary:
            self.lines.append({"type": "summary", "summary": self.session.summary,
                               "leafUuid": self.parent})
        return self.lines

    def snapshot(self, first_uuid_hint: bool) -> None:
        # Claude Code opens a session file with the file-history snapshot of the first prompt;
        # its messageId is that prompt's uuid, known only once written: patched in step().
        self.lines.append({"type": "file-history-snapshot", "messageId": None,
                           "snapshot": {"messageId": None, "trackedFileBackups": {},
                                        "timestamp": None},
                           "isSnapshotUpdate": False})

    def step(self, step: Step, nxt: Step | None, is_first_prompt: bool) -> None:
        if step.kind == "user":
            content: Any = [{"type": "text", "text": step.text}] if step.blocks else step.text
            line = self.user(content, seconds=step.seconds or self.rng.uniform(20, 90))
            if is_first_prompt:
                snap = self.lines[0]
                snap["messageId"] = snap["snapshot"]["messageId"] = line["uuid"]
                snap["snapshot"]["timestamp"] = line["timestamp"]
        elif step.kind == "thinking":
            signature = base64.b64encode(self.rng.randbytes(96)).decode()
            self.assistant({"type": "thinking", "thinking": step.text, "signature": signature}, None)
        elif step.kind == "text":
            ends_turn = nxt is None or nxt.kind in ("user", "command", "interrupt", "compact")
            self.assistant({"type": "text", "text": step.text}, "end_turn" if ends_turn else None)
        elif step.kind == "tool":
            self.tool(step)
        elif step.kind == "compact":
            self.compact(step.text)
        elif step.kind == "command":
            self.command(step.text, step.output)
        elif step.kind == "interrupt":
            self.user([{"type": "text", "text": "[Request interrupted by user]"}], seconds=2)
        else:
            raise ValueError(step.kind)

    def tool(self, step: Step) -> None:
        self.tool_seq += 1
        tool_id = "toolu_01" + self.token(22)
        self.assistant({"type": "tool_use", "id": tool_id, "name": step.tool,
                        "input": step.tool_input}, "tool_use")
        block: dict[str, Any] = {"tool_use_id": tool_id, "type": "tool_result",
                                 "content": step.output}
        if step.error:
            block["is_error"] = True
        self.user([block], seconds=max(step.seconds, 0.2) - 1, toolUseResult=step.result)

    def compact(self, summary: str) -> None:
        boundary = {"parentUuid": None, "logicalParentUuid": self.parent, "isSidechain": False,
                    "userType": "external", "cwd": self.session.cwd, "sessionId": self.id,
                    "version": self.version, "gitBranch": self.session.branch, "type": "system",
                    "subtype": "compact_boundary", "content": "Conversation compacted",
                    "isMeta": False, "timestamp": self.tick(5, 10), "uuid": self.uuid(),
                    "level": "info",
                    "compactMetadata": {"trigger": "auto", "preTokens": self.rng.randint(150000, 168000)}}
        self.emit(boundary)
        text = ("This session is being continued from a previous conversation that ran out of "
                "context. The conversation is summarized below:\n" + summary)
        self.user(text, seconds=30, isVisibleInTranscriptOnly=True, isCompactSummary=True)

    def command(self, name: str, stdout: str) -> None:
        caveat = ("Caveat: The messages below were generated by the user while running local "
                  "commands. DO NOT respond to these messages or otherwise consider them in your "
                  "response unless the user explicitly asks you to.")
        self.user(caveat, seconds=5, isMeta=True)
        self.user(f"<command-name>{name}</command-name>\n            <command-message>"
                  f"{name.lstrip('/')}</command-message>\n            <command-args></command-args>",
                  seconds=1)
        self.user(f"<local-command-stdout>{stdout}</local-command-stdout>", seconds=1)


def render(session: Session) -> tuple[str, str]:
    """(session id, the transcript's text)."""
    writer = _Writer(session)
    lines = writer.write()
    text = "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n"
                   for line in lines)
    return writer.id, text


def session_id(session: Session) -> str:
    return _Writer(session).id


_COMMIT_PROMPTS = {
    "en": ["looks good, commit it", "commit this and push please", "ok, commit and open a PR",
           "great. commit it"],
    "zh": ["提交一下吧", "commit 一下然后推上去", "可以，提个 MR", "好，提交"],
}


def Commit(lang: str, message: str, branch: str, variant: int = 0) -> list[Step]:
    """The closing exchange most sessions end with: the user asks for a commit."""
    prompts = _COMMIT_PROMPTS["en" if lang == "en" else "zh"]
    prompt = prompts[variant % len(prompts)]
    sha = format(abs(hash_text(message)) % (16 ** 7), "07x")
    command = f"git add -A && git commit -qm {json.dumps(message, ensure_ascii=False)} && git push -q -u origin {branch}"
    if "PR" in prompt or "MR" in prompt:
        tool = "gh pr create --fill" if lang == "en" else "glab mr create --fill --yes"
        command += f" && {tool}"
    output = f"[{branch} {sha}] {message}"
    reply = (f"Committed `{sha}` and pushed `{branch}`." if lang == "en"
             else f"已提交 `{sha}` 并推送到 `{branch}`。")
    return [U(prompt), Bash(command, output, seconds=6), A(reply)]


def hash_text(text: str) -> int:
    """A hash that does not change between runs (str hash is salted per process)."""
    value = 0
    for char in text:
        value = (value * 1000003 + ord(char)) % (2 ** 61 - 1)
    return value
