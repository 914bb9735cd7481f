"""Where live capture keeps what waits between hook calls, behind one small seam.

Hooks call ``palace capture`` once per event, each a new process, so a turn's events
wait somewhere until the turn ends: a per-session *spool* (the events so far, already
cleaned of secrets, and a little state: the turn counter, the title), and OpenClaw's
``sessionKey → sessionId`` map. ``CaptureState`` is that somewhere:

- ``visit(session)``: a context manager holding the session's spool exclusively
  (no other process or machine reads or writes it until it ends), yielding a
  ``SpoolVisit`` to ``read`` / ``write`` / ``delete`` it;
- ``learn_session_keys(learned, wanted)``: record sessionIds newly seen with their
  keys, return ``(known, changed)``: the sessionId of every key in ``wanted`` or
  ``learned`` that has one, and the keys whose sessionId this call changed.

Locally (this module) they are files under ``<palace>/.capture/spool/``, each behind
a lock file (``palace.store.locks``) and rewritten whole (``palace.store.atomic``). On
Postgres (``palace.backends.postgres.capture``) they are rows of the palace's database,
locked with ``SELECT … FOR UPDATE``, so two machines capturing one session into one
palace share them; each scope has its own.

Events are plain dicts here (``Event.to_dict``); the capture pipeline parses them.
"""

from __future__ import annotations

import hashlib
import json
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator, Mapping, Protocol

from palace.store.atomic import atomic_write
from palace.store.locks import file_lock

# the sessionKey map's spool slot: a name no host session has (the file name it always had)
SESSION_KEYS = "\0openclaw-session-keys"


class SpoolVisit(Protocol):
    def read(self) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """(events waiting, state); a spool never written is ``([], {"turns": 0})``."""

    def write(self, events: list[dict[str, Any]], state: Mapping[str, Any]) -> None: ...

    def delete(self) -> None: ...


class CaptureState(Protocol):
    def visit(self, session: str) -> Any:  # ContextManager[SpoolVisit]
        ...

    def learn_session_keys(self, learned: Mapping[str, str],
                           wanted: Iterable[str]) -> tuple[dict[str, str], dict[str, str]]: ...


def session_file_name(session: str) -> str:
    """A spool's file name: a digest (a session id may hold any character)."""
    return hashlib.blake2b(session.encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()


class FileSpool:
    """One session's spool file (JSON lines: a state line, then the events)."""

    def __init__(self, path: Path):
        self.path = path

    def read(self) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        events: list[dict[str, Any]] = []
        state: dict[str, Any] = {"turns": 0}
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return events, state
        for line in lines:
            try:
                data = json.loads(line)
            except ValueError:
                continue  # a torn line from a crash: the rest of the turn still counts
            if not isinstance(data, dict):
                continue
            if "state" in data and isinstance(data["state"], dict):
                state = data["state"]
            else:
                events.append(data)
        return events, state

    def write(self, events: list[dict[str, Any]], state: Mapping[str, Any]) -> None:
        def lines(handle: BinaryIO) -> None:
            handle.write((json.dumps({"state": dict(state)}) + "\n").encode("utf-8"))
            for event in events:
                handle.write((json.dumps(event, ensure_ascii=False, default=str) + "\n").encode("utf-8"))

        atomic_write(self.path, lines)

    def delete(self) -> None:
        self.path.unlink(missing_ok=True)


class FileCaptureState:
    """The local backend's: files beside the palace, one lock file per session."""

    def __init__(self, folder: Path):
        self.spool_dir = Path(folder) / "spool"

    def spool_path(self, session: str) -> Path:
        return self.spool_dir / f"{session_file_name(session)}.jsonl"

    @contextmanager
    def _locked(self, path: Path) -> Iterator[Path]:
        with file_lock(path.with_suffix(".lock")):
            yield path

    @contextmanager
    def visit(self, session: str) -> Iterator[FileSpool]:
        with self._locked(self.spool_path(session)) as path:
            yield FileSpool(path)

    def learn_session_keys(self, learned: Mapping[str, str],
                           wanted: Iterable[str]) -> tuple[dict[str, str], dict[str, str]]:
        with self._locked(self.spool_path(SESSION_KEYS)) as path:
            try:
                known = json.loads(path.read_text(encoding="utf-8"))
                if not isinstance(known, dict):
                    known = {}
            except (FileNotFoundError, ValueError):
                known = {}
            changed = {k: s for k, s in learned.items() if known.get(k) != s}
            if changed:
                known.update(changed)
                atomic_write(path, json.dumps(known))
        return {str(k): str(v) for k, v in known.items()}, changed
