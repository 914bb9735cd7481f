"""Whether a new fact retires an old one: a pure decision over explicit inputs.

A predicate belongs to a *family* when palace knows its wording (``lives_in``, 住在,
搬到 and "moved to" are one family). Rules, for an old relation that is still current
(no ``validTo``, or one after the new fact's time) and stated no later than the new one:

* **supersede** — same subject, same *functional* family (one value at a time: where
  one lives, works, which tool one uses *for* a given purpose), a different object;
  or a preference on the same subject and object with the opposite polarity
  (喜欢 → 不喜欢). The old relation is closed at the new fact's time.
* **review** — the match is uncertain: "uses X" then "uses Y" with no purpose (a
  replacement or a second tool?), or the same subject and object under predicates of
  different families or of unknown wording ("works at Acme" then "left Acme").
* otherwise the facts **coexist** (likes tea, likes coffee; works at A, lives in B).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import AbstractSet, Sequence

from .facts import Relation, predicate_key

# family -> wordings (predicate keys). "uses" is functional only together with a purpose.
FAMILIES: dict[str, tuple[str, ...]] = {
    "lives_in": ("lives_in", "live_in", "lived_in", "moved_to", "move_to", "relocated_to", "resides_in",
                 "住在", "搬到", "搬去", "居住在", "定居在", "住"),
    "works_at": ("works_at", "work_at", "works_for", "joined", "employed_by", "在工作", "在…工作",
                 "就职于", "任职于", "入职", "加入"),
    "uses": ("uses", "use", "decided_to_use", "switched_to", "用", "使用", "决定用", "改用", "换成"),
    "likes": ("likes", "like", "prefers", "prefer", "loves", "enjoys", "喜欢", "偏好", "爱", "喜爱"),
    "dislikes": ("dislikes", "dislike", "hates", "avoids", "doesn't_like", "不喜欢", "讨厌", "不爱"),
}
FUNCTIONAL = frozenset({"lives_in", "works_at"})
POLARITY = {"likes": "dislikes", "dislikes": "likes"}
_FAMILY_OF = {predicate_key(word): family for family, words in FAMILIES.items() for word in words}


def family(predicate: str) -> str | None:
    """The family a predicate's wording belongs to (None: palace does not know it)."""
    return _FAMILY_OF.get(predicate_key(predicate))


@dataclass(frozen=True)
class Decision:
    supersede: tuple[Relation, ...] = ()   # old relations to close, validTo already set
    review: tuple[Relation, ...] = ()      # old relations a person should compare with the new one
    reasons: tuple[str, ...] = ()


def _same_slot(old: Relation, new: Relation) -> str | None:
    """Why ``new`` retires ``old`` for certain, or None."""
    fam_old, fam_new = family(old.predicate), family(new.predicate)
    if fam_old is None or fam_new is None:
        return None
    if fam_old == fam_new and fam_new in FUNCTIONAL and old.object_key != new.object_key:
        return f"{fam_new} has one value at a time"
    if (fam_old == fam_new == "uses" and old.purpose and new.purpose
            and old.purpose.casefold() == new.purpose.casefold() and old.object_key != new.object_key):
        return f"one tool at a time for {new.purpose}"
    if POLARITY.get(fam_old) == fam_new and old.object_key == new.object_key:
        return "the preference turned around"
    return None


def _uncertain(old: Relation, new: Relation) -> str | None:
    fam_old, fam_new = family(old.predicate), family(new.predicate)
    if (fam_old == fam_new == "uses" and not (old.purpose and new.purpose)
            and old.object_key != new.object_key):
        return "uses another tool: a replacement or a second one?"
    if old.object_key == new.object_key and old.predicate_key != new.predicate_key and (
            fam_old is None or fam_new is None or fam_old != fam_new):
        return "the same pair under different wording"
    return None


def decide(old_relations: Sequence[Relation], new: Relation, now: datetime, *,
           subject_keys: AbstractSet[str] | None = None) -> Decision:
    """What ``new`` (stated at its ``valid_from``, else ``now``) does to ``old_relations``.
    ``subject_keys``: the keys that name ``new``'s subject (its declared aliases too;
    default: its own key), so "Ally moved to Oslo" retires where Alice lived."""
    at = new.valid_from or now
    subjects = {new.subject_key} if subject_keys is None else set(subject_keys) | {new.subject_key}
    supersede: list[Relation] = []
    review: list[Relation] = []
    reasons: list[str] = []
    for old in old_relations:
        if old.subject_key not in subjects or not old.current(at):
            continue
        if (old.memory_id is not None and old.memory_id == new.memory_id) or (
                old.object_key == new.object_key and old.predicate_key == new.predicate_key):
            continue  # the same fact again (or the same memory): nothing to retire
        if old.valid_from is not None and old.valid_from > at:
            continue  # an older fact arriving late does not retire a newer one
        reason = _same_slot(old, new)
        if reason is not None:
            supersede.append(replace(old, valid_to=at))
            reasons.append(reason)
            continue
        reason = _uncertain(old, new)
        if reason is not None:
            review.append(old)
            reasons.append(reason)
    return Decision(tuple(supersede), tuple(review), tuple(reasons))
