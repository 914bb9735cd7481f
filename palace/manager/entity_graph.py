"""The manager's entity graph: the ``GraphService`` over this backend's review queue and
decision log, and the facts that change outside ``store`` (files edited by hand that a
sync found, a tree imported), which meet the palace's facts by the same rule."""

from __future__ import annotations

from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any, Callable, ContextManager, Sequence

from palace.graph import read_facts
from palace.graph.decisions import CLOSING, DECISIONS_FILE, Decision, DecisionLog, adopt_client_log, fact_id
from palace.graph.review import REVIEW_FILE, ReviewItem, ReviewQueue
from palace.graph.service import GraphService
from palace.index import SyncReport
from palace.models import Memory

# Above this many memories changed in one sync (a folder copied in, an index built
# from scratch), the sync is a bulk load: the files are taken as written, as by
# reindex, instead of judging every fact against every other one.
HAND_EDITS_AT_MOST = 1000


def open_graph(opened: Any, index: Any, root: Path, tz: tzinfo, scope: str, *,
               read: Callable[[str], Memory | None], update: Callable[..., Any],
               lock: Callable[[str], ContextManager[object]]) -> GraphService:
    """``opened``: the backend (``open_backend``); ``read``, ``update``, ``lock``: how the
    service reads, changes and locks one memory (the manager's get, update, memory lock)."""
    queue = opened.review_queue(ReviewItem) or ReviewQueue(root / REVIEW_FILE)
    # on Postgres the queue and the decision log are tables every client shares
    # (review_items, graph_decisions); locally they are files in the palace
    decisions = opened.decision_log(Decision, scope)
    if decisions is None:
        decisions = DecisionLog(root / DECISIONS_FILE)
    else:
        adopt_client_log(decisions, root / DECISIONS_FILE)
    return GraphService(index, tz, read=read, update=update, queue=queue, decisions=decisions, lock=lock)


class FactChanges:
    """Supersession for facts that changed outside ``store``."""

    def __init__(self, *, graph: Callable[[], GraphService], read: Callable[[str], Memory | None],
                 now: Callable[[], datetime], tz: tzinfo, notes: list[str]):
        """``graph()``: the manager's service (built on first use); ``read(id)``: a memory
        without counting it as used; ``notes``: the manager's, for a bulk load's note."""
        self.graph, self.read, self.now, self.tz, self.notes = graph, read, now, tz, notes

    def _active(self, ids: Sequence[str]) -> list[Memory]:
        return [m for i in ids if (m := self.read(i)) is not None and m.status == "active"]

    def after_sync(self, report: SyncReport, index: Any, lock: ContextManager[object]) -> None:
        """Facts added, edited or removed by hand (see ``MemoryPalaceManager.sync``)."""
        changes = len(report.added) + len(report.updated) + len(report.moved) + len(report.removed)
        if changes > HAND_EDITS_AT_MOST:
            self.notes.append(f"{changes} memories changed in one sync: taken as written (a bulk load); "
                              "supersession was not applied to them")
            return
        with lock:
            changed = self._active(list(dict.fromkeys([*report.added, *report.updated, *report.moved])))
            removed = [i for i in report.removed if index.row_by_id(i) is None]
            if changed or removed:
                self.graph().apply_changes(changed, removed, self.now())

    def after_import(self, written: Sequence[str]) -> None:
        """The imported facts meet the palace's as stored ones do (``apply_changes``: oldest
        first, pairs already decided left alone), on either backend alike; a large import
        is a bulk load, taken as written (as a sync of as many files would be)."""
        if len(written) > HAND_EDITS_AT_MOST:
            self.notes.append(f"{len(written)} memories imported: taken as written (a bulk load); "
                              "supersession was not applied to them")
            return
        # a memory the import replaced is as the tree states it: where the tree has a fact
        # open that palace had closed, that decision no longer describes it, and the newer
        # facts meet it again (an export's tree keeps palace's closings: nothing to redo)
        graph = self.graph()
        replaced = set(written)
        stale = [e for e in graph.decisions.entries() if e.old_memory in replaced and e.decision in CLOSING
                 and self._reopened(e)]
        graph.decisions.forget(stale)
        again = sorted({e.new_memory for e in stale} - replaced)
        graph.apply_changes(self._active([*written, *again]), [], self.now())

    def _reopened(self, entry: Decision) -> bool:
        """Whether the old fact ``entry`` closed is open again in its memory's file."""
        memory = self.read(entry.old_memory)
        if memory is None:
            return False
        _entities, relations = read_facts(memory.extra, "", created_at=memory.created_at, tz=self.tz, strict=False)
        return any(fact_id(r) == entry.old_fact and r.valid_to is None and not r.ended for r in relations)
