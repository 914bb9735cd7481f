"""Pure pieces of the search pipeline: query terms and expansions, fusion, ranking.

Nothing here touches files or the database, so every rule can be tested alone:
- the user's own words weigh 1.0; concept expansions weigh less (their group's
  weight), and an expansion never repeats a word the user already typed;
- BM25 and vector relevance are each normalised to [0, 1] over the candidates
  and fused by a weighted sum (``vector_share``);
- the final score mixes relevance, importance and the current decay score with
  the weights from the settings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from .tokenize import query_terms, stem, tokenize

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def document_stems(content: str, summary: str | None, tags_json: str) -> set[str]:
    import json

    text = " ".join([content, summary or "", " ".join(json.loads(tags_json))])
    return {stem(token) for token in tokenize(text)}


def matched_terms(terms: Sequence[str], doc_stems: set[str]) -> list[str]:
    return [term for term in terms if stem(term) in doc_stems]


Unit = tuple[tuple[str, ...], tuple[str, ...]]  # (terms a memory must all contain, terms scored)


@dataclass(frozen=True)
class TermGroup:
    weight: float
    terms: tuple[str, ...]  # every term scored in this group
    expansions: tuple[Any, ...] = ()  # the Expansion objects behind these terms
    units: tuple[Unit, ...] = ()  # how the terms are matched (see term_groups)


def phrase_words(term: str) -> tuple[str, ...] | None:
    """The words of a multiword expansion written with spaces or hyphens ("front-end
    framework", "rate limiting"): a memory matches it only with all of them, not on
    "front" alone. Chinese terms (segmented into overlapping sub-words) match by any."""
    words = tuple(query_terms(term))
    if len(words) > 1 and not _HAN.search(term):
        return words
    return None


def term_groups(own_terms: Sequence[str], expansions: Iterable[Any]) -> list[TermGroup]:
    """Group expansion terms by weight so each weight class is scored with one weight.

    The user's own words match one by one; a multiword expansion needs all its
    words in a memory; a term already scored by an earlier group is not scored again.
    """
    groups: list[TermGroup] = []
    if own_terms:
        groups.append(TermGroup(1.0, tuple(own_terms), units=tuple(((t,), (t,)) for t in own_terms)))
    seen = set(own_terms)
    by_weight: dict[float, tuple[list[str], list[object], list[Unit]]] = {}
    for expansion in expansions:
        term = expansion.term
        tokens = query_terms(term)
        scored = [t for t in tokens if t not in seen]
        if not scored:
            continue
        seen.update(scored)
        weight = round(float(expansion.weight), 2)
        bucket = by_weight.setdefault(weight, ([], [], []))
        bucket[0].extend(scored)
        bucket[1].append(expansion)
        words = phrase_words(term)
        if words:
            bucket[2].append((words, tuple(scored)))
        else:
            bucket[2].extend(((t,), (t,)) for t in scored)
    for weight in sorted(by_weight, reverse=True):
        terms, sources, units = by_weight[weight]
        groups.append(TermGroup(weight, tuple(terms), tuple(sources), tuple(units)))
    return groups


def normalise(scores: Mapping[int, float]) -> dict[int, float]:
    """Divide by the best score, so the best candidate of a retriever gets 1.0."""
    if not scores:
        return {}
    best = max(scores.values())
    if best <= 0:
        return {key: 0.0 for key in scores}
    return {key: max(0.0, value) / best for key, value in scores.items()}


def fuse(keyword: Mapping[int, float], vector: Mapping[int, float], *,
         vector_share: float) -> dict[int, float]:
    """Weighted sum of normalised keyword and vector relevance, in [0, 1].

    With no vector scores (keyword-only search) relevance is the keyword part alone.
    """
    kw = normalise(keyword)
    if not vector:
        return kw
    vec = normalise(vector)
    fused = {}
    for key in set(kw) | set(vec):
        fused[key] = (1.0 - vector_share) * kw.get(key, 0.0) + vector_share * vec.get(key, 0.0)
    return fused


def final_score(relevance: float, importance: float, decay: float, *,
                w_relevance: float, w_importance: float, w_decay: float) -> float:
    """Weighted mix, scaled back to [0, 1] whatever the weights add up to."""
    total = w_relevance + w_importance + w_decay
    if total <= 0:
        return relevance
    return (w_relevance * relevance + w_importance * importance + w_decay * decay) / total
