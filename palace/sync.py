"""Planning how to bring the index in line with the files: a pure function.

The files are the truth. ``plan_sync`` compares what is on disk (path → mtime,
size) with what the index last saw and says which files to (re)read and which
index rows to drop. Reading is decided by mtime/size; the caller then compares
content hashes, so a file touched but not changed costs a hash, not a re-index.
A file moved by hand shows up as one removal plus one addition with the same id,
which the caller turns into a move.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class SyncPlan:
    new: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    unchanged: int = 0

    @property
    def empty(self) -> bool:
        return not (self.new or self.changed or self.removed)


@dataclass
class SyncReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    duplicates: list[tuple[str, str, str]] = field(default_factory=list)  # (id, kept, ignored)

    def to_dict(self) -> dict:
        return {
            "added": len(self.added), "updated": len(self.updated), "moved": len(self.moved),
            "removed": len(self.removed), "unchanged": self.unchanged,
            "errors": [{"path": p, "reason": r} for p, r in self.errors],
            "duplicates": [{"id": i, "kept": k, "ignored": g} for i, k, g in self.duplicates],
        }


def plan_sync(disk: Mapping[str, tuple[int, int]],
              indexed: Mapping[str, tuple[int, int]]) -> SyncPlan:
    """``disk`` and ``indexed`` map relative path → (mtime_ns, size)."""
    new = sorted(path for path in disk if path not in indexed)
    removed = sorted(path for path in indexed if path not in disk)
    changed = sorted(path for path, stat in disk.items()
                     if path in indexed and indexed[path] != stat)
    unchanged = len(disk) - len(new) - len(changed)
    return SyncPlan(new=tuple(new), changed=tuple(changed), removed=tuple(removed),
                    unchanged=unchanged)
