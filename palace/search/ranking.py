"""Stage 5, ranking: relevance placed in time, mixed with importance and decay.

- **time**: with a period, a memory inside it keeps its relevance (for "N days ago",
  most on that day), one written just after it (the late window) keeps LATE_FACTOR,
  one outside OUTSIDE_FACTOR (a soft period ranks; a strict one has filtered already);
- **score**: relevance, importance and the current decay score mixed by the weights
  (MEMORY_SEARCH_WEIGHTS), scaled back to [0, 1];
- **order**: best first, a fact a later memory retired after every current one; a
  time-only query lists its period newest first (what its note tells the user), its
  scores shown but not ordering it.
"""

from __future__ import annotations

import json
from typing import Mapping

from palace.decay import DecayInfo
from palace.search.calibration import LATE_FACTOR, OUTSIDE_FACTOR, POINT_FALLOFF
from palace.search.request import TimeScope
from palace.search.retrievers import Scores
from palace.index.rows import IndexRow



def place_in_time(relevance: Scores, rows: Mapping[int, IndexRow], scope: TimeScope, *,
                  browse: bool) -> tuple[Scores, dict[int, str]]:
    """Each candidate inside, late or outside the parsed period, its relevance scaled."""
    if scope.parsed is None or browse or scope.start is None or scope.end is None:
        return dict(relevance), {}
    start_ts, end_ts = scope.start.timestamp(), scope.end.timestamp()
    late_ts = scope.window_end.timestamp() if scope.window_end else end_ts
    point = getattr(scope.parsed, "point", None)
    scaled, placement = dict(relevance), {}
    for rid, row in rows.items():
        if rid not in scaled:
            continue
        created_ts = row.created_ts
        if start_ts <= created_ts < end_ts:
            placement[rid] = "inside"
            if point is not None:  # "两周前": the closer to that day, the better
                scaled[rid] *= closeness(created_ts, point.timestamp(), start_ts, end_ts)
        elif end_ts <= created_ts < late_ts:
            placement[rid] = "late"
            scaled[rid] *= LATE_FACTOR
        else:
            placement[rid] = "outside"
            scaled[rid] *= OUTSIDE_FACTOR
    return scaled, placement


def closeness(created_ts: float, point_ts: float, start_ts: float, end_ts: float) -> float:
    """1 on the day meant by "N units ago", falling linearly to 1 − POINT_FALLOFF at the
    edge of its tolerance window."""
    half = max(point_ts - start_ts, end_ts - point_ts, 1.0)
    return 1.0 - POINT_FALLOFF * min(1.0, abs(created_ts - point_ts) / half)


def final_score(relevance: float, importance: float, decay: float, weights: Mapping[str, float]) -> float:
    """Weighted mix, scaled back to [0, 1] whatever the weights add up to."""
    total = weights["relevance"] + weights["importance"] + weights["decay"]
    if total <= 0:
        return relevance
    return (weights["relevance"] * relevance + weights["importance"] * importance
            + weights["decay"] * decay) / total


def superseded_by(row: IndexRow) -> str | None:
    """The id of the memory that superseded this row's fact (its ``supersededBy`` key)."""
    raw = row.extra
    if "supersededBy" not in raw:
        return None  # cheap test before parsing the JSON
    value = json.loads(raw).get("supersededBy")
    return str(value) if value else None


def rank(relevance: Scores, rows: Mapping[int, IndexRow], decay: Mapping[str, DecayInfo],
         weights: Mapping[str, float], *, browse: bool) -> list[tuple[float, int]]:
    """(score, row id), best first; with ``browse`` (a time-only query), newest first."""
    scored = []
    for rid, rel in relevance.items():
        row = rows.get(rid)
        if row is None:
            continue
        score = final_score(rel, row.importance, decay[row.id].score, weights)
        scored.append((score, row, rid))
    if browse:
        scored.sort(key=lambda item: -item[1].created_ts)
    else:
        scored.sort(key=lambda item: (superseded_by(item[1]) is not None, -item[0]))
    return [(score, rid) for score, _row, rid in scored]
