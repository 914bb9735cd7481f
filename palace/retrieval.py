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

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .postings import stem
from .tokenize import query_terms, tokenize


def document_stems(content: str, summary: str | None, tags_json: str) -> set[str]:
    import json

    text = " ".join([content, summary or "", " ".join(json.loads(tags_json))])
    return {stem(token) for token in tokenize(text)}


def matched_terms(terms: Sequence[str], doc_stems: set[str]) -> list[str]:
    return [term for term in terms if stem(term) in doc_stems]


@dataclass(frozen=True)
class TermGroup:
    weight: float
    terms: tuple[str, ...]
    expansions: tuple[object, ...] = ()  # the Expansion objects behind these terms


def term_groups(own_terms: Sequence[str], expansions: Iterable[object]) -> list[TermGroup]:
    """Group expansion terms by weight so each weight class is one BM25 query."""
    groups: list[TermGroup] = [TermGroup(1.0, tuple(own_terms))] if own_terms else []
    seen = set(own_terms)
    by_weight: dict[float, tuple[list[str], list[object]]] = {}
    for expansion in expansions:
        terms = [t for t in query_terms(getattr(expansion, "term")) if t not in seen]
        if not terms:
            continue
        seen.update(terms)
        weight = round(float(getattr(expansion, "weight")), 2)
        bucket = by_weight.setdefault(weight, ([], []))
        bucket[0].extend(terms)
        bucket[1].append(expansion)
    for weight in sorted(by_weight, reverse=True):
        terms, sources = by_weight[weight]
        groups.append(TermGroup(weight, tuple(terms), tuple(sources)))
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
