"""The review queue: pairs of facts palace was not sure about, kept for a person.

A JSON file in the palace (``review.json``), not in the index: it holds the user's
pending decisions, not derived state, so a reindex must not lose it.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from palace.errors import InvalidInputError, ReviewItemNotFoundError
from palace.store.atomic import atomic_write

REVIEW_FILE = "review.json"


@dataclass(frozen=True)
class ReviewItem:
    id: str
    old_memory: str            # the memory whose fact may be stale
    new_memory: str            # the memory stating the new fact
    old_relation: dict[str, Any]
    new_relation: dict[str, Any]
    reason: str
    created_at: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def read_records(path: Path, make: Any) -> list[Any]:
    """A palace JSON file holding a list of records (the review queue, the decision
    log): [] when absent; a file broken by hand is a clear error, never guessed at."""
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text("utf-8") or "[]")
        return [make(**item) for item in data]
    except (json.JSONDecodeError, TypeError) as exc:
        raise InvalidInputError(f"{path} is not a list of {make.__name__} records ({exc}); "
                                "fix or delete it") from None


class ReviewQueue:
    def __init__(self, path: Path):
        self.path = path

    def items(self) -> list[ReviewItem]:
        return read_records(self.path, ReviewItem)

    def items_from(self, new_memory: str) -> list[ReviewItem]:
        """The items asking about a fact that ``new_memory`` states (what withdrawing it
        may drop)."""
        return [i for i in self.items() if i.new_memory == new_memory]

    def _save(self, items: list[ReviewItem]) -> None:
        atomic_write(self.path, json.dumps([i.to_dict() for i in items], ensure_ascii=False, indent=1))

    def add(self, *, old_memory: str, new_memory: str, old_relation: dict[str, Any],
            new_relation: dict[str, Any], reason: str, created_at: str) -> ReviewItem | None:
        items = self.items()
        for item in items:  # the same pair is asked about once
            if (item.old_memory, item.new_memory, item.old_relation, item.new_relation) == (
                    old_memory, new_memory, old_relation, new_relation):
                return None
        taken = {i.id for i in items}
        item_id = secrets.token_hex(4)
        while item_id in taken:  # 8 hex digits: a big queue does meet a taken one
            item_id = secrets.token_hex(4)
        item = ReviewItem(item_id, old_memory, new_memory, old_relation, new_relation, reason, created_at)
        self._save([*items, item])
        return item

    def put(self, item: ReviewItem) -> bool:
        """Keep ``item`` as it is (an import): False when it, or its pair, is queued already."""
        items = self.items()
        if any(i.id == item.id or (i.old_memory, i.new_memory, i.old_relation, i.new_relation) == (
                item.old_memory, item.new_memory, item.old_relation, item.new_relation) for i in items):
            return False
        self._save([*items, item])
        return True

    def drop(self, items: list[ReviewItem]) -> None:
        """Remove these items (their new fact is no longer stated)."""
        gone = {i.id for i in items}
        if gone:
            self._save([i for i in self.items() if i.id not in gone])

    def take(self, item_id: str) -> ReviewItem:
        """Remove and return one item (accepted or rejected by the caller)."""
        items = self.items()
        for item in items:
            if item.id == item_id:
                self._save([i for i in items if i.id != item_id])
                return item
        raise ReviewItemNotFoundError(item_id)
