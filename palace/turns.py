"""Keyword scores of dialogues by their best turn.

A memory written as a dialogue ("Name: text" lines, ``chunking.dialogue_turns``) is
a conversation about many things; a question about it asks after one of them,
answered in a turn or two. Scored whole, BM25 rewards a long session that mentions
the question's words here and there over the one whose single turn holds them
together. Scored by its best turn, with the turns of the candidate dialogues as
the collection (a word in every session can still be rare among turns), it is the
turn that answers that counts: on the LoCoMo tuning half this retriever alone
ranks R@10 0.951 against 0.942 for BM25 over whole sessions (docs/search-quality.md,
Round 4).

Pure functions over texts already read: the same on both backends, and the same
BM25 (``index.postings.bm25_scores``, FTS5's constants) as the index's own.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Mapping, Sequence

from .chunking import dialogue_turns
from .index.postings import bm25_scores
from .tokenize import stem, tokenize

# dialogues whose turns' terms are kept, and the longest kept: at most ~8M characters
# of keys and their counts (a few MB for LoCoMo's 3,000-character sessions)
TURN_CACHE_TEXTS = 512
TURN_CACHE_MAX_CHARS = 16_000
Unit = tuple[float, tuple[str, ...], tuple[str, ...]]  # (weight, stems required, stems scored)


def turn_terms(text: str) -> tuple[Mapping[str, int], ...]:
    """The stemmed term counts of each turn of ``text`` ((): not a dialogue). Cached
    for texts up to TURN_CACHE_MAX_CHARS: a search reads the same candidate dialogues
    again and again, and segmenting them was most of its cost (LoCoMo tuning half,
    search time with the rule on / off in one run: ×2.4 uncached, ×1.1–1.2 cached)."""
    return _cached_turn_terms(text) if len(text) <= TURN_CACHE_MAX_CHARS else _turn_terms(text)


def _turn_terms(text: str) -> tuple[Mapping[str, int], ...]:
    return tuple(MappingProxyType(Counter(stem(token) for token in tokenize(text[start:end])))
                 for start, end in dialogue_turns(text))


_cached_turn_terms = lru_cache(maxsize=TURN_CACHE_TEXTS)(_turn_terms)


def turn_scores(texts: Mapping[int, str], units: Sequence[Unit]) -> dict[int, float]:
    """Row id → the BM25 score of its best turn (0.0: no turn matches), for the
    dialogues among ``texts`` (other memories are left out); every turn of those
    dialogues is one document."""
    import numpy as np

    owners: list[int] = []
    counts: list[Mapping[str, int]] = []
    for rid, text in texts.items():
        for turn in turn_terms(text):
            owners.append(rid)
            counts.append(turn)
    best = dict.fromkeys(owners, 0.0)
    if not owners or not units:
        return best
    wanted = {term for _weight, required, scored in units for term in (*required, *scored)}
    postings: dict[str, Any] = {}
    lengths = np.fromiter((sum(c.values()) for c in counts), dtype=np.int32, count=len(counts))
    for term in wanted:
        turns = [number for number, count in enumerate(counts) if term in count]
        if turns:
            index = np.asarray(turns, dtype=np.int64)
            postings[term] = (index, np.asarray([counts[n][term] for n in turns], dtype=np.int32),
                              lengths[index])
    turn_ids, scores = bm25_scores(postings, units, docs=len(owners), total_length=int(lengths.sum()))
    for turn, score in zip(turn_ids.tolist(), scores.tolist()):
        rid = owners[turn]
        if score > best[rid]:
            best[rid] = score
    return best
