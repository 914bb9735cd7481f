"""Live capture's waiting state in the database (``palace.backends.capture_state``).

``capture_spools`` holds one row per (scope, session): the events of the open turn
(JSON lines, already cleaned of secrets) and the session's state (turn counter,
title). ``capture_session_keys`` maps OpenClaw's sessionKey to its sessionId. Both
carry the scope the capturing client writes into (``MEMORY_SCOPE``) under the same
row-level security as the memories (migration 6), so two agents capturing sessions
with the same id keep two spools and never see each other's.

A visit holds the session's row with ``SELECT … FOR UPDATE`` for as long as the
pipeline works on it (in place of the local flock): a second process or machine
capturing the same session waits, then reads what the first left. The visit runs on
a connection of a second small pool (``PostgresPalace.dedicated_connection``), so
visitors waiting on one row never use up the connections the lock holder needs to
write its memories.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Mapping

from palace.errors import InvalidInputError

MIGRATION = """
CREATE TABLE IF NOT EXISTS capture_spools (
    scope TEXT NOT NULL, session TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT '{"turns": 0}',
    events TEXT NOT NULL DEFAULT '',          -- JSON lines, one event each
    updated_ts DOUBLE PRECISION NOT NULL DEFAULT extract(epoch FROM clock_timestamp()),
    PRIMARY KEY (scope, session)
);
CREATE TABLE IF NOT EXISTS capture_session_keys (
    scope TEXT NOT NULL, key TEXT NOT NULL, session_id TEXT NOT NULL,
    PRIMARY KEY (scope, key)
);
ALTER TABLE capture_spools ENABLE ROW LEVEL SECURITY;
ALTER TABLE capture_spools FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS capture_spools_scoped ON capture_spools;
CREATE POLICY capture_spools_scoped ON capture_spools USING (palace_scope_visible(scope))
    WITH CHECK (palace_scope_visible(scope));
ALTER TABLE capture_session_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE capture_session_keys FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS capture_session_keys_scoped ON capture_session_keys;
CREATE POLICY capture_session_keys_scoped ON capture_session_keys USING (palace_scope_visible(scope))
    WITH CHECK (palace_scope_visible(scope));
"""


def _events(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict):
            out.append(data)
    return out


class PgSpool:
    """One session's spool row, locked by the visit's transaction."""

    def __init__(self, conn: Any, scope: str, session: str, row: Any):
        self.conn, self.scope, self.session = conn, scope, session
        self._row = row

    def read(self) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        if self._row is None:
            return [], {"turns": 0}
        try:
            state = json.loads(self._row["state"])
        except ValueError:
            state = None
        return _events(self._row["events"]), state if isinstance(state, dict) else {"turns": 0}

    def write(self, events: list[dict[str, Any]], state: Mapping[str, Any]) -> None:
        # json.dumps escapes NUL (a text column cannot hold one)
        text = "".join(json.dumps(e, ensure_ascii=False, default=str) + "\n" for e in events)
        state_text = json.dumps(dict(state), ensure_ascii=False, default=str)
        self.conn.execute(
            "INSERT INTO capture_spools (scope, session, state, events) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (scope, session) DO UPDATE SET state = EXCLUDED.state, events = EXCLUDED.events, "
            "updated_ts = extract(epoch FROM clock_timestamp())", (self.scope, self.session, state_text, text))
        self._row = {"state": state_text, "events": text}

    def delete(self) -> None:
        self.conn.execute("DELETE FROM capture_spools WHERE scope = %s AND session = %s",
                          (self.scope, self.session))
        self._row = None


class PgCaptureState:
    def __init__(self, palace: Any, scope: str):
        self.palace = palace
        self.scope = scope

    @contextmanager
    def _refused(self) -> Iterator[None]:
        import psycopg

        try:
            yield
        except psycopg.errors.InsufficientPrivilege:
            raise InvalidInputError(
                f"capture writes into scope {self.scope!r} (MEMORY_SCOPE), which is not one this "
                "client may write (MEMORY_AGENT_ID / MEMORY_USER_ID decide which)") from None

    @contextmanager
    def visit(self, session: str) -> Iterator[PgSpool]:
        with self.palace.dedicated_connection() as conn, self._refused(), conn.transaction():
            # make the row if it is new (a racing visitor waits on this insert), then lock it
            conn.execute("INSERT INTO capture_spools (scope, session) VALUES (%s, %s) "
                         "ON CONFLICT (scope, session) DO NOTHING", (self.scope, session))
            row = conn.execute("SELECT state, events FROM capture_spools WHERE scope = %s AND session = %s "
                               "FOR UPDATE", (self.scope, session)).fetchone()
            yield PgSpool(conn, self.scope, session, row)

    def learn_session_keys(self, learned: Mapping[str, str],
                           wanted: Iterable[str]) -> tuple[dict[str, str], dict[str, str]]:
        keys = sorted(set(wanted) | set(learned))
        with self.palace.connection() as conn, self._refused(), conn.transaction():
            changed: dict[str, str] = {}
            if learned:
                pairs = sorted(learned.items())  # sorted: two writers lock rows in one order
                rows = conn.execute(
                    "INSERT INTO capture_session_keys AS k (scope, key, session_id) "
                    "SELECT %s, key, sid FROM unnest(%s::text[], %s::text[]) AS u(key, sid) "
                    "ON CONFLICT (scope, key) DO UPDATE SET session_id = EXCLUDED.session_id "
                    "WHERE k.session_id <> EXCLUDED.session_id RETURNING key, session_id",
                    (self.scope, [k for k, _ in pairs], [s for _, s in pairs])).fetchall()
                changed = {r["key"]: r["session_id"] for r in rows}
            known = {r["key"]: r["session_id"] for r in conn.execute(
                "SELECT key, session_id FROM capture_session_keys WHERE scope = %s AND key = ANY(%s)",
                (self.scope, keys))}
        return known, changed
