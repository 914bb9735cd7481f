"""Writers' locks on Postgres: session advisory locks, the exclusive one (a reindex, an
import, a feature's read-change-write across memories) and one per memory, each kept on
the connection its thread works on while it holds any (``PostgresPalace.pin``)."""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

WRITE_LOCK_KEY = 0x70A1AC1  # the advisory lock writers serialise on (like the local write.lock)


def lock_key(name: str) -> int:
    """A stable 64-bit advisory lock key for ``name`` (Python's hash() differs per process)."""
    return int.from_bytes(hashlib.blake2b(name.encode("utf-8"), digest_size=8).digest(), "big", signed=True)


class Session(Protocol):
    """What the locks need of the palace (``PostgresPalace``): its pool, the connection
    pinned to this thread, and the lock statements deferred on it."""

    pool: Any

    def pin(self, conn: Any) -> None: ...
    def pinned(self) -> Any: ...
    def defer(self, lock: "Deferred") -> None: ...
    def withdraw(self, lock: "Deferred") -> bool: ...


@dataclass(eq=False)
class Deferred:
    """A statement taking advisory locks, sent with the locked connection's next query."""

    sql: str
    params: Sequence[Any]
    sent: bool = False


class PgWriteLock:
    """Writers across processes and machines, without one queue for all of them.

    ``with lock:`` (``pm.write_lock()``) is the exclusive lock, as under the local
    write.lock: a feature's read-change-write across memories, a reindex, an import.
    ``lock.keyed(*names)`` is what one memory's write takes (the manager's store,
    update, delete, restore): the same lock *shared*, plus an exclusive lock per name
    (the memory's id, or its normalised content while looking for a duplicate). So
    writers of different memories run at once, writers of the same memory take turns
    (no lost update), and everyone waits for an exclusive holder.

    All are session advisory locks on one pooled connection that the thread keeps
    while it holds any (``PostgresPalace.connection`` hands that one back, so the
    reads and writes inside run in the locked session); re-entrant per thread: inside
    the exclusive lock a keyed one is a no-op. Keys are taken in sorted order (no
    deadlock between keyed writers); a thread must not ask for the exclusive lock
    while it holds keyed ones (nothing in palace does). A keyed lock is sent with the
    first query inside it (``PostgresPalace.fetch_all``: one round trip for both, the
    lock taken before the query runs); a keyed block that asks nothing takes nothing.
    """

    def __init__(self, palace: Session):
        self.palace = palace
        self._state = threading.local()

    def _stack(self) -> list[tuple[str, tuple[int, ...], "Deferred | None"]]:
        stack = getattr(self._state, "stack", None)
        if stack is None:
            stack = self._state.stack = []
        return stack

    def _conn(self) -> Any:
        stack = self._stack()
        if not stack:
            self._state.held = self.palace.pool.connection()
            self.palace.pin(self._state.held.__enter__())
        return self.palace.pinned()

    def _push(self, kind: str, keys: tuple[int, ...], sql: str | None, params: Sequence[Any],
              *, defer: bool = False) -> None:
        """Take a lock: now, or (``defer``) with the first query inside it, in that query's
        round trip (a store's lock goes with its look for an earlier copy)."""
        conn = self._conn()
        deferred = Deferred(sql, params) if defer and sql is not None else None
        try:
            if deferred is not None:
                self.palace.defer(deferred)
            elif sql is not None:
                conn.execute(sql, params)
        except BaseException:
            if not self._stack():
                self._unpin()
            raise
        self._stack().append((kind, keys, deferred))

    def _unpin(self) -> None:
        held, self._state.held = self._state.held, None
        self.palace.pin(None)
        held.__exit__(None, None, None)

    def __enter__(self) -> "PgWriteLock":
        stack = self._stack()
        if any(kind == "exclusive" for kind, *_ in stack):
            self._push("nested", (), None, ())
        else:
            self._push("exclusive", (), "SELECT pg_advisory_lock(%s)", (WRITE_LOCK_KEY,))
        return self

    def __exit__(self, *exc: object) -> None:
        self._pop()

    def keyed(self, *names: str) -> "_KeyedLock":
        return _KeyedLock(self, names)

    def _enter_keys(self, names: Sequence[str]) -> None:
        stack = self._stack()
        if any(kind == "exclusive" for kind, *_ in stack):
            self._push("nested", (), None, ())
            return
        held = {k for _, keys, _ in stack for k in keys}
        keys = tuple(sorted({lock_key(n) for n in names} - held))
        shared = not any(kind == "shared" for kind, *_ in stack)
        calls = (["pg_advisory_lock_shared(%s)"] if shared else []) + ["pg_advisory_lock(%s)"] * len(keys)
        params = ([WRITE_LOCK_KEY] if shared else []) + list(keys)
        self._push("shared" if shared else "keys", keys, f"SELECT {', '.join(calls)}" if calls else None, params,
                   defer=True)

    def _pop(self) -> None:
        stack = self._stack()
        kind, keys, deferred = stack.pop()
        try:
            if deferred is not None and self.palace.withdraw(deferred):
                return  # nothing ran inside: the lock was never taken
            calls = ["pg_advisory_unlock(%s)"] * len(keys)
            params: list[Any] = list(keys)
            if kind == "exclusive":
                calls, params = ["pg_advisory_unlock(%s)"], [WRITE_LOCK_KEY]
            elif kind == "shared":
                calls, params = calls + ["pg_advisory_unlock_shared(%s)"], params + [WRITE_LOCK_KEY]
            if calls:
                self.palace.pinned().execute(f"SELECT {', '.join(calls)}", params)
        finally:
            if not stack:
                self._unpin()


class _KeyedLock:
    def __init__(self, lock: PgWriteLock, names: Sequence[str]):
        self.lock, self.names = lock, names

    def __enter__(self) -> "_KeyedLock":
        self.lock._enter_keys(self.names)
        return self

    def __exit__(self, *exc: object) -> None:
        self.lock._pop()
