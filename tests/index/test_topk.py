"""MaxScore's pruned top-k (palace.index.topk) picks exactly what a full BM25 scoring
picks: the same row ids with the same float scores, ties included, for any query shape
(own words, phrases whose words are all required, concept expansions with their idf
ceilings), any filter and any limit."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from palace.index.postings import Unit, best_passing, bm25_scores
from palace.index.topk import best_keyword


def corpus(rng: random.Random, docs: int, vocabulary: int) -> dict[str, tuple[np.ndarray, ...]]:
    """Postings of a random collection: a few common words, many rare ones (Zipf-like),
    short documents of few lengths, so tied scores are common."""
    lengths = np.array([rng.choice([5, 8, 8, 12, 30]) for _ in range(docs)], dtype=np.int32)
    lists = {}
    for w in range(vocabulary):
        share = 0.6 / (1 + w) ** 1.1
        holders = sorted({rng.randrange(docs) for _ in range(max(1, int(share * docs)))})
        rids = np.array(holders, dtype=np.int64) + 1
        tfs = np.array([rng.choice([1, 1, 1, 2, 3]) for _ in holders], dtype=np.int32)
        lists[f"w{w}"] = (rids, tfs, lengths[rids - 1])
    return lists


def brute(lists, units, docs, total, limit, passing):
    rids, scores = bm25_scores(lists, units, docs=docs, total_length=total)
    return best_passing(rids, scores, limit, lambda some: {r for r in some if r in passing},
                        lambda: np.array(sorted(passing), dtype=np.int64))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_pruned_top_k_equals_the_full_scoring(seed):
    rng = random.Random(seed)
    docs = rng.choice([50, 400, 3000])
    lists = corpus(rng, docs, rng.choice([6, 30]))
    words = list(lists)
    units = []
    for _ in range(rng.randint(1, 5)):
        kind = rng.random()
        if kind < 0.6:
            w = rng.choice(words)
            units.append(Unit(1.0, (w,), (w,)))
        elif kind < 0.8:  # a phrase: every word required, all scored
            phrase = tuple(rng.sample(words, 2))
            units.append(Unit(rng.choice([0.5, 1.0]), phrase, phrase))
        else:  # an expansion of an own word, capped by that word's idf
            source, other = rng.sample(words, 2)
            units.append(Unit(rng.choice([0.3, 0.6]), (other,), (other,), source))
    total = int(sum(len(lists[w][0]) * 10 for w in words))
    share = rng.choice([1.0, 1.0, 0.9, 0.3, 0.02])
    passing = {r for r in range(1, docs + 1) if rng.random() < share}
    limit = rng.choice([1, 5, 50])
    expected = brute(lists, units, docs, total, limit, passing)
    got = best_keyword(lists, units, docs=docs, total_length=total, limit=limit,
                       passing=lambda some: {r for r in some if r in passing},
                       passing_all=lambda: np.array(sorted(passing), dtype=np.int64))
    assert list(got.items()) == list(expected.items())   # same rows, same floats, same order


def test_a_rare_word_with_common_ones_scores_few_memories(monkeypatch):
    """The point of pruning: a rare word beside common ones scores the rare word's
    holders, not every holder of the common ones."""
    import palace.index.topk as topk

    rng = random.Random(7)
    docs = 20000
    lists = {"common": (np.arange(1, docs + 1, dtype=np.int64), np.ones(docs, np.int32), np.full(docs, 10, np.int32)),
             "also": (np.arange(1, docs + 1, 2, dtype=np.int64), np.ones(docs // 2, np.int32),
                      np.full(docs // 2, 10, np.int32))}
    rare = np.array(sorted(rng.sample(range(1, docs + 1), 40)), dtype=np.int64)
    lists["rare"] = (rare, np.ones(40, np.int32), np.full(40, 10, np.int32))
    units = [Unit(1.0, (w,), (w,)) for w in ("common", "also", "rare")]
    sizes = []
    real = topk.score_these
    monkeypatch.setattr(topk, "score_these", lambda p, pairs, c, a: sizes.append(len(c)) or real(p, pairs, c, a))
    everyone = set(range(1, docs + 1))
    got = best_keyword(lists, units, docs=docs, total_length=docs * 10, limit=10,
                       passing=lambda some: set(some) & everyone, passing_all=lambda: np.arange(1, docs + 1))
    assert set(got) <= set(rare.tolist())
    assert max(sizes) < 1000    # the rare word's 40 holders and the seed, not 20,000
