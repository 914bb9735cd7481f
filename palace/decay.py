"""Ebbinghaus decay of memories, as pure functions of a memory's history.

A memory's *score* is its retention: 1.0 when created, fading as
``anchor_score * exp(-days_since_anchor / stability_days)`` until it is used
again. Each access (a retrieval of the memory) is a reinforcement: the score
recovers by ``min(1, score * 0.9 + recovery_factor)`` and the stability grows,
the more so the more had been forgotten since the previous reinforcement, so
that recalls at growing intervals make a memory last longer than crammed ones.

Access events live in an append-only journal, so nothing here keeps state: the
decay state is a fold (``replay``) of ``created_at``, ``importance`` and the
access times, and every score is computed for an explicit ``now``. The manager
may cache a folded ``DecayState`` and extend it with ``reinforce`` as new
accesses arrive in time order. See docs/decay.md for the model in plain words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo
from typing import TYPE_CHECKING, Any, Iterable, Mapping, NamedTuple, Sequence

from palace.errors import ConfigError
from palace.index.rows import IndexRow

if TYPE_CHECKING:
    from palace.settings import Settings

# Share of the pre-access score an access keeps before the recovery is added;
# fixed by the recovery rule score = min(1, score x 0.9 + recovery_factor).
ACCESS_KEEP_FACTOR = 0.9

_SECONDS_PER_DAY = 86_400.0
# Accesses closer together than this count as one (see collapse_bursts).
ACCESS_MERGE_WINDOW_S = 3600.0


@dataclass(frozen=True)
class DecayParams:
    """The knobs of the decay model; ``from_settings`` reads them from ``MEMORY_DECAY_*``."""

    enabled: bool = True
    archive_threshold: float = 0.1
    recovery_factor: float = 0.2
    base_stability_days: float = 30.0
    # Stability of a fresh memory: base_stability_days x (1 + importance_boost x importance).
    importance_boost: float = 4.0
    # An access multiplies stability by (1 + access_growth x spacing_factor), where
    # spacing_factor in [0, 1] is the share forgotten since the last reinforcement.
    access_growth: float = 0.5

    def __post_init__(self) -> None:
        # Checked here as well as in Settings because DecayParams can be built directly,
        # and a zero stability would divide by zero deep inside a replay.
        problems = []
        if not 0.0 <= self.archive_threshold <= 1.0:
            problems.append(("MEMORY_DECAY_ARCHIVE_THRESHOLD", self.archive_threshold,
                             "a number between 0 and 1"))
        if not 0.0 <= self.recovery_factor <= 1.0:
            problems.append(("MEMORY_DECAY_RECOVERY_FACTOR", self.recovery_factor,
                             "a number between 0 and 1"))
        if not (math.isfinite(self.base_stability_days) and self.base_stability_days > 0):
            problems.append(("MEMORY_DECAY_BASE_STABILITY_DAYS", self.base_stability_days,
                             "a positive number of days"))
        if not (math.isfinite(self.importance_boost) and self.importance_boost >= 0):
            problems.append(("MEMORY_DECAY_IMPORTANCE_BOOST", self.importance_boost,
                             "a number >= 0"))
        if not (math.isfinite(self.access_growth) and self.access_growth >= 0):
            problems.append(("MEMORY_DECAY_ACCESS_GROWTH", self.access_growth,
                             "a number >= 0"))
        if problems:
            described = "; ".join(f"{env}={value!r} should be {expected}"
                                  for env, value, expected in problems)
            raise ConfigError(f"decay parameters not usable: {described}")

    @classmethod
    def from_settings(cls, settings: "Settings") -> "DecayParams":
        # Every ``decay_*`` setting is one of these knobs (``decay_enabled`` -> ``enabled``),
        # so a new decay setting needs no second list here.
        from palace.settings import SETTINGS

        return cls(**{spec.attr.removeprefix("decay_"): getattr(settings, spec.attr)
                      for spec in SETTINGS if spec.attr.startswith("decay_")})


@dataclass(frozen=True)
class DecayState:
    """Everything needed to compute a memory's score at any later time."""

    anchor: datetime          # time of the last reinforcement (creation or last access)
    anchor_score: float       # score right after that reinforcement, in [0, 1]
    stability_days: float     # S in R = exp(-days / S)
    access_count: int         # accesses folded into this state


def is_pinned(importance: float, pinned_flag: bool | None = False) -> bool:
    """A memory is pinned by ``pinned: true`` in its frontmatter or by importance 1.0."""
    return bool(pinned_flag) or importance >= 1.0


def initial_stability_days(importance: float, params: DecayParams) -> float:
    return params.base_stability_days * (1.0 + params.importance_boost * _clamp_importance(importance))


def initial_state(created_at: datetime, importance: float, params: DecayParams) -> DecayState:
    return DecayState(
        anchor=created_at,
        anchor_score=1.0,
        stability_days=initial_stability_days(importance, params),
        access_count=0,
    )


def retention(state: DecayState, now: datetime) -> float:
    """exp(-Δt/S): the share of the anchor score still held at ``now``, in (0, 1]."""
    return math.exp(-_days_between(state.anchor, now) / state.stability_days)


def score_at(state: DecayState, now: datetime, params: DecayParams, *, pinned: bool = False) -> float:
    """The score in [0, 1] at ``now``; 1.0 when pinned or decay is disabled.

    A ``now`` before the anchor (clock skew, an access journalled with a later
    clock) counts as Δt = 0: the score never rises by looking into the past.
    Pass ``pinned=is_pinned(importance, flag)``; the state does not know the flag.
    """
    if pinned or not params.enabled:
        return 1.0
    return _clamp_unit(state.anchor_score * retention(state, now))


def reinforce(state: DecayState, at: datetime, params: DecayParams) -> DecayState:
    """The state after one access at ``at``.

    An access earlier than the anchor is counted at the anchor (Δt = 0), so a late
    journal entry can never move the anchor back; ``replay`` sorts, so this only
    matters when a cached state is extended out of order (then replay instead).
    """
    score_before = score_at(state, at, params)
    share_forgotten = 1.0 - retention(state, at)
    recovered = min(1.0, score_before * ACCESS_KEEP_FACTOR + params.recovery_factor)
    # With recovery_factor < 0.1 the rule alone would *lower* a score above
    # 10 x recovery_factor; using a memory must never make it fade faster.
    anchor_score = max(score_before, recovered)
    return DecayState(
        anchor=max(state.anchor, at, key=_instant),
        anchor_score=anchor_score,
        stability_days=state.stability_days * (1.0 + params.access_growth * share_forgotten),
        access_count=state.access_count + 1,
    )


def replay(
    created_at: datetime,
    importance: float,
    access_times: Iterable[datetime],
    params: DecayParams,
) -> DecayState:
    """Fold the access journal into a state: sorts, and ignores accesses before creation.

    The result depends only on the arguments, so the manager may cache it and
    extend it with ``reinforce`` for accesses at or after ``state.anchor``.
    """
    created_instant = _instant(created_at)
    state = initial_state(created_at, importance, params)
    for accessed_at in sorted(access_times, key=_instant):
        if _instant(accessed_at) < created_instant:
            continue  # a journal entry for an id that was reused, or a wrong clock
        state = reinforce(state, accessed_at, params)
    return state


def current_score(
    created_at: datetime,
    importance: float,
    access_times: Iterable[datetime],
    now: datetime,
    params: DecayParams,
    *,
    pinned: bool | None = False,
) -> float:
    """The score at ``now`` of a memory with this history (pinned by flag or importance 1.0).

    Every journalled access counts, even one after ``now``: a clock that stepped
    back must not drop (and archive) a memory that was just used.
    """
    if is_pinned(importance, pinned) or not params.enabled:
        return 1.0
    return score_at(replay(created_at, importance, access_times, params), now, params)


def should_archive(score: float, params: DecayParams) -> bool:
    return params.enabled and score < params.archive_threshold


def archive_due_at(state: DecayState, params: DecayParams, *, pinned: bool = False) -> datetime | None:
    """When the score will reach the archive threshold if nothing reinforces it.

    ``None`` when it never will (pinned, decay disabled, threshold 0, or a date
    past year 9999); the anchor itself when the score is already at or under the
    threshold.
    """
    if pinned or not params.enabled or params.archive_threshold <= 0.0:
        return None
    if state.anchor_score <= params.archive_threshold:
        return state.anchor
    # anchor_score x exp(-d/S) = threshold  <=>  d = S x ln(anchor_score / threshold)
    days = state.stability_days * math.log(state.anchor_score / params.archive_threshold)
    try:
        # Added in UTC so a DST change in the anchor's zone does not shift it by an hour.
        due = _instant(state.anchor) + timedelta(days=days)
        return due.astimezone(state.anchor.tzinfo) if state.anchor.tzinfo is not None else due
    except OverflowError:  # a tiny threshold or a huge stability: beyond any calendar
        return None


def _clamp_importance(importance: float) -> float:
    # Hand-edited frontmatter can hold anything; a replay must not fail or get a
    # negative stability over it. NaN counts as 0 (no boost).
    if not importance >= 0.0:
        return 0.0
    return min(importance, 1.0)


def _clamp_unit(value: float) -> float:
    return min(1.0, max(0.0, value))


def _instant(moment: datetime) -> datetime:
    # Aware datetimes sharing one tzinfo compare and subtract by wall clock in
    # Python, which is an hour off across a DST change; UTC is exact.
    if moment.tzinfo is not None and moment.utcoffset() is not None:
        return moment.astimezone(timezone.utc)
    return moment


def _days_between(earlier: datetime, later: datetime) -> float:
    """Days from ``earlier`` to ``later``, never negative."""
    try:
        delta = _instant(later) - _instant(earlier)
    except TypeError:
        raise TypeError(
            f"cannot compare {earlier!r} with {later!r}: give every timestamp a "
            "time zone (or none of them)"
        ) from None
    return max(0.0, delta.total_seconds() / _SECONDS_PER_DAY)


# ---------------------------------------------------------------------- over index rows


def collapse_bursts(timestamps: Sequence[float], window_s: float = ACCESS_MERGE_WINDOW_S) -> list[float]:
    """One access per window: five searches in a minute are one recall, not five
    (otherwise a burst would reset the decay score without the spacing that
    really makes a memory last)."""
    kept: list[float] = []
    for ts in sorted(timestamps):
        if not kept or ts - kept[-1] >= window_s:
            kept.append(ts)
    return kept


class DecayInfo(NamedTuple):
    score: float
    access_count: int
    last_accessed_at: datetime | None


def decay_info(rows: Sequence[IndexRow], access_times: Mapping[str, Sequence[float]],
               now: datetime, params: DecayParams, tz: tzinfo) -> dict[str, DecayInfo]:
    """Score, accesses counted and last access of each memory row (``id``,
    ``created_ts``, ``created_at``, ``importance``, ``pinned``) at ``now``, from its
    access timestamps (bursts collapsed; times shown in ``tz``)."""
    info: dict[str, DecayInfo] = {}
    now_ts = now.timestamp()
    for row in rows:
        # accesses before creation belong to an earlier memory that had this id
        stamps_ts = [ts for ts in collapse_bursts(access_times.get(row.id, [])) if ts >= row.created_ts]
        pinned = is_pinned(row.importance, bool(row.pinned))
        if not stamps_ts and not pinned and params.enabled:
            # never used: the curve from creation, R = exp(-Δt/S0), without
            # building datetimes (this runs for every search candidate)
            days = max(0.0, now_ts - row.created_ts) / _SECONDS_PER_DAY
            info[row.id] = DecayInfo(math.exp(-days / initial_stability_days(row.importance, params)),
                                        0, None)
            continue
        stamps = [datetime.fromtimestamp(ts, tz) for ts in stamps_ts]
        created = datetime.fromisoformat(row.created_at)
        score = current_score(created, row.importance, stamps, now, params, pinned=bool(row.pinned))
        info[row.id] = DecayInfo(score, len(stamps), stamps[-1] if stamps else None)
    return info


@dataclass
class DecayReport:
    """What ``run_decay`` checked and archived (or, ``dry_run``, would archive)."""

    now: datetime
    threshold: float
    checked: int = 0
    archived: list[str] = field(default_factory=list)
    pinned: int = 0
    dry_run: bool = False
    scores: dict[str, float] = field(default_factory=dict)  # the archived ones

    def to_dict(self) -> dict[str, Any]:
        return {"now": self.now.isoformat(), "threshold": self.threshold, "checked": self.checked,
                "archived": list(self.archived), "archived_count": len(self.archived),
                "pinned": self.pinned, "dry_run": self.dry_run,
                "scores": {k: round(v, 4) for k, v in self.scores.items()}}


def plan_archive(rows: Sequence[IndexRow], info: Mapping[str, DecayInfo], params: DecayParams,
                 report: DecayReport) -> list[str]:
    """Ids of the active ``rows`` due for archiving (score under the threshold, not
    pinned); counts what was checked and pinned, and the due scores, in ``report``."""
    report.checked = len(rows)
    due = []
    for row in rows:
        if is_pinned(row.importance, bool(row.pinned)):
            report.pinned += 1
        elif should_archive(info[row.id].score, params):
            due.append(row.id)
            report.scores[row.id] = info[row.id].score
    return due
