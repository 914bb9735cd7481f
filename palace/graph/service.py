"""The graph over a palace: what the index derived, read back as facts, and the few
writes the rules call for (closing a superseded relation, marking its memory).

The index and the callables are passed in (``read``: a memory by id without counting
an access; ``update``: ``MemoryPalaceManager.update``), so this layer never imports
the manager.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from contextlib import nullcontext
from typing import AbstractSet, Any, Callable, ContextManager, Iterable, Sequence

from palace.errors import EntityNotFoundError, InvalidInputError
from palace.validation import validate_id
from palace.index import Index
from palace.index.rows import EdgeRow, MentionRow, RelationRow
from palace.models import Memory
from palace.store.atomic import atomic_write
from palace.graph.facts import Entity, Relation, parse_entity, read_facts
from palace.graph.normalise import entity_key
from palace.graph.paths import Edge, Step, render
from palace.graph.decisions import CLOSING, DECISIONS_FILE, DecisionLog, fact_id
from palace.graph.decisions import Decision as Decided
from palace.graph.review import REVIEW_FILE, ReviewItem, ReviewQueue, read_records
from palace.graph.supersede import decide
from palace.text.script import HAN_RUN, has_han
from palace.text.segment import cut

SUPERSEDED_BY = "supersededBy"


@dataclass(frozen=True)
class Applied:
    """What applying a stored memory's facts did: the review items it queued, and whether
    it changed the memory itself (its fact ended where a later one already began)."""

    queued: list[ReviewItem]
    ended_own: bool = False


@dataclass(frozen=True)
class Reached:
    memory_id: str
    rid: int
    hops: int
    path: str
    truncated: bool = False   # the walk hit a cap (TRUNCATED_NOTE)


_LATIN = re.compile(r"[^\W_][\w.+#\-]*")


def _words(text: str) -> list[str]:
    """Words as written (stop words kept: "I" and 我 name the user), Han runs cut by jieba."""
    words: list[str] = []
    for match in _LATIN.finditer(text):
        token = match.group(0)
        if not has_han(token):
            words.append(token.rstrip(".-"))
            continue
        for part in HAN_RUN.split(token):
            if HAN_RUN.fullmatch(part):
                words.extend(cut(part))
            elif part:
                words.append(part)
    return [w for w in words if w]


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


# Caps of the walk, so recall stays near keyword-search time on a large graph (100k
# memories, 1M relations: scripts/bench_graph.py): at most this many newly reached
# entities are followed from one hop to the next, and at most this many relations per
# entity and direction (the newest). A walk that hit a cap says so in its results.
FRONTIER_CAP = 32
EDGES_PER_ENTITY = 24
TRUNCATED_NOTE = (f"graph walk capped: at most {FRONTIER_CAP} entities per hop and {EDGES_PER_ENTITY} "
                  "relations per entity and direction (the newest) were followed")


def _edges(index: Index, frontier: Sequence[str], now: datetime, include_superseded: bool
           ) -> tuple[list[tuple[Edge, int]], dict[str, str], bool]:
    """The current relations touching ``frontier`` (keys, aliases included) as edges with
    the stating memory's rid, the names as written, and whether a per-entity cap hit."""
    keys = sorted(index.equivalent_keys(frontier))
    bounded = getattr(index, "graph_edges", None)
    if bounded is not None:
        rows: Sequence[EdgeRow | RelationRow] = bounded(keys, now_ts=now.timestamp(),
                                                        include_closed=include_superseded,
                                                        per_key=EDGES_PER_ENTITY + 1)
    else:  # a backend without the bounded lookup: its whole relation lists, filtered here
        rows = [row for row in index.relations_touching(keys)
                if row.status == "active" and (include_superseded or row.valid_to is None
                                               or row.valid_to > now.timestamp())]
    count: dict[tuple[str, bool], int] = {}
    edges: list[tuple[Edge, int]] = []
    names: dict[str, str] = {}
    capped = False
    for row in rows:
        side = (row.subject, True) if row.subject in keys else (row.object, False)
        seen = count.get(side, 0)
        if seen >= EDGES_PER_ENTITY:
            capped = True
            continue
        count[side] = seen + 1
        edges.append((Edge(row.subject, row.predicate_text, row.object, row.memory_id), row.rid))
        names.setdefault(row.subject, row.subject_text)
        names.setdefault(row.object, row.object_text)
    return edges, names, capped


def _mentions(index: Index, keys: Sequence[str], limit: int | None) -> Iterable[MentionRow]:
    one = getattr(index, "entity_mentions_of", None)
    if one is None or limit is None:
        yield from index.entity_mentions(sorted(keys))
        return
    for key in sorted(keys):
        yield from one(key, limit=limit)


def reach(index: Index, keys: Sequence[str], depth: int, *, now: datetime,
          include_superseded: bool = False, limit: int | None = None) -> list[Reached]:
    """Memories within ``depth`` hops of the entities ``keys`` (aliases followed), nearest
    first (at most ``limit``): those stating a relation on a path, and those naming an
    entity on one. Breadth first, level by level, stopping once ``limit`` memories are
    that near (a farther one would rank after them); bounded by FRONTIER_CAP and
    EDGES_PER_ENTITY."""
    starts = sorted(index.equivalent_keys(keys))
    if not starts:
        return []
    reached: dict[str, tuple[str, tuple[Step, ...]]] = {key: (key, ()) for key in starts}
    stated: dict[str, tuple[str, tuple[Step, ...]]] = {}
    # memory id -> (hops, the entity key whose path explains it, or None: its own edge)
    best: dict[str, tuple[int, str | None]] = {}
    rid_of: dict[str, int] = {}
    display: dict[str, str] = {}
    truncated = False

    def enough() -> bool:
        return limit is not None and len(best) >= limit

    def add_mentions(level: Sequence[str], hops: int) -> None:
        for row in _mentions(index, level, None if limit is None else limit + len(best)):
            if enough():
                break  # the rest of this level would rank after those found (same hops, by id)
            display.setdefault(row.key, row.name)
            rid_of.setdefault(row.memory_id, row.rid)
            known = best.get(row.memory_id)
            if known is None:
                best[row.memory_id] = (hops, row.key)
            elif hops < known[0]:  # it names a nearer entity: nearer (an edge keeps its path)
                best[row.memory_id] = (hops, known[1] if known[1] is None else row.key)

    add_mentions(starts, 0)
    frontier = starts
    for hops in range(1, depth + 1):
        if enough() or not frontier:
            break
        edges, names, capped = _edges(index, frontier, now, include_superseded)
        truncated |= capped
        for key, name in names.items():
            display.setdefault(key, name)
        here_set = set(frontier)
        nxt: list[str] = []
        for edge, rid in edges:
            for here, there, forward in ((edge.subject, edge.object, True), (edge.object, edge.subject, False)):
                if here not in here_set:
                    continue
                start, steps = reached[here]
                walked = (*steps, Step(edge, forward))
                if edge.memory_id not in stated:
                    stated[edge.memory_id] = (start, walked)
                    rid_of.setdefault(edge.memory_id, rid)
                    known = best.get(edge.memory_id)
                    # its own edge explains it best, even when it names a nearer entity
                    best[edge.memory_id] = (hops if known is None else known[0], None)
                if there not in reached:
                    if len(nxt) >= FRONTIER_CAP:
                        truncated = True
                        continue
                    reached[there] = (start, walked)
                    nxt.append(there)
        if not enough():
            add_mentions(nxt, hops)
        frontier = nxt
    order = sorted(best.items(), key=lambda item: (item[1][0], item[0]))[:limit]
    out = []
    for memory_id, (hops, via) in order:
        if via is None:
            origin, steps = stated[memory_id]
            path = render(origin, steps, display)
        else:
            origin, steps = reached[via]
            path = render(origin, steps, display) + ("" if steps else " (mentioned)")
        out.append(Reached(memory_id, rid_of[memory_id], hops, path, truncated))
    return out


def _ts(value: float | None, tz: tzinfo) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, timezone.utc).astimezone(tz)


class GraphService:
    def __init__(self, index: Index, tz: tzinfo, *, read: Callable[[str], Memory | None],
                 update: Callable[..., Memory], queue: ReviewQueue, decisions: DecisionLog | None = None,
                 lock: Callable[[str], ContextManager[object]] | None = None):
        self.index = index
        self.tz = tz
        self.read = read
        self.update = update
        # one memory's lock, held across a read-change-write of its relations: two stores
        # about different subjects may close facts in the same old memory at once
        self.lock = lock or (lambda memory_id: nullcontext())
        self.queue = queue
        self.decisions = decisions or DecisionLog(queue.path.with_name(DECISIONS_FILE))

    # ------------------------------------------------------------------ reading

    def keys_for(self, names: Iterable[str]) -> list[str]:
        return sorted(self.index.equivalent_keys(entity_key(n) for n in names))

    def relations(self, names: Iterable[str], *, as_subject_only: bool = False) -> list[Relation]:
        return self._relations_by_keys(self.keys_for(names), as_subject_only=as_subject_only)

    def _relations_by_keys(self, keys: Sequence[str], *, as_subject_only: bool = False) -> list[Relation]:
        return [Relation(row.subject_text, row.predicate_text, row.object_text,
                         valid_from=_ts(row.valid_from, self.tz), valid_to=_ts(row.valid_to, self.tz),
                         purpose=row.purpose, extracted=bool(row.extracted), memory_id=row.memory_id)
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

    def _relations_of(self, memory: Memory) -> list[Relation]:
        _entities, relations = read_facts(memory.extra, memory.content, created_at=memory.created_at,
                                          tz=self.tz, strict=False)
        return [replace(r, memory_id=memory.id) for r in relations]

    def after_store(self, memory: Memory, now: datetime, *, not_yet: AbstractSet[str] = frozenset(),
                    stated: Sequence[Relation] | None = None, fresh: bool = False) -> "Applied":
        """Apply what ``memory``'s relations mean for older facts: close and mark the
        certain ones, queue the uncertain ones; close its own fact where a later one
        already stated begins. Returns the review items added, and whether ``memory``
        itself was changed.

        The same rule runs on ``store`` and, for files added or edited by hand, after a
        sync (``apply_changes``). A pair already decided (``graph-decisions.json``) is
        never decided again: re-running changes nothing, a rejected pair is not queued
        again, and an old fact a person reopened by hand stays open. ``not_yet``: memories
        of the same batch that come after this one (a sync's, an import's): not older facts.
        ``stated``: ``memory``'s relations when the caller has read them already (a store).
        ``fresh``: ``memory`` was just created (a store), so nothing it states was decided
        or queued before: there is nothing to withdraw (two queries a store saves)."""
        queued: list[ReviewItem] = []
        ended_own = False
        relations = (self._relations_of(memory) if stated is None
                     else [replace(r, memory_id=memory.id) for r in stated])
        if not fresh:
            self.withdraw(memory.id, still_stated=relations)
        elif not relations:
            return Applied(queued)
        for new in relations:
            subjects = self.keys_for([new.subject])  # the subject under each of its aliases
            olds = [r for r in self._relations_by_keys(subjects, as_subject_only=True)
                    if r.memory_id != memory.id and r.memory_id not in not_yet]
            decision = decide(olds, new, now, subject_keys=set(subjects))
            for old in decision.supersede:
                assert old.memory_id is not None and old.valid_to is not None
                if self.decisions.find(old.memory_id, fact_id(old), memory.id, fact_id(new)) is not None:
                    continue  # decided before (and perhaps reopened by hand since): leave it
                marked = self.close(old.memory_id, old, old.valid_to, by=memory.id)
                self.decisions.record(Decided(old.memory_id, fact_id(old), memory.id, fact_id(new),
                                              "superseded", old.valid_to.isoformat(), marked))
            later = decision.ended_by
            if later is not None and later.memory_id is not None and later.valid_from is not None:
                # the new fact arrived after one that retires it: it ends where that one starts,
                # recorded as that memory's decision (withdrawing it reopens this fact)
                if self.decisions.find(memory.id, fact_id(new), later.memory_id, fact_id(later)) is None:
                    marked = self.close(memory.id, new, later.valid_from, by=later.memory_id)
                    ended_own = True
                    self.decisions.record(Decided(memory.id, fact_id(new), later.memory_id, fact_id(later),
                                                  "superseded", later.valid_from.isoformat(), marked))
            for old, reason in zip(decision.review, decision.reasons[len(decision.supersede):]):
                assert old.memory_id is not None
                if self._asked_before(old.memory_id, fact_id(old), memory.id, fact_id(new)):
                    continue
                item = self.queue.add(old_memory=old.memory_id, new_memory=memory.id,
                                      old_relation=old.to_frontmatter(), new_relation=new.to_frontmatter(),
                                      reason=reason, created_at=now.isoformat())
                if item is not None:
                    queued.append(item)
        return Applied(queued, ended_own)

    def _fact_of(self, data: dict[str, Any]) -> str:
        return fact_id(read_facts({"relations": [data]}, "", created_at=None, tz=self.tz, strict=False)[1][0])

    def _asked_before(self, old_memory: str, old_fact: str, new_memory: str, new_fact: str) -> bool:
        """Whether this pair of facts was decided or queued already, either way round: of
        two memories stored in the same second an import (or a rerun) cannot tell which is
        the newer, and a pair a person answered, or was asked about, is one question. Also
        an imported queue's pair with its dates written otherwise."""
        for pair in ((old_memory, old_fact, new_memory, new_fact), (new_memory, new_fact, old_memory, old_fact)):
            if self.decisions.find(*pair) is not None or self._queued(*pair):
                return True
        return False

    def _queued(self, old_memory: str, old_fact: str, new_memory: str, new_fact: str) -> bool:
        return any(item.old_memory == old_memory and self._fact_of(item.old_relation) == old_fact
                   and self._fact_of(item.new_relation) == new_fact for item in self.queue.items_from(new_memory))

    def apply_changes(self, changed: Sequence[Memory], removed: Sequence[str], now: datetime) -> list[ReviewItem]:
        """After a sync: the rule for each memory added or edited by hand (oldest first,
        so the outcome does not depend on the order files were read), and the
        withdrawal of what removed memories had retired."""
        involved = {e.new_memory for e in self.decisions.entries()} | {i.new_memory for i in self.queue.items()}
        for memory_id in sorted(removed):
            if memory_id in involved:
                self.withdraw(memory_id, still_stated=[])
        # a memory with no relation that never retired anything has nothing to apply
        relevant = [m for m in changed if m.extra.get("relations") or m.id in involved]
        queued: list[ReviewItem] = []
        ordered = sorted(relevant, key=lambda m: (m.created_at.timestamp() if m.created_at else 0.0, m.id))
        for index, memory in enumerate(ordered):
            later = {m.id for m in ordered[index + 1:]}
            queued.extend(self.after_store(memory, now, not_yet=later).queued)
        return queued

    def withdraw(self, memory_id: str, *, still_stated: Sequence[Relation]) -> list[str]:
        """``memory_id`` no longer states some facts (a hand edit removed them, or the
        file is gone): the old facts they had closed are reopened, and their pending
        review items dropped. An old fact a person changed since (another ``validTo``,
        another ``supersededBy``) is left as the person wrote it. Returns the memories
        reopened."""
        stated = {fact_id(r) for r in still_stated}
        gone = [e for e in self.decisions.by_new_memory(memory_id) if e.new_fact not in stated]
        reopened = []
        for entry in gone:
            if entry.decision in CLOSING and entry.closed_at and self._reopen(entry):
                reopened.append(entry.old_memory)
        self.decisions.forget(gone)
        stale = [item for item in self.queue.items_from(memory_id) if fact_id(
            read_facts({"relations": [item.new_relation]}, "", created_at=None, tz=self.tz,
                       strict=False)[1][0]) not in stated]
        self.queue.drop(stale)
        return reopened

    def _reopen(self, entry: Decided) -> bool:
        with self.lock(entry.old_memory):
            return self._reopen_locked(entry)

    def _reopen_locked(self, entry: Decided) -> bool:
        old = self.read(entry.old_memory)
        if old is None:
            return False
        relations = self._relations_of(old)
        closed_at = datetime.fromisoformat(entry.closed_at or "")
        reopened = [replace(r, valid_to=None) if fact_id(r) == entry.old_fact and r.valid_to == closed_at else r
                    for r in relations]
        if reopened == relations:
            return False  # changed by hand since: the person's frontmatter wins
        changes: dict[str, Any] = {"relations": [replace(r, memory_id=None).to_frontmatter() for r in reopened]}
        if entry.marked and old.extra.get(SUPERSEDED_BY) == entry.new_memory:
            changes[SUPERSEDED_BY] = None
        self.update(entry.old_memory, extra=changes)
        return True

    def close(self, memory_id: str, relation: Relation, at: datetime, *, by: str) -> bool:
        """Set ``validTo`` on ``relation`` in ``memory_id``'s frontmatter; when none of its
        relations is current any more, mark the memory ``supersededBy: by`` (unless it
        already names one: a person's own mark stays). True when it was marked."""
        with self.lock(memory_id):
            return self._close(memory_id, relation, at, by=by)

    def _close(self, memory_id: str, relation: Relation, at: datetime, *, by: str) -> bool:
        old = self.read(memory_id)
        if old is None:
            return False
        relations = self._relations_of(old)
        target = (relation.subject_key, relation.predicate_key, relation.object_key)
        closed = [replace(r, valid_to=at) if (r.subject_key, r.predicate_key, r.object_key) == target
                  and r.current(at) else r for r in relations]
        changes: dict[str, Any] = {"relations": [replace(r, memory_id=None).to_frontmatter() for r in closed]}
        marked = bool(closed) and not any(r.current(at) for r in closed) and not old.extra.get(SUPERSEDED_BY)
        if marked:
            changes[SUPERSEDED_BY] = by
        self.update(memory_id, extra=changes)
        return marked

    def resolve(self, item_id: str, *, accept: bool, now: datetime) -> ReviewItem:
        """Accept (the old fact is superseded after all) or reject (both stand) one item;
        the decision is kept, so the pair is not asked about again."""
        item = self.queue.take(validate_id(item_id, "review item id"))
        old = read_facts({"relations": [item.old_relation]}, "", created_at=None, tz=self.tz)[1][0]
        new = read_facts({"relations": [item.new_relation]}, "", created_at=None, tz=self.tz)[1][0]
        if accept:
            new_from = item.new_relation.get("validFrom")
            at = datetime.fromisoformat(new_from) if new_from else now
            marked = self.close(item.old_memory, old, at, by=item.new_memory)
            self.decisions.record(Decided(item.old_memory, fact_id(old), item.new_memory, fact_id(new),
                                          "accepted", at.isoformat(), marked))
        else:
            self.decisions.record(Decided(item.old_memory, fact_id(old), item.new_memory, fact_id(new),
                                          "rejected"))
        return item

    # ------------------------------------------------------------------ export and import

    def export_records(self, dest: Path) -> tuple[int, int]:
        """The review queue and the decision log into a palace tree, as the local backend
        keeps them (``review.json``, ``graph-decisions.json``; none when empty). Returns
        (items, decisions) written."""
        items, entries = self.queue.items(), self.decisions.entries()
        if items:
            atomic_write(dest / REVIEW_FILE, json.dumps([i.to_dict() for i in items], ensure_ascii=False, indent=1))
        if entries:
            atomic_write(dest / DECISIONS_FILE, json.dumps([asdict(e) for e in entries], ensure_ascii=False,
                                                           indent=1))
        return len(items), len(entries)

    def import_records(self, source: Path) -> tuple[int, int]:
        """A tree's review queue and decision log, added to this palace's (idempotent:
        an item or decision already here is left alone). Returns (items, decisions) added."""
        items = sum(self.queue.put(item) for item in read_records(source / REVIEW_FILE, ReviewItem))
        decisions = self.decisions.merge(read_records(source / DECISIONS_FILE, Decided))
        return items, decisions

    # ------------------------------------------------------------------ merging

    def mentioning(self, name: str) -> list[str]:
        """Ids of the memories naming ``name`` (or one of its aliases)."""
        return sorted({row.memory_id for row in self.index.entity_mentions(self.keys_for([name]))})

    def entities(self, *, limit: int | None = None) -> list[dict[str, Any]]:
        return [row._asdict() for row in self.index.entity_summary(limit=limit)]

    def merge(self, source: str, target: str, memory_ids: Iterable[str] | None = None) -> list[str]:
        """Rename entity ``source`` to ``target`` in every memory naming it, and record
        ``source`` as an alias of ``target`` there: the files say the two are one.
        ``EntityNotFoundError`` when no memory names ``source`` (``target`` may be new)."""
        src, dst = entity_key(source), entity_key(target)
        if not src or not dst or src == dst:
            raise InvalidInputError("entity merge needs two different entity names")
        targets = self.mentioning(source) if memory_ids is None else list(memory_ids)
        if memory_ids is None and not targets:
            raise EntityNotFoundError(source)  # a typo would otherwise "merge" in 0 memories
        changed = []
        for memory_id in targets:
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

