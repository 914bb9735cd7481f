"""The graph over a palace: what the index derived, read back as facts, and the few
writes the rules call for (closing a superseded relation, marking its memory).

The index and the callables are passed in (``read``: a memory by id without counting
an access; ``update``: ``MemoryPalaceManager.update``), so this layer never imports
the manager.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timezone, tzinfo
from typing import Any, Callable, Iterable, Sequence

from ..errors import InvalidInputError
from ..index import Index
from ..models import Memory
from .facts import Entity, Relation, parse_entity, read_facts
from .normalise import entity_key
from .paths import Edge, render, walk
from .review import ReviewItem, ReviewQueue
from .supersede import decide

SUPERSEDED_BY = "supersededBy"


@dataclass(frozen=True)
class Reached:
    memory_id: str
    rid: int
    hops: int
    path: str


_LATIN = re.compile(r"[^\W_][\w.+#\-]*")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def _words(text: str) -> list[str]:
    """Words as written (stop words kept: "I" and 我 name the user), CJK runs cut by jieba."""
    words: list[str] = []
    for match in _LATIN.finditer(text):
        token = match.group(0)
        if not _CJK.fullmatch(token) and not _CJK.search(token):
            words.append(token.rstrip(".-"))
            continue
        for part in re.split(r"([\u3400-\u9fff\uf900-\ufaff]+)", token):
            if _CJK.fullmatch(part or "x"):
                words.extend(_cut(part))
            elif part:
                words.append(part)
    return [w for w in words if w]


def _cut(run: str) -> list[str]:
    try:
        import rjieba
    except ImportError:  # no segmenter: single characters (names are matched as n-grams)
        return list(run)
    return list(rjieba.cut(run))


def entities_in(index: Index, text: str) -> list[str]:
    """Known entity keys named in ``text``: its words and runs of up to three words."""
    words = _words(text)
    grams = {entity_key(text)}
    for size in (1, 2, 3):
        for i in range(len(words) - size + 1):
            grams.add(entity_key("".join(words[i:i + size])))
            grams.add(entity_key(" ".join(words[i:i + size])))
    grams.discard("")
    return sorted(index.known_entity_keys(sorted(grams)))


def reach(index: Index, keys: Sequence[str], depth: int, *, now: datetime,
          include_superseded: bool = False, limit: int | None = None) -> list[Reached]:
    """Memories within ``depth`` hops of the entities ``keys`` (aliases followed), nearest
    first (at most ``limit``): those stating a relation on a path, and those naming an
    entity on one."""
    starts = sorted(index.equivalent_keys(keys))
    if not starts:
        return []
    rid_of: dict[str, int] = {}

    def edges_of(frontier: set[str]) -> list[Edge]:
        rows = index.relations_touching(sorted(index.equivalent_keys(frontier)))
        edges = []
        for row in rows:
            if row["status"] != "active" or not (include_superseded or row["valid_to"] is None
                                                 or row["valid_to"] > now.timestamp()):
                continue
            rid_of[row["memory_id"]] = row["rid"]
            edges.append(Edge(row["subject"], row["predicate_text"], row["object"], row["memory_id"]))
        return edges

    reached, stated = walk(starts, edges_of, depth)
    # memory id -> (hops, the entity key whose path explains it, or None: its own edge)
    best: dict[str, tuple[int, str | None]] = {m: (len(steps), None) for m, (_o, steps) in stated.items()}
    display: dict[str, str] = {}
    levels: dict[int, list[str]] = {}
    for key, (_origin, steps) in reached.items():
        levels.setdefault(len(steps), []).append(key)
    # mentions level by level, nearest first: stop once ``limit`` memories are that near
    for hops in sorted(levels):
        for row in index.entity_mentions(sorted(levels[hops])):
            display.setdefault(row["key"], row["name"])
            rid_of.setdefault(row["memory_id"], row["rid"])
            known = best.get(row["memory_id"])
            if known is None:
                best[row["memory_id"]] = (hops, row["key"])
            elif hops < known[0]:  # it names a nearer entity: nearer (an edge keeps its path)
                best[row["memory_id"]] = (hops, known[1] if known[1] is None else row["key"])
        if limit is not None and sum(1 for h, _k in best.values() if h <= hops) >= limit:
            break
    order = sorted(best.items(), key=lambda item: (item[1][0], item[0]))[:limit]
    out = []
    for memory_id, (hops, via) in order:
        if via is None:
            origin, steps = stated[memory_id]
            path = render(origin, steps, display)
        else:
            origin, steps = reached[via]
            path = render(origin, steps, display) + ("" if steps else " (mentioned)")
        out.append(Reached(memory_id, rid_of[memory_id], hops, path))
    return out


def _ts(value: float | None, tz: tzinfo) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, timezone.utc).astimezone(tz)


class GraphService:
    def __init__(self, index: Index, tz: tzinfo, *, read: Callable[[str], Memory | None],
                 update: Callable[..., Memory], queue: ReviewQueue):
        self.index = index
        self.tz = tz
        self.read = read
        self.update = update
        self.queue = queue

    # ------------------------------------------------------------------ reading

    def keys_for(self, names: Iterable[str]) -> list[str]:
        return sorted(self.index.equivalent_keys(entity_key(n) for n in names))

    def relations(self, names: Iterable[str], *, as_subject_only: bool = False) -> list[Relation]:
        keys = self.keys_for(names)
        return [Relation(row["subject_text"], row["predicate_text"], row["object_text"],
                         valid_from=_ts(row["valid_from"], self.tz), valid_to=_ts(row["valid_to"], self.tz),
                         purpose=row["purpose"], extracted=bool(row["extracted"]), memory_id=row["memory_id"])
                for row in self.index.relations_touching(keys, as_subject_only=as_subject_only)]

    def history(self, name: str) -> list[Relation]:
        """Every relation about ``name`` (as subject or object), oldest first, closed ones too."""
        if not entity_key(name):
            raise InvalidInputError("an entity name is required")
        return self.relations([name])

    def entities_in(self, text: str) -> list[str]:
        return entities_in(self.index, text)

    def recall(self, start: str | Sequence[str], depth: int, *, now: datetime,
               include_superseded: bool = False, limit: int | None = None) -> list[Reached]:
        if not isinstance(depth, int) or isinstance(depth, bool) or not 1 <= depth <= 3:
            raise InvalidInputError(f"depth must be 1, 2 or 3, got {depth!r}")
        keys = entities_in(self.index, start) if isinstance(start, str) else [entity_key(n) for n in start]
        return reach(self.index, keys, depth, now=now, include_superseded=include_superseded, limit=limit)

    # ------------------------------------------------------------------ supersession

    def after_store(self, memory: Memory, now: datetime) -> list[ReviewItem]:
        """Apply what ``memory``'s relations mean for older facts: close and mark the
        certain ones, queue the uncertain ones. Returns the review items added."""
        _entities, new_relations = read_facts(memory.extra, memory.content, created_at=memory.created_at,
                                              tz=self.tz, strict=False)
        queued: list[ReviewItem] = []
        for new in new_relations:
            new = replace(new, memory_id=memory.id)
            olds = [r for r in self.relations([new.subject], as_subject_only=True) if r.memory_id != memory.id]
            decision = decide(olds, new, now)
            for old in decision.supersede:
                assert old.memory_id is not None and old.valid_to is not None
                self.close(old.memory_id, old, old.valid_to, by=memory.id)
            for old, reason in zip(decision.review, decision.reasons[len(decision.supersede):]):
                assert old.memory_id is not None
                item = self.queue.add(old_memory=old.memory_id, new_memory=memory.id,
                                      old_relation=old.to_frontmatter(), new_relation=new.to_frontmatter(),
                                      reason=reason, created_at=now.isoformat())
                if item is not None:
                    queued.append(item)
        return queued

    def close(self, memory_id: str, relation: Relation, at: datetime, *, by: str) -> None:
        """Set ``validTo`` on ``relation`` in ``memory_id``'s frontmatter; when none of its
        relations is current any more, mark the memory ``supersededBy: by``."""
        old = self.read(memory_id)
        if old is None:
            return
        _entities, relations = read_facts(old.extra, old.content, created_at=old.created_at, tz=self.tz,
                                          strict=False)
        target = (relation.subject_key, relation.predicate_key, relation.object_key)
        closed = [replace(r, valid_to=at) if (r.subject_key, r.predicate_key, r.object_key) == target
                  and r.current(at) else r for r in relations]
        changes: dict[str, Any] = {"relations": [r.to_frontmatter() for r in closed]}
        if closed and not any(r.current(at) for r in closed):
            changes[SUPERSEDED_BY] = by
        self.update(memory_id, extra=changes)

    def resolve(self, item_id: str, *, accept: bool, now: datetime) -> ReviewItem:
        """Accept (the old fact is superseded after all) or reject (both stand) one item."""
        item = self.queue.take(item_id)
        if accept:
            new_from = item.new_relation.get("validFrom")
            at = datetime.fromisoformat(new_from) if new_from else now
            old = read_facts({"relations": [item.old_relation]}, "", created_at=None, tz=self.tz)[1][0]
            self.close(item.old_memory, old, at, by=item.new_memory)
        return item

    # ------------------------------------------------------------------ merging

    def mentioning(self, name: str) -> list[str]:
        """Ids of the memories naming ``name`` (or one of its aliases)."""
        return sorted({row["memory_id"] for row in self.index.entity_mentions(self.keys_for([name]))})

    def entities(self, *, limit: int | None = None) -> list[dict[str, Any]]:
        return [{"key": row["key"], "name": row["name"], "type": row["type"], "mentions": row["mentions"]}
                for row in self.index.entity_summary(limit=limit)]

    def merge(self, source: str, target: str, memory_ids: Iterable[str] | None = None) -> list[str]:
        """Rename entity ``source`` to ``target`` in every memory naming it, and record
        ``source`` as an alias of ``target`` there: the files say the two are one."""
        src, dst = entity_key(source), entity_key(target)
        if not src or not dst or src == dst:
            raise InvalidInputError("entity merge needs two different entity names")
        changed = []
        for memory_id in (self.mentioning(source) if memory_ids is None else memory_ids):
            memory = self.read(memory_id)
            if memory is None:
                continue
            _linked, relations = read_facts(memory.extra, "", created_at=memory.created_at,
                                            tz=self.tz, strict=False)
            entities = [parse_entity(item) for item in memory.extra.get("entities") or []]
            renamed = [replace(r, subject=target if r.subject_key == src else r.subject,
                               object=target if r.object_key == src else r.object) for r in relations]
            own = [e for e in entities if e.key in (src, dst)]
            aliases = tuple(dict.fromkeys([*(a for e in own for a in e.aliases), source]))
            merged = Entity(target, type=next((e.type for e in own if e.type), None), aliases=aliases)
            changes = {"entities": [e.to_frontmatter() for e in entities if e.key not in (src, dst)]
                       + [merged.to_frontmatter()]}
            if relations:
                changes["relations"] = [r.to_frontmatter() for r in renamed]
            self.update(memory_id, extra=changes)
            changed.append(memory_id)
        return changed

