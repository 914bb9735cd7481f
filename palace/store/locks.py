"""File locks across processes, on ``filelock`` (``fcntl`` on POSIX, ``msvcrt`` on
Windows): the one lock helper for palace's files.

The hooks' client and service keep ``fcntl`` of their own: the client must import
nothing beyond the standard library (a hook's start-up time), and the service's lock
must be the one the client probes (palace/integrations/hook_client.py).
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator


def _lock_on(path: Path) -> Any:
    from filelock import FileLock  # lazily: ~40 ms to import, paid only by a writer

    path.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(str(path))


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold the lock file ``path`` exclusively (waiting for it) until the block ends;
    another thread of this process waits too."""
    with _lock_on(path):
        yield


class WriteLock:
    """Serialises writers across processes (an agent and a person's CLI) with a lock
    file; re-entrant within a thread, so a write may call another write."""

    def __init__(self, path: Path):
        self._lock = _lock_on(path)

    def __enter__(self) -> "WriteLock":
        self._lock.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


__all__ = ["WriteLock", "file_lock"]
