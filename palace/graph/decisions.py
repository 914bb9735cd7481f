"""What palace (or a person, through the review queue) already decided about a pair of
facts, so that applying the rules again never decides twice.

A JSON file in the palace (``graph-decisions.json``), beside ``review.json``: like the
queue it records decisions, not derived state, so a reindex keeps it. One entry per
(old memory, old fact, new memory, new fact):

* ``superseded`` (by the rules) or ``accepted`` (from review): the old fact was
  closed at ``closedAt``; ``marked`` says whether palace also wrote ``supersededBy``.
  If the new memory later stops stating its fact (a hand edit, or the file removed),
  palace reopens the old one, unless a person changed it since (see
  ``GraphService.withdraw``).
* ``rejected``: a person said both stand; the pair is not queued again.

A fact is named by its identity (subject, predicate, object, purpose keys), so a hand
edit of its dates does not make it another fact.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable

from palace.store.atomic import atomic_write
from palace.graph.facts import Relation
from palace.graph.normalise import entity_key
from palace.graph.review import read_records

DECISIONS_FILE = "graph-decisions.json"
CLOSING = ("superseded", "accepted")


def fact_id(relation: Relation) -> str:
    """The identity of a fact, whatever its dates: ``subject|predicate|object|for``."""
    purpose = entity_key(relation.purpose) if relation.purpose else ""
    return "|".join((relation.subject_key, relation.predicate_key, relation.object_key, purpose))


@dataclass(frozen=True)
class Decision:
    old_memory: str
    old_fact: str
    new_memory: str
    new_fact: str
    decision: str                 # superseded, accepted or rejected
    closed_at: str | None = None  # ISO time the old fact's validTo was set to
    marked: bool = False          # palace wrote supersededBy on the old memory

    @property
    def pair(self) -> tuple[str, str, str, str]:
        return self.old_memory, self.old_fact, self.new_memory, self.new_fact


class DecisionLog:
    def __init__(self, path: Path):
        self.path = path

    def entries(self) -> list[Decision]:
        return read_records(self.path, Decision)

    def _save(self, entries: Iterable[Decision]) -> None:
        atomic_write(self.path, json.dumps([asdict(e) for e in entries], ensure_ascii=False, indent=1))

    def find(self, old_memory: str, old_fact: str, new_memory: str, new_fact: str) -> Decision | None:
        wanted = (old_memory, old_fact, new_memory, new_fact)
        return next((e for e in self.entries() if e.pair == wanted), None)

    def record(self, entry: Decision) -> None:
        self._save([*(e for e in self.entries() if e.pair != entry.pair), entry])

    def merge(self, entries: Iterable[Decision]) -> int:
        """Record these decisions at once (each replaces the one for its pair); returns
        how many were new or different (an import of a log already here changes nothing)."""
        current = {e.pair: e for e in self.entries()}
        changed = 0
        for entry in entries:
            if current.get(entry.pair) != entry:
                current.pop(entry.pair, None)
                current[entry.pair] = entry
                changed += 1
        if changed:
            self._save(current.values())
        return changed

    def by_new_memory(self, memory_id: str) -> list[Decision]:
        return [e for e in self.entries() if e.new_memory == memory_id]

    def forget(self, entries: Iterable[Decision]) -> None:
        gone = {e.pair for e in entries}
        if gone:
            self._save([e for e in self.entries() if e.pair not in gone])


def adopt_client_log(log: "DecisionLog | Any", path: Path) -> int:
    """Before the shared log (Postgres, schema 8) each client kept its decisions in
    ``graph-decisions.json`` beside its caches: merge such a file into ``log`` once and
    keep it as ``graph-decisions.json.merged``. Returns how many entries were new."""
    if not path.exists():
        return 0
    added = log.merge(read_records(path, Decision))
    try:
        path.replace(path.with_name(path.name + ".merged"))
    except OSError:
        pass  # a read-only folder: merging again next time adds nothing
    return added
