"""From events to memories: privacy first, then refinement, then idempotent writes.

``Capturer`` is the one place where captured text meets the manager, and it only
uses the manager's public API (``store``/``get``/``update``/``list``). Every memory
it writes has a stable id derived from the host's session and message ids, so
importing a transcript twice, or a transcript that grew, writes only what changed;
a memory the user deleted stays deleted.

Live events (hooks call ``palace capture`` once per event, each a new process) wait
in a per-session spool — already cleaned — until their turn ends (the next prompt, a
Stop/agent_end, a compaction, the session end): files under
``<palace>/.capture/spool/`` locally, rows of the database on Postgres, so machines
capturing one session into one palace share it (``palace.backends.capture_state``).

``capture(events, defer=True)`` only appends them to the spool (what a hook that must
cost nothing does); the next capture without ``defer`` (or ``drain``) replays the
spool in order, so a deferred turn end is processed exactly as if it had been live.
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from palace.backends.capture_state import FileCaptureState
from palace.errors import InvalidInputError, PalaceError
from palace.capture.events import Event, from_palace
from palace.capture.privacy import Exclusions, Redactor, load_key
from palace.capture.refine import (PATH_KEYS, Observation, Turn, TurnBuilder, content_hash, cut_output,
                     project_of, refine_turn, same_task, stable_id, summarize, _hash)
from palace.capture.transcripts import ReadStats, claude_code_final_answer, read_transcript
from palace.features.palace_api import Palace

CAPTURE_DIR = ".capture"
DEFERRED = "deferred"  # meta mark of a spooled event no capture has judged yet
OBSERVATION_IMPORTANCE = 0.2   # low: fades unless recalled
SESSION_IMPORTANCE = 0.5
TASK_IMPORTANCE = 0.6
TASK_STATES = ("todo", "doing", "blocked", "done")
_STATE_RANK = {"todo": 0, "blocked": 1, "doing": 2, "done": 3}
# tool input keys worth keeping (paths, commands, to-do lists); file bodies are not
_INPUT_KEYS = set(PATH_KEYS) | {"command", "cmd", "script", "todos", "plan", "items",
                                "description", "pattern", "query", "url", "input", "patch"}
# A live session's summary is rebuilt after its first turn, every this many turns, and
# at its end (or compaction): rebuilding it after every turn costs O(turns) each time.
SUMMARY_EVERY_TURNS = 10
_MULTILINE_RULES = ("private-key", "putty-private-key")


# Hooks carry no message ids and transcripts do, so one turn seen both ways gets two
# keys. Its twin is the observation of the same session with the same prompt whose
# start lies within this many seconds (a hook's clock against the transcript's).
TWIN_WINDOW_S = 120.0



def room_of(project: str, session: str) -> str:
    return f"capture/{project}/{_hash(session)[:8]}"


def task_room(project: str) -> str:
    return f"capture/{project}/tasks"


@dataclass
class CaptureReport:
    accepted: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: int = 0
    trivial: int = 0
    excluded: int = 0
    deleted_kept: int = 0
    observations: list[str] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    turns: dict[str, list[int]] = field(default_factory=dict)   # session -> [turns, stored]
    redacted: int = 0
    private_spans: int = 0

    @property
    def stored(self) -> int:
        return self.created + self.updated

    def to_dict(self) -> dict[str, Any]:
        return {"accepted": self.accepted, "stored": self.stored, "skipped": self.skipped,
                "created": self.created, "updated": self.updated, "unchanged": self.unchanged,
                "trivial": self.trivial, "excluded": self.excluded,
                "observations": list(dict.fromkeys(self.observations)),
                "sessions": list(dict.fromkeys(self.sessions)),
                "tasks": list(dict.fromkeys(self.tasks)), "redacted": self.redacted,
                "private_spans": self.private_spans,
                "turns": {k: {"turns": v[0], "stored": v[1]} for k, v in self.turns.items()},
                "files": list(self.files), "errors": list(self.errors)}


def _input_subset(value: Any) -> Any:
    """Only the parts of a tool input that refinement uses: a Write's whole file body
    is neither needed nor worth the risk of keeping."""
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if key in _INPUT_KEYS:
                if key in ("input", "patch") and isinstance(item, str):
                    item = "\n".join(ln for ln in item.splitlines() if ln.startswith("*** "))
                out[key] = item
        return out
    if isinstance(value, str):
        return value[:2000]
    return None


class Capturer:
    def __init__(self, pm: Palace, *, redactor: Redactor | None = None,
                 exclusions: Exclusions | None = None):
        self.pm = pm
        self.folder = Path(pm.root) / CAPTURE_DIR
        self.folder.mkdir(parents=True, exist_ok=True)
        self.redactor = redactor or Redactor(load_key(self.folder))
        self.exclusions = exclusions or Exclusions.from_settings(pm.settings)
        # the open turns' events and OpenClaw's sessionKey map: files here, shared
        # rows on Postgres (palace.backends.capture_state)
        self.state = pm.capture_state(self.folder)
        self.report = CaptureReport()
        self._excluded_calls: set[str] = set()
        self._room_turns: dict[str, list[Any]] = {}   # room -> its observations, read once
        self._claimed: set[str] = set()               # twins already matched in this run

    # ------------------------------------------------------------------ privacy

    def _clean_output(self, text: str | None) -> str | None:
        if text is None:
            return None
        r = self.redactor
        text = r.strip_private(text)
        if "PRIVATE KEY" in text or "PuTTY-User-Key" in text:
            text = r.redact_rules(text, _MULTILINE_RULES)
        # select the lines worth keeping first (cheap), then look for secrets in them
        return r.redact(cut_output(text, width=100_000))

    def sanitize(self, event: Event) -> Event | None:
        """The event as it may be kept, or None when configuration excludes it."""
        ex = self.exclusions
        if ex.project(event.cwd, project_of(event.cwd) if event.cwd else None):
            self.report.excluded += 1
            return None
        if event.kind in ("tool_call", "tool_result"):
            path = None
            if isinstance(event.tool_input, Mapping):
                path = next((str(event.tool_input[k]) for k in PATH_KEYS
                             if isinstance(event.tool_input.get(k), str)), None)
            if (ex.tool(event.tool_name) or ex.path(path)
                    or (event.kind == "tool_result" and event.id in self._excluded_calls)):
                if event.id:
                    self._excluded_calls.add(event.id)
                self.report.excluded += 1
                return None
        r = self.redactor
        text = r.clean(event.text) if event.text else event.text
        return event.with_text(
            text=text, tool_output=self._clean_output(event.tool_output),
            tool_input=r.clean_value(_input_subset(event.tool_input)),
            cwd=r.clean(event.cwd) if event.cwd else event.cwd,
            reason=r.clean(event.reason) if event.reason else event.reason,
            title=r.clean(event.title) if event.title else event.title,
            meta={k: r.clean_value(v) for k, v in event.meta.items()
                  if k in ("source", "transcript_path", "channelMessage")})

    # ------------------------------------------------------------------ writes

    def _put(self, memory_id: str, content: str, *, summary: str, type: str, importance: float,
             location: str, tags: list[str], created_at: Any, extra: dict[str, Any],
             source: str) -> str:
        digest = content_hash(content, summary, tags, location, extra)
        extra = dict(extra, captureHash=digest)
        existing = self.pm.get(memory_id, record_access=False)
        if existing is not None:
            if existing.extra.get("captureHash") == digest:
                self.report.unchanged += 1
                return "unchanged"
            keep = {k: v for k, v in existing.extra.items() if k in ("taskState",)}
            self.pm.update(memory_id, content=content, summary=summary, tags=tags,
                           extra={**extra, **keep})
            self.report.updated += 1
            return "updated"
        try:
            self.pm.store(content, id=memory_id, summary=summary, type=type, importance=importance,
                          location=location, tags=tags, created_at=created_at, source=source,
                          extra=extra)
        except InvalidInputError:
            # the id exists in the trash: the user deleted this memory; respect that
            self.report.deleted_kept += 1
            return "deleted"
        self.report.created += 1
        return "created"

    def store_observation(self, obs: Observation, index: int, *,
                          turn_source: str = "transcript") -> str | None:
        """``turn_source``: "transcript" (an ingested file, the fuller record) or "live"
        (hooks). A live turn never overwrites its transcript twin."""
        memory_id = stable_id("obs", obs.agent, obs.session, obs.key)
        room = room_of(obs.project, obs.session)
        twin = self._twin(obs, memory_id, room, turn_source)
        if twin is not None:
            self._claimed.add(twin.id)
            if turn_source == "live" and twin.extra.get("turnSource") == "transcript":
                self.report.unchanged += 1
                self.report.observations.append(twin.id)
                return str(twin.id)
            memory_id = twin.id
        extra = obs.to_extra()
        extra.update(session=stable_id("ses", obs.agent, obs.session), turnIndex=index,
                     turnSource=turn_source)
        outcome = self._put(memory_id, obs.content(), summary=obs.title, type="observation",
                            importance=OBSERVATION_IMPORTANCE, location=room,
                            tags=["observation", obs.agent], created_at=obs.start, extra=extra,
                            source="capture")
        if outcome == "deleted":
            return None
        self._claimed.add(memory_id)
        self.report.observations.append(memory_id)
        return memory_id

    def _twin(self, obs: Observation, memory_id: str, room: str, turn_source: str) -> Any:
        """The observation already stored for this turn under its other key, if any:
        first one that took this turn's key before (a re-import), else the unmatched one
        of the other source (hooks for a transcript's turn, and the reverse) with the same
        prompt nearest in time within TWIN_WINDOW_S. Two turns of one source are two
        turns, however alike ("continue", twice in a minute)."""
        if room not in self._room_turns:
            self._room_turns[room] = self.pm.list(location=room, type="observation", status="all")
        stored = [m for m in self._room_turns[room]
                  if m.extra.get("sessionId") == obs.session and m.id != memory_id]
        if any(m.id == memory_id for m in self._room_turns[room]):
            return None
        for memory in stored:
            if memory.extra.get("turnKey") == obs.key:
                return memory
        request = " ".join(obs.request.split())
        if not request or obs.start is None:
            return None
        best, best_gap = None, TWIN_WINDOW_S
        for memory in stored:
            if (memory.id in self._claimed or memory.extra.get("turnSource") == turn_source
                    or " ".join(str(memory.extra.get("request") or "").split()) != request):
                continue
            gap = abs((memory.created_at - obs.start).total_seconds())
            if gap <= best_gap:
                best, best_gap = memory, gap
        return best

    def store_session(self, observations: list[tuple[str, Observation]], *, session: str,
                      agent: str, title: str | None, turns: int) -> str | None:
        if not observations:
            return None
        summary = summarize(observations, session=session, agent=agent, title=title, turns=turns)
        memory_id = stable_id("ses", agent, session)
        known = self._project_tasks(summary.project) if summary.tasks else []
        task_ids = [self._task_id(summary.project, text, known) for text, _state, _source in summary.tasks]
        extra = {"sessionId": session, "agent": agent, "project": summary.project,
                 "observations": summary.observation_ids, "turns": turns,
                 "storedTurns": summary.stored}
        if task_ids:
            extra["tasks"] = task_ids
        if summary.cwd:
            extra["cwd"] = summary.cwd
        if summary.end:
            extra["endedAt"] = summary.end.isoformat()
        outcome = self._put(memory_id, summary.content(self.pm.tz), summary=f"Session: {summary.title}",
                            type="session", importance=SESSION_IMPORTANCE,
                            location=room_of(summary.project, session), tags=["session", agent],
                            created_at=summary.start, extra=extra, source="capture")
        if outcome != "deleted":
            self.report.sessions.append(memory_id)
        for (text, state, source), task_id in zip(summary.tasks, task_ids):
            self._store_task(task_id, text, state, source, summary, memory_id)
        self.report.turns[session] = [turns, summary.stored]
        return memory_id

    def _project_tasks(self, project: str) -> list[tuple[str, str]]:
        """(id, text) of the tasks capture already keeps for ``project``."""
        room = task_room(project)
        return [(m.id, m.summary or m.content) for m in self.pm.list(location=room, type="task", limit=10_000,
                                                                      status="all")
                if m.location == room]

    @staticmethod
    def _task_id(project: str, text: str, known: list[tuple[str, str]]) -> str:
        """A task another session already left (in other words: same_task) keeps its id:
        it is stored once."""
        for task_id, kept in known:
            if same_task(kept, text):
                return task_id
        task_id = stable_id("task", project, " ".join(text.lower().split()))
        known.append((task_id, text))
        return task_id

    def _store_task(self, task_id: str, text: str, state: str, source: str, summary: Any,
                    session_id: str) -> None:
        existing = self.pm.get(task_id, record_access=False)
        if existing is not None:
            old = str(existing.extra.get("taskState", "todo"))
            # a task only moves forward: a re-import never reopens what was closed
            if _STATE_RANK.get(state, 0) > _STATE_RANK.get(old, 0) and old != "done":
                self.pm.update(task_id, extra={"taskState": state})
                self.report.updated += 1
            else:
                self.report.unchanged += 1
            self.report.tasks.append(task_id)
            return
        if state == "done":
            return  # finished within the session it appeared in: nothing left open
        # the task's text alone: where it came from is frontmatter, not words search matches
        try:
            self.pm.store(text, id=task_id, summary=text, type="task", importance=TASK_IMPORTANCE,
                          location=task_room(summary.project), tags=["task", summary.agent],
                          created_at=summary.end or summary.start, source="capture",
                          extra={"taskState": state, "sessionId": summary.session, "session": session_id,
                                 "sessionTitle": summary.title, "agent": summary.agent,
                                 "project": summary.project, "taskSource": source})
        except InvalidInputError:
            self.report.deleted_kept += 1
            return
        self.report.created += 1
        self.report.tasks.append(task_id)

    # ------------------------------------------------------------------ transcripts

    def ingest_file(self, path: str | os.PathLike, *, progress: Callable[[int], None] | None = None) -> ReadStats:
        stats = ReadStats(str(path))
        before = (self.redactor.stats.secrets, self.redactor.stats.private_spans)
        state: dict[str, Any] = {"session": None}

        def finish() -> None:
            if state["session"] is None:
                return
            for turn in state["builder"].finish():
                self._turn(turn, state)
            self.store_session(state["obs"], session=state["session"], agent=state["agent"],
                               title=state["title"], turns=state["turns"])
            state["session"] = None

        for raw in read_transcript(path, stats=stats, progress=progress):
            if raw.session != state["session"]:
                finish()
                state.update(session=raw.session, agent=raw.agent, builder=TurnBuilder(),
                             obs=[], turns=0, title=None)
            event = self.sanitize(raw)
            if event is None:
                continue
            self.report.accepted += 1
            if event.kind == "session_end":
                state["title"] = event.title or state["title"]
                finish()
                continue
            for turn in state["builder"].feed(event):
                self._turn(turn, state)
        finish()
        self.report.redacted += self.redactor.stats.secrets - before[0]
        self.report.private_spans += self.redactor.stats.private_spans - before[1]
        self.report.files.append(stats.to_dict())
        return stats

    def _turn(self, turn: Turn, state: dict[str, Any]) -> None:
        state["turns"] += 1
        obs = refine_turn(turn)
        if obs.trivial:
            self.report.trivial += 1
            self.report.skipped += 1
            return
        memory_id = self.store_observation(obs, state["turns"])
        if memory_id:
            obs.outputs, obs.answer = [], ""   # the summary needs neither: keep memory small
            state["obs"].append((memory_id, obs))

    # ------------------------------------------------------------------ live events

    def spool_path(self, session: str) -> Path:
        """The local backend's spool file of ``session`` (on Postgres, a database row)."""
        return FileCaptureState(self.folder).spool_path(session)

    @contextmanager
    def _spool(self, session: str) -> Iterator[Any]:
        """The session's spool, held exclusively (see palace.backends.capture_state)."""
        with self.state.visit(session) as spool:
            yield spool

    def _read_spool(self, spool: Any) -> tuple[list[Event], dict[str, Any]]:
        raw, state = spool.read()
        events: list[Event] = []
        for data in raw:
            try:
                events.append(from_palace(data))
            except PalaceError:
                continue  # an event this palace no longer reads: the rest of the turn counts
        return events, state

    def _write_spool(self, spool: Any, events: list[Event], state: dict[str, Any]) -> None:
        spool.write([json.loads(json.dumps(e.to_dict(), ensure_ascii=False, default=str)) for e in events],
                    state)

    def capture(self, events: Iterable[Event], *, defer: bool = False) -> CaptureReport:
        """Live events, in order. Consecutive events of one session share one visit to
        its spool (one lock, one read, one write): a batch costs what its turns cost.
        ``defer``: cleaned and appended to the spool only; the turns they end are
        stored by the next capture of the session without ``defer``, or by ``drain``."""
        before = (self.redactor.stats.secrets, self.redactor.stats.private_spans)
        run: list[Event] = []
        for raw in self._resolve_session_keys(list(events)):
            if raw.ts is None:  # hooks carry no time: the moment it happened is now
                raw = raw.with_text(ts=datetime.now(timezone.utc).replace(microsecond=0))
            event = self.sanitize(raw)
            if event is None:
                self.report.skipped += 1
                continue
            self.report.accepted += 1
            if run and run[-1].session != event.session:
                self._capture_run(run[0].session, run, defer)
                run = []
            run.append(event)
        if run:
            self._capture_run(run[0].session, run, defer)
        self.report.redacted += self.redactor.stats.secrets - before[0]
        self.report.private_spans += self.redactor.stats.private_spans - before[1]
        return self.report

    # OpenClaw names a conversation by its sessionKey and the transcript by its
    # sessionId; message hooks carry only the key. The last sessionId seen with a key
    # is kept (the capture state's sessionKey map), so those events join their session.

    def _resolve_session_keys(self, events: list[Event]) -> list[Event]:
        learned = {e.meta["sessionKey"]: e.session for e in events
                   if e.meta.get("sessionKey") and e.meta["sessionKey"] != e.session}
        wanted = {e.session for e in events if e.meta.get("sessionKey") == e.session}
        if not learned and not wanted:
            return events
        known, changed = self.state.learn_session_keys(learned, wanted)
        for key, session in changed.items():
            self._move_pending(key, session)
        return [replace(e, session=known[e.session])
                if e.meta.get("sessionKey") == e.session and e.session in known else e for e in events]

    def _move_pending(self, key: str, session: str) -> None:
        """Events filed under the bare key before its sessionId was known open the turn."""
        with self._spool(key) as spool:
            moved, _state = self._read_spool(spool)
            spool.delete()
        if moved:
            with self._spool(session) as spool:
                pending, state = self._read_spool(spool)
                self._write_spool(spool, [replace(e, session=session) for e in moved] + pending, state)

    def drain(self, sessions: Iterable[str]) -> CaptureReport:
        """Store the turns that deferred events ended, in these sessions."""
        for session in dict.fromkeys(sessions):
            self._capture_run(session, [], defer=False)
        return self.report

    def _capture_run(self, session: str, events: list[Event], defer: bool) -> None:
        with self._spool(session) as spool:
            spooled, state = self._read_spool(spool)
            if defer:
                marked = [replace(e, meta={**e.meta, DEFERRED: True}) for e in events]
                self._write_spool(spool, spooled + marked, state)
                return
            # what waits is the open turn's events, and any the hooks deferred: replayed
            # in order, they are processed as they would have been when they came (the
            # open turn's were judged when they came: a request is no twin of itself)
            pending: list[Event] = []
            for index, event in enumerate(spooled + events):
                fresh = index >= len(spooled) or bool(event.meta.get(DEFERRED))
                if event.meta.get(DEFERRED):
                    event = replace(event, meta={k: v for k, v in event.meta.items() if k != DEFERRED})
                pending = self._live_event(event, pending, state, fresh=fresh)
            if spooled or events:
                self._write_spool(spool, pending, state)

    def _live_event(self, event: Event, pending: list[Event], state: dict[str, Any], *,
                    fresh: bool = True) -> list[Event]:
        if fresh and _repeats_a_request(event, pending, state):
            return pending
        if event.kind not in ("user_prompt", "turn_end", "session_end", "reset", "compaction",
                              "session_start"):
            pending.append(event)
            return pending
        answer = self._transcript_answer(event, pending)
        if answer is not None:
            pending.append(answer)
        pending_turns = list(_turns_of(pending))
        for turn in pending_turns:
            state["turns"] = state.get("turns", 0) + 1
            obs = refine_turn(turn)
            if obs.trivial:
                self.report.trivial += 1
                self.report.skipped += 1
            else:
                self.store_observation(obs, state["turns"], turn_source="live")
        if event.title:
            state["title"] = event.title
        if event.kind in ("session_end", "reset", "compaction") or (
                event.kind == "turn_end" and pending_turns
                and state["turns"] % SUMMARY_EVERY_TURNS in (1, 0)):
            self._summarize_live(event, state)
        # a prompt opens the next turn; the turn counter lives on after a session end,
        # so a resumed session continues its numbering
        if event.kind != "user_prompt":
            return []
        state["lastRequest"] = {"text": _request_text(event), "at": event.ts.isoformat() if event.ts else None}
        return [event]

    def _transcript_answer(self, event: Event, pending: list[Event]) -> Event | None:
        """A Claude Code turn that ends without its answer (a Stop hook from before
        ``last_assistant_message``): the answer from the transcript the hook named, read
        now, when the turn is stored (the host writes the file after the hook fires)."""
        path = event.meta.get("transcript_path")
        if event.kind != "turn_end" or event.agent != "claude-code" or not isinstance(path, str) \
                or not path.endswith(".jsonl"):
            return None
        prompts = [i for i, e in enumerate(pending) if e.kind == "user_prompt"]
        if not prompts or any(e.kind == "assistant_message" for e in pending[prompts[-1]:]):
            return None
        calls = sum(e.kind == "tool_call" for e in pending[prompts[-1]:])
        text = claude_code_final_answer(path, pending[prompts[-1]].text or "", tool_calls=calls,
                                        clean=self.redactor.clean)
        if not text:
            return None
        return event.with_text(kind="assistant_message", text=self.redactor.clean(text),
                               meta={"source": "transcript"})

    def _summarize_live(self, event: Event, state: dict[str, Any]) -> None:
        project = project_of(event.cwd) if event.cwd else None
        memories = []
        if project:
            memories = self.pm.list(location=room_of(project, event.session), type="observation",
                                    status="all")
        else:  # no cwd on this event: find the session's room through its observations
            memories = [m for m in self.pm.list(location="capture", type="observation", status="all")
                        if m.extra.get("sessionId") == event.session]
        memories = [m for m in memories if m.extra.get("sessionId") == event.session]
        memories.sort(key=lambda m: (m.extra.get("turnIndex", 0), m.created_at))
        observations = [(m.id, Observation.from_memory(m)) for m in memories]
        self.store_session(observations, session=event.session, agent=event.agent,
                           title=state.get("title"), turns=state.get("turns", len(observations)))


def _request_text(event: Event) -> str:
    return " ".join((event.text or "").split())


def _repeats_a_request(event: Event, pending: list[Event], state: Mapping[str, Any]) -> bool:
    """Whether a prompt is a request already given by another hook, and so left out.
    OpenClaw reports a channel message twice: through message_received (the channel's
    dispatch, fired and forgotten) and through its run's before_prompt_build, from
    plugin instances that cannot tell each other. They come in either order, and the
    channel's report may come after the run has ended. So a prompt repeating the open
    turn's request is left out, and so is a channel message repeating the session's
    last request within TWIN_WINDOW_S. The same words sent again by the user come with
    a run of their own, whose before_prompt_build opens their turn."""
    if event.kind != "user_prompt":
        return False
    text = _request_text(event)
    if pending and pending[0].kind == "user_prompt":
        return text == _request_text(pending[0])
    last = state.get("lastRequest") or {}
    if not event.meta.get("channelMessage") or text != last.get("text") or not last.get("at") or not event.ts:
        return False
    return abs((event.ts - datetime.fromisoformat(last["at"])).total_seconds()) <= TWIN_WINDOW_S


def _turns_of(events: list[Event]) -> Iterator[Turn]:
    builder = TurnBuilder()
    for event in events:
        yield from builder.feed(event)
    yield from builder.finish()
