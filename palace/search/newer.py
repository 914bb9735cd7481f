"""Stage 5b, newer first: of two close results about the same thing, the newer first.

A fact that changes is written down again later ("I got a Fitbit Charge 3" in June,
"I've been using my Fitbit for nine months" in September). Both hold the question's
words, and whichever holds them more densely ranks first, as often the stale one as
the current one. So a result moves above the older result just above it when

- it holds NEWER_SAME_TOPIC of the query weight (idf) the older one holds, through two
  query words at least: they match the question through largely the same words;
- it scores at least NEWER_CLOSE times the older one;
- at most NEWER_MOST close results share those words (a fact restated a few times;
  words that many results hold alike are the conversation's common ground);
- neither is a retired fact (``supersededBy``), and the query names no period (then
  it asks for that time, not for the latest).

Only neighbours swap, so a result passes nothing but older results on its topic. The
older one's explanation names the newer one (``newer_on_topic``: possibly outdated).
Measured in docs/search-quality.md ("Newer first", issue 26).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from palace.search.calibration import NEWER_CLOSE, NEWER_MOST, NEWER_SAME_TOPIC
from palace.search.evidence import Evidence
from palace.search.ranking import superseded_by
from palace.index.rows import IndexRow

# only the best WINDOW results are reordered: more than any page a person reads, and
# the pair matrix (WINDOW² × query words) stays small whatever top_k asks for
WINDOW = 64


def same_topic_pairs(scores: Any, profiles: Any, *, close: float, same_topic: float) -> Any:
    """[i, j]: result j holds ``same_topic`` of result i's held query weight, through two
    query words at least (one word alone is a mention, not a topic), and the two score
    within ``close`` of each other (the smaller ≥ close × the larger)."""
    import numpy as np

    held = profiles.sum(axis=1)
    common = np.minimum(profiles[:, None, :], profiles[None, :, :])
    shared = common.sum(axis=2)
    share = np.divide(shared, held[:, None], out=np.zeros_like(shared), where=held[:, None] > 0)
    near = np.minimum.outer(scores, scores) >= close * np.maximum.outer(scores, scores)
    pairs = (share >= same_topic) & near & ((common > 0).sum(axis=2) >= 2)
    np.fill_diagonal(pairs, False)
    return pairs


def newer_first(ranked: Sequence[tuple[float, int]], created: Mapping[int, float],
                profile: Mapping[int, Sequence[float]], retired: set[int], *, close: float,
                same_topic: float, most: int) -> tuple[list[tuple[float, int]], dict[int, int]]:
    """``ranked`` (score, row id), best first, with each newer same-topic result moved
    above the older one it follows closely; and older row id → the first newer row id
    moved above it. A topic only counts when at most ``most`` results share it (a fact
    restated a few times; words that many close results hold are common ground, not
    one fact). Only neighbours swap, so a lifted result passes nothing but older
    results on its topic and the rest keep their ranks. Scores are kept: the order,
    not the number, says which is newer."""
    import numpy as np

    if len(ranked) < 2:
        return list(ranked), {}
    width = max((len(p) for p in profile.values()), default=0)
    rows = [profile.get(rid) or (0.0,) * width for _, rid in ranked]
    pairs = same_topic_pairs(np.asarray([s for s, _ in ranked], dtype=float), np.asarray(rows, dtype=float)
                             .reshape(len(ranked), width), close=close, same_topic=same_topic)
    index = {rid: i for i, (_, rid) in enumerate(ranked)}
    small = pairs.sum(axis=1) < most  # the result and at most ``most`` - 1 others

    def lifts(old: int, new: int) -> bool:
        i, j = index[old], index[new]
        return (bool(pairs[i, j]) and bool(small[i]) and old not in retired and new not in retired
                and created[new] > created[old])

    order = list(ranked)
    outdated: dict[int, int] = {}
    swapped = True
    while swapped:  # each swap puts a pair in date order: it ends
        swapped = False
        for k in range(len(order) - 1):
            if lifts(order[k][1], order[k + 1][1]):
                outdated.setdefault(order[k][1], order[k + 1][1])
                order[k], order[k + 1] = order[k + 1], order[k]
                swapped = True
    return order, outdated


def reorder(ranked: Sequence[tuple[float, int]], rows: Mapping[int, IndexRow], evidence: Evidence, *,
            browse: bool, period: bool) -> tuple[list[tuple[float, int]], dict[int, int]]:
    """``newer_first`` over the ranked rows. Not for a time-only listing (newest first
    already) nor a query naming a period (it asks for then, not for the latest)."""
    if browse or period or len(ranked) < 2:
        return list(ranked), {}
    head, tail = ranked[:WINDOW], list(ranked[WINDOW:])
    created = {rid: rows[rid].created_ts for _, rid in head}
    retired = {rid for _, rid in head if superseded_by(rows[rid]) is not None}
    profiles = evidence.profiles([rid for _, rid in head])
    order, outdated = newer_first(head, created, profiles, retired, close=NEWER_CLOSE,
                                  same_topic=NEWER_SAME_TOPIC, most=NEWER_MOST)
    return order + tail, outdated

