"""Whether a new fact retires an old one: a pure decision over explicit inputs.

Only facts about **one subject in one exclusive slot** are ever compared (``slots``:
where one lives or works, one's role, manager, team…; ``uses`` within one kind of
tool). For an old relation that is still current (no ``validTo``, or one after the new
fact's time) and stated no later than the new one:

* **supersede** — the same exclusive slot, another object (a new employer closes the
  old one); ``uses`` of one kind with the same stated purpose, or with a change cue
  ("switched to Zed" retires vim: both editors); a preference on the same object with
  the opposite polarity (喜欢 → 不喜欢); or a new fact stated as *ended* ("不再用 vim",
  "no longer on the payments team") naming the old one.
* **review** — uncertain, within one slot: ``uses`` of one kind palace only inferred
  from the tools' names, with no change cue ("I use vim", later "I use VS Code": a
  second editor or a replacement?); or the same object under a wording palace does not
  know beside an exclusive slot's ("works_at Acme", then a hand-written "quit Acme").
* otherwise the facts **coexist**: a second liked drink, a second language, a
  project's stack beside the user's editor, facts of two subjects.

A fact can arrive after a later one (a backdated store, an import, two writers at once):
it retires nothing that starts after it, and is itself closed where the earliest later
fact that would have retired it begins (``ended_by``). So the order facts arrive in
never changes the timeline they leave: one current value per subject and slot.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import AbstractSet, Sequence

from palace.graph.facts import Relation
from palace.graph.slots import ENDS_WITH, POLARITY, SLOTS, exclusive, family, tool_kind

# the wordings of each slot (kept under its old name: tests and docs read it)
FAMILIES: dict[str, tuple[str, ...]] = {name: (name, *slot.wordings) for name, slot in SLOTS.items()}


@dataclass(frozen=True)
class Decision:
    supersede: tuple[Relation, ...] = ()   # old relations to close, validTo already set
    review: tuple[Relation, ...] = ()      # old relations a person should compare with the new one
    reasons: tuple[str, ...] = ()
    ended_by: Relation | None = None       # a later fact already stated: the new one ends where it starts


def _same_tool_kind(old: Relation, new: Relation) -> tuple[bool, bool]:
    """(one kind of tool, the kind was stated on both sides)."""
    kind_old, stated_old = tool_kind(old.object, old.purpose)
    kind_new, stated_new = tool_kind(new.object, new.purpose)
    return kind_old is not None and kind_old == kind_new, stated_old and stated_new


def _same_slot(old: Relation, new: Relation) -> str | None:
    """Why ``new`` retires ``old`` for certain, or None."""
    fam_old, fam_new = family(old.predicate), family(new.predicate)
    if fam_old is None or fam_new is None:
        return None
    if new.ended:
        if fam_old == fam_new and old.object_key == new.object_key:
            return "stated as ended"
        return None
    if fam_old == fam_new and exclusive(fam_new) and old.object_key != new.object_key:
        return f"{fam_new} has one value at a time"
    if fam_old == fam_new == "uses" and old.object_key != new.object_key:
        same_kind, stated = _same_tool_kind(old, new)
        if same_kind and (stated or new.change):
            return f"one tool at a time for {tool_kind(new.object, new.purpose)[0]}"
    if POLARITY.get(fam_old) == fam_new and old.object_key == new.object_key:
        return "the preference turned around"
    return None


def _uncertain(old: Relation, new: Relation) -> str | None:
    if new.ended:
        return None
    fam_old, fam_new = family(old.predicate), family(new.predicate)
    if fam_old == fam_new == "uses" and old.object_key != new.object_key:
        same_kind, _stated = _same_tool_kind(old, new)
        if same_kind:
            return f"another {tool_kind(new.object, new.purpose)[0]}: a replacement or a second one?"
    if old.object_key == new.object_key and old.predicate_key != new.predicate_key and (
            (fam_old is None and fam_new is not None and exclusive(fam_new))
            or (fam_new is None and fam_old is not None and exclusive(fam_old))):
        return "the same pair under different wording"
    return None


def decide(old_relations: Sequence[Relation], new: Relation, now: datetime, *,
           subject_keys: AbstractSet[str] | None = None) -> Decision:
    """What ``new`` (stated at its ``valid_from``, else ``now``) does to ``old_relations``.
    ``subject_keys``: the keys that name ``new``'s subject (its declared aliases too;
    default: its own key), so "Ally moved to Oslo" retires where Alice lived."""
    at = new.valid_from or new.valid_to or now
    subjects = {new.subject_key} if subject_keys is None else set(subject_keys) | {new.subject_key}
    supersede: list[Relation] = []
    review: list[Relation] = []
    closing: list[str] = []
    asking: list[str] = []
    for old in old_relations:
        if old.subject_key not in subjects or not old.current(at):
            continue
        if old.memory_id is not None and old.memory_id == new.memory_id:
            continue  # the same memory: nothing to retire
        if old.object_key == new.object_key and old.predicate_key == new.predicate_key and not new.ended:
            continue  # the same fact again
        if old.valid_from is not None and old.valid_from > at:
            continue  # an older fact arriving late does not retire a newer one (ended_by)
        reason = _same_slot(old, new)
        if reason is not None:
            supersede.append(replace(old, valid_to=at))
            closing.append(reason)
            continue
        reason = _uncertain(old, new)
        if reason is not None:
            review.append(old)
            asking.append(reason)
    for closed in list(supersede):   # a job's facts stated with it end with it
        tied = ENDS_WITH.get(family(closed.predicate) or "", ())
        for old in old_relations:
            if (old.memory_id == closed.memory_id and old.subject_key == closed.subject_key and old.current(at)
                    and family(old.predicate) in tied
                    and not any(_same_fact(old, s) for s in supersede) and not _same_fact(old, new)):
                supersede.append(replace(old, valid_to=at))
                closing.append(f"{family(old.predicate)} of the job at {closed.object}")
    return Decision(tuple(supersede), tuple(review), tuple(closing + asking), _ended_by(old_relations, new, at, subjects))


def _ended_by(old_relations: Sequence[Relation], new: Relation, at: datetime,
              subjects: AbstractSet[str]) -> Relation | None:
    """The earliest fact already stated that starts after ``new`` and would have retired it
    had it come second (the same rule, the roles swapped): where ``new`` ends."""
    if new.ended or (new.valid_to is not None and new.valid_to <= at):
        return None
    later = [old for old in old_relations
             if old.subject_key in subjects and old.valid_from is not None and old.valid_from > at
             and not old.ended and old.memory_id != new.memory_id
             and (new.valid_to is None or old.valid_from < new.valid_to)
             and _same_slot(new, old) is not None]
    return min(later, key=lambda r: (r.valid_from, r.memory_id or ""), default=None)


def _same_fact(a: Relation, b: Relation) -> bool:
    return (a.memory_id, a.subject_key, a.predicate_key, a.object_key) == (
        b.memory_id, b.subject_key, b.predicate_key, b.object_key)
