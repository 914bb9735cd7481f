"""The relevance floor applied to one search's candidates (issue 11).

Glue between the index (document frequencies, which memories hold which term:
what the postings already know, no text is read) and the pure functions of
``palace.relevance``. The pipeline calls ``measure`` once per search with its
BM25 and vector candidates and gets, per candidate, the keyword coverage, the
calibrated keyword and vector relevance and whether it is strong or weak.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from .relevance import (CosineScale, ExpansionMatch, Floors, QueryUnit, absent_words, confidence,
                        cosine_relevance, coverage_by_candidate, floors_for, fuse_calibrated,
                        informative_words, keyword_relevance, query_units, scale_for, smoothed_idf)
from .focus import (LOOSE_RELATIONS, FocusGap, SpeakerGap, find_gap, focus_words,
                    held_in_one_sentence, latin_spellings, names_may_be_new, result_reason, speaker_gap)
from .answer_types import AskedKind, asked_kind, states_kind, type_phrase_words, type_terms
from .retrieval import fuse, phrase_words
from .tokenize import query_terms


# The joint floor: a result whose keyword coverage is below JOINT_COVERAGE and whose cosine
# is below the model's joint cosine is weak, however it was lifted (a companion, a graph
# link). Per model, from bench_precision's tuning halves (docs/search-quality.md, "Round 5"):
# USE v3 at coverage 0.2 and cosine 0.15 empties four unanswerable questions for no answer
# lost (coverage 0.18–0.22 alike; cosine 0.17 loses one, a coverage of 0.25 one on zh);
# MiniLM on LongMemEval and LoCoMo gains nothing at any value, so it has none; a model
# never measured has none.
JOINT_COVERAGE = 0.2
# a result inside the period the query names ("两周前工作上出了什么状况") has the time as
# evidence: the joint floor leaves it alone (found on new_6 after its first score;
# measured on the tuning halves, docs/search-quality.md "Round 5: after the merge")
JOINT_SPARES_PERIOD = True
JOINT_FLOORS: dict[str, float] = {"use-multilingual": 0.15}


def joint_floor(model_name: str | None) -> float | None:
    """The model's joint floor cosine (keyed like relevance.COSINE_SCALES), or None."""
    name = (model_name or "").lower()
    return next((cosine for key, cosine in JOINT_FLOORS.items() if key in name), None)


# how far below the model's noise cosine a companion may lie (in strong − noise spans):
# the tightest that keeps the zh tuning half's recall with USE (docs/search-quality.md, "Companions")
EVIDENCE_SPANS = 2.0


@dataclass(frozen=True)
class Together:
    """The focus words (two or more), the memories holding them all, and the surfaces
    each word is literally held by (its own term, a part; each a group of terms and
    whether all are needed): what ``sentence_check`` reads in those memories' text."""

    focus: tuple[str, ...]
    rids: frozenset[int]
    surfaces: dict[str, list[tuple[tuple[str, ...], bool]]]


@dataclass
class Measured:
    coverage: dict[int, float] = field(default_factory=dict)      # keyword candidates
    keyword: dict[int, float] = field(default_factory=dict)       # calibrated keyword relevance
    vector: dict[int, float] = field(default_factory=dict)        # calibrated cosine
    scale: CosineScale | None = None
    floors: Floors | None = None
    absent: tuple[str, ...] = ()  # informative query words no memory holds (see ABSENT_RULE)
    names_entity: bool = False  # with absent words: the query names a graph entity (names_an_entity)
    gap: FocusGap | None = None  # no memory holds the query's focus words together (palace.focus)
    focus_held: dict[int, tuple[str, ...]] = field(default_factory=dict)  # per candidate, with a gap
    together: Together | None = None  # with no gap: the memories holding the focus words together
    speaker: SpeakerGap | None = None  # the named speaker does not say it (palace.focus.speaker_gap)
    joint: float | None = None  # the model's joint floor cosine (JOINT_FLOORS), None: no joint floor
    asked: AskedKind | None = None  # the question asks for an amount or a number (palace.answer_types)
    cannot_answer: frozenset[int] = frozenset()  # with ``asked``: candidates stating no such number
    in_period: frozenset[int] = frozenset()  # candidates inside the period the query names
    asking: tuple[str, ...] = ()  # with ``asked``: the query words asking for it, not counted as topic

    @property
    def near_miss(self) -> FocusGap | SpeakerGap | None:
        """Why the query is a near miss (every result weak), or None."""
        return self.gap or self.speaker

    def weak_reason(self, rid: int) -> str | None:
        """Why the focus rule made ``rid`` weak, in words (None: it did not)."""
        if self.gap is not None:
            return result_reason(self.gap, self.focus_held.get(rid, ()))
        if self.speaker is not None:
            return "weak: " + self.speaker.note().removeprefix("nothing found: ")
        if self.asked is not None and rid in self.cannot_answer:
            return self.asked.reason()
        return None

    def joint_reason(self, rid: int, cosine: float | None) -> str | None:
        """Why the joint floor made ``rid`` weak, with its two figures (None: it did not)."""
        if not self.below_joint(rid, cosine) or cosine is None:
            return None
        return (f"weak: holds little of the question (keyword coverage {self.coverage.get(rid, 0.0):.2f}) "
                f"and reads unlike it (cosine {cosine:.2f})")

    def below_joint(self, rid: int, cosine: float | None) -> bool:
        """Whether ``rid`` holds little of the query *and* reads unlike it: keyword coverage
        below JOINT_COVERAGE and a cosine below the model's joint floor (JOINT_FLOORS).
        Such a result is weak whatever lifted it (a companion of the best, a graph link
        through one name): each retriever's evidence alone is below its noise."""
        return (self.joint is not None and cosine is not None and cosine < self.joint
                and self.coverage.get(rid, 0.0) < JOINT_COVERAGE
                and not (JOINT_SPARES_PERIOD and rid in self.in_period))

    def has_evidence(self, rid: int, cosine: float | None) -> bool:
        """Whether ``rid`` has any evidence of its own: a query word it holds, or a cosine
        within EVIDENCE_SPANS of the model's noise (best-in-its-retriever is no evidence:
        in a small palace the best vector hit may be unrelated). Nothing measured: yes."""
        if self.floors is None or self.scale is None:
            return True
        if self.coverage.get(rid, 0.0) > 0:
            return True
        span = self.scale.strong - self.scale.noise
        return cosine is not None and cosine >= self.scale.noise - EVIDENCE_SPANS * span

    def confidence(self, rid: int, cosine: float | None) -> str:
        if self.floors is None or self.scale is None:  # nothing was measured: no floor
            return "strong"
        return confidence(self.coverage.get(rid), cosine, self.floors, self.scale)


# A query naming something no memory mentions ("陈静的生日" where 陈静 appears nowhere)
# is answered with nothing, and the note says which word. Which words count
# (relevance.informative_words): "names" (the default: proper names), "nouns" (Chinese
# common nouns too), "words" (any longer Latin word too). Applied with the setting
# MEMORY_ABSENT_NAMES (off by default: measured on the tuning halves to cost LoCoMo
# recall, docs/search-quality.md); the benchmarks switch the kind with --patch.
ABSENT_RULE = "names"
# ... unless vectors find a memory at least this close on the model's calibrated scale
# (1.0 = the median cosine of an answering memory): a paraphrase can say 猫 for 咪咪
ABSENT_VECTOR_OVERRIDE = 1.0


# words the palace itself proposed (pseudo-relevance feedback, vector neighbours) help
# ranking but are no evidence that a memory answers the query: the floors were
# measured on the user's words and the concept map's expansions only
UNCOUNTED_RELATIONS = frozenset({"feedback", "neighbour"})


def measure(index: Any, own_terms: Sequence[str], groups: Sequence[Any],
            keyword: Mapping[int, float], vector: Mapping[int, float], *,
            model_name: str | None, override: float | None, text: str = "",
            absent_rule: str = "off", focus_latin: str | None = None, answer_types: bool = False) -> Measured:
    expansions = []
    for group in groups[1 if own_terms else 0:]:
        for exp in group.expansions:
            if exp.relation in UNCOUNTED_RELATIONS:
                continue
            words = phrase_words(exp.term)
            terms = tuple(words) if words else tuple(query_terms(exp.term))
            expansions.append(ExpansionMatch(exp.source, float(exp.weight), terms, bool(words),
                                             exp.relation))
    all_terms = set(own_terms) | {t for e in expansions for t in e.terms}
    docs, holders = index.term_holders(all_terms)
    idf = {t: smoothed_idf(len(holders[t]), docs) for t in own_terms}
    asked = asked_kind(text) if answer_types and ANSWER_TYPES and text and override != 0 else None
    # the words asking for an amount (多少钱, "how much") are no evidence of the topic
    asking = type_terms(asked, own_terms) if asked is not None and "topic" in ANSWER_TYPE_PARTS else set()
    topic = [t for t in own_terms if t not in asking] or list(own_terms)
    coverage = coverage_by_candidate(keyword, query_units(topic), idf, holders,
                                     [e for e in expansions if e.source not in asking])
    best = max(keyword.values(), default=0.0)
    scale = scale_for(model_name)
    measured = Measured(coverage=coverage,
                        keyword={rid: keyword_relevance(coverage[rid], keyword[rid], best) for rid in keyword},
                        vector={rid: cosine_relevance(c, scale) for rid, c in vector.items()},
                        scale=scale, floors=floors_for(scale, override), asked=asked,
                        joint=joint_floor(model_name) if override is None else None,
                        asking=tuple(t for t in own_terms if t in asking and topic != list(own_terms)))
    if focus_latin is not None and text and override != 0:
        measured.gap, measured.focus_held, measured.together = focus_gap(
            text, query_units(own_terms), holders, expansions, set(keyword) | set(vector), focus_latin,
            lambda terms: index.term_holders(terms)[1], docs)
    if absent_rule != "off" and text and override != 0 and not names_may_be_new(text):
        covered = {e.source for e in expansions if any(holders.get(t) for t in e.terms)}
        frequency = {t: len(holders[t]) for t in own_terms}
        absent = absent_words(query_units(own_terms), frequency,
                              informative_words(text, absent_rule) - type_phrase_words(text), covered)
        close = max(measured.vector.values(), default=0.0) >= ABSENT_VECTOR_OVERRIDE and scale.measured
        measured.absent = () if close else tuple(absent)
        measured.names_entity = bool(absent) and names_an_entity(index, text)
    return measured


def names_an_entity(index: Any, text: str) -> bool:
    """Whether ``text`` names an entity the graph knows (a name given in a memory's
    frontmatter, a tag), other than the user: a word no text holds may be one of those.
    Not the user or a function word (``names_no_one``), nor a short Latin key, a title
    the extraction took for a name at a sentence start ("Dr")."""
    if not getattr(index, "supports_graph", False):
        return False
    from .graph.service import entities_in

    return any(not names_no_one(key) and (len(key) >= 3 or not key.isascii())
               for key in entities_in(index, text))


def names_no_one(key: str) -> bool:
    """An entity key the graph retriever does not follow from a query: the user ("I",
    "my", 我: every memory of a personal palace is theirs, and which ones state a
    relation of theirs says nothing of the question) and a lone function word ("how",
    "the", 什么: an extractor's capitalised sentence start). Both were named by nearly
    every LongMemEval question and lifted the 7–13 sessions that hold such a relation
    (docs/search-quality.md, Round 5); ``pm.recall`` still follows them when asked."""
    from .graph.normalise import USER_KEY
    from .tokenize import EN_STOPWORDS, ZH_STOPWORDS

    return key == USER_KEY or (GRAPH_SKIP_FUNCTION_WORDS and (key in EN_STOPWORDS or key in ZH_STOPWORDS))


GRAPH_SKIP_FUNCTION_WORDS = True


# The focus rule (palace.focus; setting MEMORY_FOCUS): which Latin words count as focus
# words (focus.LATIN_KINDS). "none": the rule reads Chinese words only. Measured on the
# tuning halves (docs/search-quality.md, "Round 3"): Latin names empty no unanswerable
# question of zh, LongMemEval or LoCoMo ("names" and "none" tie), Latin "words" lose two
# zh answers for none gained; a part that empties nothing is not kept. The benchmarks
# switch it with --patch palace.floor.FOCUS_LATIN=names.
FOCUS_LATIN = "none"
# FOCUS_LATIN = "rare": a Latin word of four letters or more counts when at most this
# share of the palace's memories holds it (measured, docs/search-quality.md, "Round 4")
RARE_SHARE = 0.1


# a Chinese focus word is also held by a memory writing it in pinyin (豆豆 / Doudou: a
# name across scripts); the benchmarks switch it off with --patch palace.floor.TRANSLITERATE=
TRANSLITERATE = True


def focus_holders(units: Sequence[QueryUnit], holders: Mapping[str, Any],
                  expansions: Sequence[ExpansionMatch]) -> tuple[dict[str, set], dict[str, set]]:
    """Per query unit, the memories holding it strictly (its word, a part, a close
    expansion) and loosely (a broader word too): what ``focus.find_gap`` reads."""
    strict: dict[str, set] = {}
    loose: dict[str, set] = {}
    for unit in units:
        own: set = set()
        for term in (unit.term, *unit.parts):
            own |= set(holders.get(term, ()))
        close, broad = set(own), set(own)
        for exp in expansions:
            if not (exp.source == unit.term or exp.source in unit.parts or unit.term in exp.source):
                continue
            sets = [set(holders.get(t, ())) for t in exp.terms]
            if not sets:
                continue
            held = set.intersection(*sets) if exp.needs_all else set.union(*sets)
            broad |= held
            if exp.relation not in LOOSE_RELATIONS:
                close |= held
        strict[unit.term], loose[unit.term] = close, broad
    return strict, loose


def focus_surfaces(units: Sequence[QueryUnit], focus: Sequence[str]) -> dict[str, list[tuple[tuple[str, ...], bool]]]:
    """Per focus word, the terms that hold it literally: its own term and its parts. Not
    the concept map's expansions: a segmented one matches by any of its words (皮肤问题 by
    问题), too loose to say what one sentence is about (new_4 x03 on the tuning half)."""
    return {unit.term: [((term,), False) for term in (unit.term, *unit.parts)]
            for unit in units if unit.term in focus}


def focus_gap(text: str, units: Sequence[QueryUnit], holders: Mapping[str, Any],
              expansions: Sequence[ExpansionMatch], candidates: set[int],
              latin: str, holders_of: Callable[[set[str]], Mapping[str, Any]] | None = None,
              docs: int = 0) -> tuple[FocusGap | None, dict[int, tuple[str, ...]], Together | None]:
    """The query's focus gap (None: some memory holds its focus words together) and,
    with a gap, the focus words each candidate holds (for its explanation); with none,
    the memories holding two or more focus words together (``Together``, for
    ``sentence_check``). ``holders_of`` (terms → memories holding each) looks up a
    Chinese focus word's pinyin spelling (豆豆 → doudou), asked only when there is a gap."""
    focus = focus_words(text, [u.term for u in units], latin)
    if holders_of is not None and SPLIT_NAMES:
        units, holders, focus = split_trailing_words(units, holders, focus, holders_of)
    if latin == "rare":  # a Latin word most memories hold names no particular thing
        focus = [w for w in focus if not w.isascii() or len(holders.get(w, ())) <= RARE_SHARE * docs]
    if not focus:
        return None, {}, None
    strict, loose = focus_holders([u for u in units if u.term in focus], holders, expansions)
    gap = find_gap(focus, strict, loose)
    if gap is not None and holders_of is not None and TRANSLITERATE:
        spelled = {word: latin_spellings(word) for word in focus}
        wanted = {s for spellings in spelled.values() for s in spellings}
        if wanted:
            found = holders_of(wanted)
            for word, spellings in spelled.items():
                for spelling in spellings:
                    strict.setdefault(word, set()).update(found.get(spelling, ()))
                    loose.setdefault(word, set()).update(found.get(spelling, ()))
            gap = find_gap(focus, strict, loose)
    if gap is None:
        known = [w for w in focus if strict.get(w)]
        if len(known) < 2 or not ONE_SENTENCE:
            return None, {}, None
        rids = frozenset(set.intersection(*(set(strict[w]) for w in known)))
        return None, {}, Together(tuple(known), rids, focus_surfaces(units, known))
    held = {rid: tuple(w for w in gap.focus if rid in strict.get(w, ())) for rid in candidates}
    return gap, held, None


# jieba joins a name and the verb after it ("苏婉说她来订…" → 苏婉说, "郑浩要给…" → 郑浩要):
# a focus word no memory holds, ending in one of these, is the name before it when some
# memory holds that. --patch palace.floor.SPLIT_NAMES=False for the figures without it
SPLIT_NAMES = True
_TRAILING = frozenset("说要在给和跟让把被也都还就是")


def split_trailing_words(units: Sequence[QueryUnit], holders: Mapping[str, Any], focus: Sequence[str],
                         holders_of: Callable[[set[str]], Mapping[str, Any]]
                         ) -> tuple[list[QueryUnit], Mapping[str, Any], list[str]]:
    """``units``, ``holders`` and ``focus`` with each Chinese focus word no memory holds
    whose last character is a verb or particle (_TRAILING) replaced by the word before it,
    when some memory holds that (one postings lookup, only for such words)."""
    wanted = {w[:-1]: w for w in focus if len(w) >= 3 and w[-1] in _TRAILING and not w.isascii()
              and not holders.get(w)}
    if not wanted:
        return list(units), holders, list(focus)
    found = holders_of(set(wanted))
    renamed = {whole: part for part, whole in wanted.items() if found.get(part)}
    if not renamed:
        return list(units), holders, list(focus)
    merged = dict(holders)
    merged.update({part: found[part] for part in renamed.values()})
    units = [QueryUnit(renamed[u.term]) if u.term in renamed else u for u in units]
    return units, merged, [renamed.get(w, w) for w in focus]


# focus words held together must be held in one sentence of some memory (sentence_check);
# --patch palace.floor.ONE_SENTENCE=False for the figures without it
ONE_SENTENCE = True
# ... read in at most this many memories (their text); more, and some sentence is assumed to
SENTENCE_READ_MAX = 20
# ... and a memory longer than this is not read: it may hold them in one sentence (five
# 650 kB memories holding both words made each such search 2 s slower, tokenizing them)
SENTENCE_READ_CHARS = 20_000


def sentence_check(measured: Measured, rows_of: Callable[[list[int]], Mapping[int, Any]],
                   candidates: Sequence[int]) -> None:
    """With no focus gap but memories holding the focus words together (``measured.together``):
    when none of them holds all in one sentence, the query is a near miss (a ``FocusGap``
    with ``apart``), each candidate's held words noted. Reads those memories' text."""
    together = measured.together
    if together is None or measured.gap is not None or not together.rids or len(together.rids) > SENTENCE_READ_MAX:
        return
    rows = rows_of(sorted(together.rids))
    contents = sorted((row["content"] for row in rows.values()), key=len)
    if contents and len(contents[-1]) > SENTENCE_READ_CHARS:
        return  # a memory too long to read on every search: it may say it in one sentence
    if any(held_in_one_sentence(content, together.surfaces) for content in contents):
        return
    measured.gap = FocusGap(together.focus, (), (), (), apart=True)
    measured.focus_held = {rid: together.focus for rid in candidates if rid in together.rids}


# the answer-type check (palace.answer_types): a question asking for an amount or a
# number is answered only by a memory stating one; --patch palace.floor.ANSWER_TYPES=False
# for the figures without it
ANSWER_TYPES = True
# its two parts, for measuring each alone (--patch palace.floor.ANSWER_TYPE_PARTS=topic):
# "topic" (the asking words are no evidence), "number" (a memory stating none is weak)
ANSWER_TYPE_PARTS = "topic,number"


def answer_check(measured: Measured, ranked: Sequence[tuple[float, int]], rows: Mapping[int, Any]) -> None:
    """With a question asking for an amount or a number (``measured.asked``), mark the
    ranked candidates whose text states none (``answer_types.states_kind``): they cannot
    answer it. Reads the candidates' text (a regular expression each)."""
    if measured.asked is None or "number" not in ANSWER_TYPE_PARTS:
        return
    kind = measured.asked.kind
    measured.cannot_answer = frozenset(rid for _, rid in ranked
                                       if rid in rows and not states_kind(rows[rid]["content"], kind))


DIALOGUE_DEPTH = 10  # the best results the speaker rule reads (their text, once per search)


def dialogue_gap(text: str, ranked: Sequence[tuple[float, int]], rows: Mapping[int, Any],
                 depth: int = DIALOGUE_DEPTH) -> SpeakerGap | None:
    """``focus.speaker_gap`` over the best ``depth`` results (rows by row id, with
    their ``content``): the one rule that reads memory text, a few memories only."""
    return speaker_gap(text, [rows[rid]["content"] for _, rid in ranked[:depth] if rid in rows])


# "normalised" (the default): each retriever's best = 1, then a weighted sum; "mixed":
# half that, half the calibrated scores; "calibrated": absolute scores only. Measured
# on the tuning halves (docs/search-quality.md): mixed helped USE on the zh set
# (0.907 → 0.930 recall@5) but cost e5 (0.953 → 0.930) and MiniLM (0.810 → 0.663),
# and changed nothing on LongMemEval and LoCoMo; so the calibrated scores decide the
# floor, and ranking keeps the normalised fusion. A module constant, not a setting:
# the benchmarks switch it (--fusion) to measure the choice.
FUSION = "normalised"


def fused_relevance(keyword: Mapping[int, float], vector: Mapping[int, float], measured: Measured, *,
                    vector_share: float, mode: str | None = None) -> dict[int, float]:
    """Fused relevance of every candidate in [0, 1] (see FUSION and docs/search-quality.md)."""
    mode = mode or FUSION
    if mode == "rrf":
        return reciprocal_rank_fusion(keyword, vector, vector_share=vector_share)
    relative = fuse(keyword, vector, vector_share=vector_share)
    if mode == "normalised":
        return relative
    absolute = fuse_calibrated(measured.keyword, measured.vector, vector_share=vector_share)
    if mode == "calibrated":
        return absolute
    return {rid: 0.5 * relative.get(rid, 0.0) + 0.5 * absolute.get(rid, 0.0)
            for rid in set(relative) | set(absolute)}


RRF_K = 60  # the constant of Cormack et al. (2009): rank 1 and rank 10 differ by 15 %


def reciprocal_rank_fusion(keyword: Mapping[int, float], vector: Mapping[int, float], *,
                           vector_share: float) -> dict[int, float]:
    """Weighted reciprocal-rank fusion, scaled so a candidate first in both gets 1.0."""
    if not vector:
        return fuse(keyword, {}, vector_share=vector_share)
    out: dict[int, float] = {}
    for share, scores in ((1.0 - vector_share, keyword), (vector_share, vector)):
        ordered = sorted(scores.items(), key=lambda kv: -kv[1])
        for rank, (rid, _score) in enumerate(ordered, 1):
            out[rid] = out.get(rid, 0.0) + share * (RRF_K + 1) / (RRF_K + rank)
    return out
