"""Stage 2, the query: the words of the request analysed once, for every later stage.

- **words**: the query's own content terms (``tokenize.query_terms``: jieba search
  mode for Chinese, so 数据库 also yields 数据 and 据库), in order;
- **units**: its informative words, each longest word with the sub-words it was
  segmented into (数据库 ⊃ 数据, 据库), which is how coverage counts them;
- **expansions**: concept-map terms standing for a word (数据库 → PostgreSQL), weighted
  below the user's own words; a multiword one ("rate limiting") matches only whole;
- **units for BM25**: the own words at weight 1.0, each expansion at its weight and
  tied to the word it stands for (``index.postings.Unit``);
- **tags**: ``#tag`` words and words shaped like a tag path (``project/palace``);
- **names**: the words naming someone or something (陈静, "Biscuit"), which the judge
  needs some memory to mention.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from palace.index.postings import Unit, needed_terms, query_units
from palace.text.script import has_han
from palace.text.segment import NAME_TAGS, tag
from palace.text.tokenize import query_terms, stem, tokenize
from palace.text.words import EVENT_WORDS, GENERIC_NOUNS


@dataclass(frozen=True)
class QueryUnit:
    """One informative word of the query and the sub-words it was segmented into."""

    term: str
    parts: tuple[str, ...] = ()


def informative_units(terms: Sequence[str]) -> list[QueryUnit]:
    """Group jieba search-mode output (数据, 据库, 数据库) under its longest words: a term
    inside a longer query term is one of its parts. Order follows the query."""
    distinct = list(dict.fromkeys(t for t in terms if t))
    units = []
    for term in distinct:
        if any(term != other and term in other for other in distinct):
            continue
        units.append(QueryUnit(term, tuple(t for t in distinct if t != term and t in term)))
    return units


def phrase_words(term: str) -> tuple[str, ...] | None:
    """The words of a multiword expansion written with spaces or hyphens ("front-end
    framework"): a memory matches it only with all of them. Chinese terms (segmented
    into overlapping sub-words) match by any."""
    words = tuple(query_terms(term))
    if len(words) > 1 and not has_han(term):
        return words
    return None


@dataclass(frozen=True)
class Expanded:
    """A concept expansion as the later stages see it: the query word it stands for,
    its weight and relation, and the terms a memory must hold (all of a multiword
    phrase, any of a segmented Chinese word)."""

    term: str
    source: str
    weight: float
    relation: str
    terms: tuple[str, ...]
    needs_all: bool


def _source_term(source: str) -> str:
    """The query term an expansion's idf is capped by: the longest of its source's terms."""
    terms = query_terms(source) or [source]
    return max(terms, key=len)


def expand(own: Sequence[str], expansions: Iterable[Any]) -> tuple[list[Expanded], list[tuple[float, list[Any]]]]:
    """The expansions that add a term the query lacks, and the BM25 groups (weight,
    items) of the own words and of each expansion weight."""
    seen = set(own)
    kept: list[Expanded] = []
    by_weight: dict[float, list[Any]] = {}
    for expansion in expansions:
        tokens = query_terms(expansion.term)
        scored = [t for t in tokens if t not in seen]
        if not scored:
            continue
        seen.update(scored)
        words = phrase_words(expansion.term)
        weight = round(float(expansion.weight), 2)
        source = _source_term(expansion.source)
        kept.append(Expanded(expansion.term, expansion.source, weight, expansion.relation,
                             tuple(words) if words else tuple(tokens), bool(words)))
        items = by_weight.setdefault(weight, [])
        if words:
            items.append((words, tuple(scored), source))
        else:
            items.extend(((t,), (t,), source) for t in scored)
    groups: list[tuple[float, list[Any]]] = [(1.0, list(own))] if own else []
    groups += [(weight, by_weight[weight]) for weight in sorted(by_weight, reverse=True)]
    return kept, groups


# --- names: what a question is about, which the palace must mention to answer it -----
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’\-]*")
_SENTENCE_START = re.compile(r"(^|[.!?。！？]\s*)$")
# the answer's type in "What European countries has…": no thing a memory must mention
_EN_TYPE_PHRASE = re.compile(r"\b(?:what|which|whose)\s+((?:[A-Za-z\-]+\s+){1,3}?)"
                             r"(?=(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|"
                             r"should|might|must)\b)", re.IGNORECASE)
# a question asking for a guess or for what the assistant said: a name may be new to it
_NAMES_MAY_BE_NEW = re.compile(
    r"^\s*(?:would|could|might|is it likely|are they likely|do you think)\b"
    r"|\byou (?:said|told|mentioned|recommended|suggested|provided|wrote|gave|listed)\b"
    r"|\bour (?:previous|last|earlier) (?:chat|conversation|discussion)", re.IGNORECASE)


def query_names(text: str) -> tuple[str, ...]:
    """The query's words that name something, as ``query_terms`` gives them: a Latin
    word capitalised where no sentence starts ("Biscuit", "NovaTech"), a Chinese word
    jieba tags as a person, place, organisation or other proper noun (陈静, 杭州); none
    when the question asks for a guess or for what the assistant said."""
    if not text.strip() or _NAMES_MAY_BE_NEW.search(text):
        return ()
    skip = {t for m in _EN_TYPE_PHRASE.finditer(text) for t in tokenize(m.group(1))}
    names: dict[str, None] = {}
    for match in _LATIN_WORD.finditer(text):
        word = match.group(0)
        if word[0].isupper() and not _SENTENCE_START.search(text[:match.start()]):
            names.update((t, None) for t in tokenize(word) if t not in GENERIC_NOUNS and len(t) > 1)
    if has_han(text):
        for word, pos in tag(text):
            if pos in NAME_TAGS and has_han(word) and len(word) >= 2 and word not in GENERIC_NOUNS:
                names.update((t, None) for t in tokenize(word))
    return tuple(name for name in names if name not in skip)


# A word of the query shaped like a tag path (project/palace) or written as #tag.
_TAG_WORD = re.compile(r"(?<![^\s(（\[【,，;；])#([^\s#,，;；。()（）\[\]【】]+)"
                       r"|(?<![^\s(（\[【,，;；])([^\s/#,，;；。()（）\[\]【】]+(?:/[^\s/#,，;；。()（）\[\]【】]+)+)")


def query_tags(text: str) -> tuple[str, ...]:
    """The tags a query names: ``#tag`` words and words shaped like a tag path
    (``project/palace``), as written and case-folded, each once."""
    tags: dict[str, None] = {}
    for match in _TAG_WORD.finditer(text):
        tag = (match.group(1) or match.group(2)).strip("/.")
        if tag:
            tags.setdefault(tag, None)
            tags.setdefault(tag.casefold(), None)
    return tuple(tags)


@dataclass(frozen=True)
class Query:
    text: str                           # the query without its time words
    words: tuple[str, ...]              # own content terms, in order
    units: tuple[QueryUnit, ...]        # own informative words with their parts
    expansions: tuple[Expanded, ...]
    bm25: tuple[Unit, ...]              # what the keyword retriever scores
    tags: tuple[str, ...]
    names: tuple[str, ...] = ()         # the words naming someone or something (query_names)

    @property
    def topic(self) -> tuple[str, ...]:
        """The own words that say what the query is about: all but those asking for
        whatever happened (``EVENT_WORDS``). None, with a period: it asks for the period."""
        return tuple(w for w in self.words if w not in EVENT_WORDS)

    @property
    def stems(self) -> list[str]:
        """Every stem whose postings the keyword retriever and the judge read."""
        own = [stem(w) for w in self.words]
        return list(dict.fromkeys([*own, *needed_terms(self.bm25)]))


def analyse(text: str, expander: Any = None) -> Query:
    """The query ``text`` (its time words already removed) analysed for every stage;
    ``expander``: the concept map (None: no expansion)."""
    own = query_terms(text)
    raw = expander.expand(text) if expander is not None and text.strip() else []
    expansions, groups = expand(own, raw)
    return Query(text=text, words=tuple(own), units=tuple(informative_units(own)),
                 expansions=tuple(expansions), bm25=tuple(query_units(groups)), tags=query_tags(text),
                 names=query_names(text))
