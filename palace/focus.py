"""Does any memory hold the whole question, or only its neighbours? (issue 11, round 3)

The unanswerable questions that reach users are near misses: the words are stored,
the fact is not. "爸爸的生日" in a palace that holds 妈妈's birthday and, elsewhere,
something about 爸爸; "电费多少" where only a 账单 (bill) is mentioned, never the
electricity one. Retrieval scores these like answers (a memory about 生日 is a fine
match for half the question), so the relevance floor cannot tell them apart.

What can be told, cheaply and in words a user understands, is this: take the
question's **focus words** (the ones that name something: nouns, names, time nouns
such as 生日; not verbs, not 什么), keep those the palace knows at all (some memory
holds them), and ask whether **one memory holds all of them**, each by its own
word, a part of it, or a synonym, translation or instance from the concept map. A
broader word (the concept's own terms reached from an instance: 电费 → 账单, the
map's "hypernym") does not count: a memory about "a bill" may be about any bill.
When no memory holds the focus together, the answer is a near miss: every result is
weak and the note says what is missing ("no memory mentions '陈静' together with
'生日'"). Words no memory holds at all are left out of the focus: a paraphrase says
口粮 where the memory says 猫粮 (vectors find those), and ``MEMORY_ABSENT_NAMES``
is the rule for names nobody mentions.

Pure functions over what ``palace.floor.measure`` already read from the postings
(which memories hold each term): no text is read, one set intersection per word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import AbstractSet, Iterable, Mapping, Sequence

from .answer_types import type_phrase_words

__all__ = ["sentences", "held_in_one_sentence", "names_may_be_new", "latin_spellings", "SPELLINGS_MAX", "FocusGap", "SpeakerGap", "speaker_gap", "dialogue_lines", "SPEAKER_SHARE", "FOCUS_TAGS", "LOOSE_RELATIONS", "focus_words", "find_gap", "result_reason"]

# jieba tags of the words a question is *about*: common nouns (n), names of people,
# places, organisations and other proper nouns (nr, nrt, nrfg, ns, nt, nz), time nouns
# (t: 生日, 周末; the time reasoner has already removed 上周 and dates), nominal verbs
# (vn: 考试, 演练) and jieba's English words inside Chinese text (eng)
FOCUS_TAGS = frozenset({"n", "nr", "nrt", "nrfg", "ns", "nt", "nz", "t", "vn", "eng"})
# Latin words (jieba tags those "eng"; there is no English tagger here): "names"
# counts capitalised words that do not open a sentence, "words" any word of four
# letters or more too, "rare" those of them few memories hold (palace.floor.RARE_SHARE),
# "none" no Latin word (the default: see FOCUS_LATIN in palace.floor)
LATIN_KINDS = ("none", "names", "words", "rare")
# which gaps count (for measuring each alone with --patch palace.focus.GAP_KINDS=...):
# "together" (no memory holds the focus words together), "broader" (a focus word held
# only through a broader word); both, measured on the tuning halves
GAP_KINDS = "together,broader"
# an expansion of this relation is no evidence a memory holds the query's word
LOOSE_RELATIONS = frozenset({"hypernym", "feedback", "neighbour"})
# nouns that name no particular thing: a question is not about 时候 or "things"
_GENERIC = frozenset("""时候 时间 东西 事情 事儿 情况 问题 方面 地方 样子 办法 方法 原因 结果 部分
    内容 方式 感觉 建议 推荐 哪里 今天 昨天 明天 现在 以前 之前 后来 最近 名字 多少 用户
    thing things something anything everything time times kind kinds sort lot week weeks
    month months year years today yesterday tomorrow last next first ever recently
    recommend suggest suggestions advice ideas idea tips name names
    计划 安排 打算 经历 记录 plan plans""".split())
# the noun a question word governs names the *type* of the answer, not its topic:
# "用的什么工具" is answered by a memory naming Prometheus, not the word 工具;
# "which database" by one naming PostgreSQL
_WH_HEAD = re.compile(r"(?:什么|哪个|哪种|哪款|哪些|哪家|哪位|哪一|啥)([\u4e00-\u9fff]{1,4})"
                      r"|\b(?:which|what|whose)\s+([A-Za-z][A-Za-z\-]*)", re.IGNORECASE)
# a question joining things ("YouTube and TikTok", "读《A》和《B》") may be answered by
# several memories together (LongMemEval's multi-session questions: the rule emptied
# five answerable ones on the tuning half), so such a question gets no focus rule; nor
# does a list of Chinese keywords ("住在 北京 杭州": words the user lists, not one fact)
_COORDINATED = re.compile(r"\b(?:and|or|both|between|versus|vs)\b|[和与跟及或、]|以及|还有"
                          r"|[\u4e00-\u9fff]\s+[\u4e00-\u9fff]", re.IGNORECASE)
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’\-]*")
_SENTENCE_START = re.compile(r"(^|[.!?。！？]\s*)$")


@dataclass(frozen=True)
class FocusGap:
    """No memory holds the question's focus words together.

    ``focus``: the focus words the palace knows, in query order; ``closest``: the
    focus words the best-covering memory holds (its other words are the gap);
    ``broader``: focus words some memory holds only through a broader word."""

    focus: tuple[str, ...]
    closest: tuple[str, ...]
    broader: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()  # kinship words no memory holds at all (KIN_WORDS)
    apart: bool = False  # memories hold the focus words together, but never in one sentence

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(w for w in self.focus if w not in self.closest)

    def note(self) -> str:
        quoted = ", ".join(f"'{w}'" for w in self.focus)
        if self.unknown:
            return "nothing found: no memory mentions " + ", ".join(f"'{w}'" for w in self.unknown)
        if self.apart:
            return f"nothing found: no memory mentions {quoted} in one sentence (only apart)"
        if len(self.focus) == 1:
            word = self.focus[0]
            return f"nothing found: no memory mentions '{word}' itself, only broader words"
        text = f"nothing found: no memory mentions {quoted} together"
        if self.closest:
            text += (" (the closest mention " + ", ".join(f"'{w}'" for w in self.closest)
                     + ", not " + ", ".join(f"'{w}'" for w in self.missing) + ")")
        return text


def focus_words(text: str, units: Sequence[str], latin: str = "none") -> list[str]:
    """The query units (``query_terms`` output, grouped) that name what the question
    is about, in query order: Chinese words by jieba's tags (FOCUS_TAGS), Latin
    words by ``latin`` (LATIN_KINDS). Generic nouns never count."""
    from .tokenize import has_han, tokenize

    if latin not in LATIN_KINDS:
        raise ValueError(f"latin must be one of {LATIN_KINDS}, got {latin!r}")
    if _COORDINATED.search(text):
        return []
    wanted: set[str] = set()
    if has_han(text):
        import rjieba

        for word, tag in rjieba.tag(text):
            if tag == "t" and _is_time_expression(word):
                continue  # 上周, 周末: a period (the time reasoner's, even when it is off), not a topic
            if tag in FOCUS_TAGS and has_han(word):
                wanted.update(u for u in units if has_han(u) and (u in word or word in u))
    if latin != "none":
        for match in _LATIN_WORD.finditer(text):
            word = match.group(0)
            capital = word[0].isupper() and not _SENTENCE_START.search(text[:match.start()])
            if capital or (latin in ("words", "rare") and len(word) >= 4):
                wanted.update(t for t in tokenize(word) if t in units)
    heads: set[str] = set()
    for match in _WH_HEAD.finditer(text):
        head = match.group(1) or match.group(2) or ""
        heads.update(u for u in units if u and (u in head if has_han(u) else u in tokenize(head)))
    return [u for u in units if u in wanted and u not in heads and u not in _GENERIC and len(u) >= 2]


def _is_time_expression(word: str) -> bool:
    from datetime import datetime

    from .time_reasoning import parse_time

    return parse_time(word, now=datetime(2000, 1, 1)) is not None  # any fixed day: only "is it a time?"


# a person named by kinship (爷爷, 老伴, 孙女) is a name: a question about one no memory
# mentions, even through the concept map's synonyms and broader words, cannot be answered
# from the palace ("爷爷的生日礼物" where only 妈妈's birthday present is stored). Other
# focus words no memory holds are left out (paraphrases: vectors find those)
KIN_WORDS = frozenset("""爷爷 奶奶 外公 外婆 姥姥 姥爷 祖父 祖母 爸爸 妈妈 父亲 母亲 老爸 老妈 爹 娘
    哥哥 姐姐 弟弟 妹妹 儿子 女儿 孙子 孙女 外孙 外孙女 老婆 老公 妻子 丈夫 老伴 媳妇 太太 先生
    岳父 岳母 公公 婆婆 叔叔 阿姨 舅舅 舅妈 姑姑 姑父 姨妈 姨父 伯伯 伯母 婶婶 侄子 侄女 外甥
    外甥女 表哥 表姐 表弟 表妹 堂哥 堂姐 堂弟 堂妹 女婿 儿媳 嫂子 姐夫 妹夫 弟媳""".split())
ABSENT_KIN = True  # --patch palace.focus.ABSENT_KIN=False for the figures without it


def find_gap(focus: Sequence[str], strict: Mapping[str, AbstractSet[int]],
             loose: Mapping[str, AbstractSet[int]]) -> FocusGap | None:
    """A ``FocusGap`` when no memory holds every focus word the palace knows.

    ``strict``: focus word → memories holding it by its own word, a part of it or a
    close expansion; ``loose``: the same plus broader words. A focus word no memory
    holds even loosely is unknown to the palace and left out."""
    kinds = set(GAP_KINDS.split(","))
    unknown = tuple(w for w in focus if ABSENT_KIN and w in KIN_WORDS and not strict.get(w) and not loose.get(w))
    if unknown:
        return FocusGap(unknown, (), (), unknown)
    known = [w for w in focus if strict.get(w) or ("broader" in kinds and loose.get(w))]
    if not known:
        return None
    broader = tuple(w for w in known if not strict.get(w))
    if "together" not in kinds and not broader:
        return None
    together: set[int] | None = None
    for word in known:
        holders = set(strict.get(word, ()))
        together = holders if together is None else together & holders
        if not together:
            break
    if together:
        return None
    counts: dict[int, list[str]] = {}
    for word in known:
        for rid in strict.get(word, ()):
            counts.setdefault(rid, []).append(word)
    best = max(counts.values(), key=len, default=[])
    closest = tuple(w for w in known if w in best)
    return FocusGap(tuple(known), closest, broader)


# where one statement ends: a memory holding two focus words in different sentences (a
# chat's different lines: "高乐说想去冰雪大世界" and "高欣的钢琴不能断") does not say
# one thing about both. A Chinese comma does not end one.
_SENTENCE_END = re.compile(r"[。！？!?；;\n]+|(?<=\.)\s+")


def sentences(content: str) -> list[str]:
    """``content`` cut where a statement ends (。！？; a line; ". ")."""
    return [part for part in _SENTENCE_END.split(content) if part.strip()]


def held_in_one_sentence(content: str, surfaces: Mapping[str, Sequence[tuple[tuple[str, ...], bool]]]) -> bool:
    """Whether one sentence of ``content`` holds every focus word, each by one of its
    ``surfaces`` (terms, all needed?) as ``tokenize`` and ``stem`` give them. True too
    when the memory as a whole does not show a word this way (it was held some other
    way: a concept expansion, a pinyin spelling): then the sentences cannot tell."""
    from .tokenize import stem, tokenize

    def terms_of(text: str) -> set[str]:
        tokens = tokenize(text)
        return set(tokens) | {stem(t) for t in tokens}

    def holds(terms: set[str], word: str) -> bool:
        return any((all if needs_all else any)(t in terms for t in group) for group, needs_all in surfaces[word])

    if not all(holds(terms_of(content), word) for word in surfaces):
        return True
    return any(all(holds(terms, word) for word in surfaces) for terms in map(terms_of, sentences(content)))


# a Chinese name is also written in pinyin ("豆豆" / "Doudou", "秦悦" / "Qinyue") in
# English memories: the toneless syllables, joined, count as the same word. At most this
# many spellings of one word (each polyphonic character multiplies them)
SPELLINGS_MAX = 8


# questions that may rightly name something no memory mentions, so the absent-names rule
# leaves them alone: a guess asked for ("Would Melanie enjoy … by Vivaldi?": the answer
# is inferred from her tastes) and what the assistant itself said ("in our previous chat
# … Tanqueray's treatise": the name was in its reply, which a palace of the user's own
# words need not hold)
_NAMES_MAY_BE_NEW = re.compile(
    r"^\s*(?:would|could|might|is it likely|are they likely|do you think)\b"
    r"|\byou (?:said|told|mentioned|recommended|suggested|provided|wrote|gave|listed)\b"
    r"|\bour (?:previous|last|earlier) (?:chat|conversation|discussion)", re.IGNORECASE)


def names_may_be_new(text: str) -> bool:
    """Whether ``text`` asks for a guess or for what the assistant said: then a name no
    memory mentions is no sign the answer is missing."""
    return bool(_NAMES_MAY_BE_NEW.search(text))


def latin_spellings(word: str) -> list[str]:
    """The pinyin spellings of a Chinese ``word``, toneless, joined and lower-cased
    (豆豆 → ["doudou"]); [] when ``word`` is not all Chinese characters or longer than
    four. pypinyin's character table only (a dependency, pure Python): the
    phrase dictionary would cost a second of loading, and a name has no phrase reading."""
    import unicodedata

    if not 2 <= len(word) <= 4 or not all("\u4e00" <= ch <= "\u9fff" for ch in word):
        return []
    from pypinyin.pinyin_dict import pinyin_dict  # loaded the first time a gap is found
    spellings = [""]
    for ch in word:
        readings = pinyin_dict.get(ord(ch), "")
        plain = dict.fromkeys("".join(c for c in unicodedata.normalize("NFKD", r) if c.isascii()).lower()
                              for r in readings.split(",") if r)
        if not plain:
            return []
        spellings = [s + r for s in spellings for r in plain][:SPELLINGS_MAX]
    return spellings


def result_reason(gap: FocusGap, held: Iterable[str]) -> str:
    """Why one result is weak, in the user's words: what it mentions and what not."""
    have = [w for w in gap.focus if w in set(held)]
    lacks = [w for w in gap.focus if w not in have]
    if gap.apart and not lacks:
        return "weak: mentions " + ", ".join(f"'{w}'" for w in have) + " in different sentences"
    if have:
        return ("weak: mentions " + ", ".join(f"'{w}'" for w in have) + ", not "
                + ", ".join(f"'{w}'" for w in lacks))
    return "weak: mentions none of " + ", ".join(f"'{w}'" for w in gap.focus)


# ------------------------------------------------------------- who said it

# a memory written as a dialogue: turns "Name: what they said" (a chat log, a meeting
# transcript; LoCoMo's sessions), by the one rule embedding uses (palace.chunking)
# the named speaker's own lines must cover more than this share (a third) of the question
# words the other speakers' best line covers. LoCoMo's tuning half (MiniLM; adversarial
# questions emptied vs answerable ones losing recall): 0.25 → 4 vs 2, 0.34 → 11 vs 2,
# 0.5 → 23 vs 6, 0.75 → 28 vs 17 (docs/search-quality.md, "Round 3")
SPEAKER_SHARE = 0.34
# ... and the other speaker's best line must hold at least this many of the question's
# words (one, for a one-word question about what was said): one shared word is a
# coincidence, often a verb ("What did John receive a certificate for?": Maria says
# "receive"). LoCoMo's tuning half (MiniLM): 1 → 11 emptied vs 2 answers lost, 2 → 10 vs 0
SPEAKER_MIN_WORDS = 2
# "what did A say / tell / mention": the question's verb of speech is what the rule is
# about, not a topic either speaker must hold ("What did Yue tell me?": Qin says "Tell him")
_SPEECH_VERBS = frozenset({"say", "said", "tell", "told", "talk", "mention", "ask", "think", "thought"})


@dataclass(frozen=True)
class SpeakerGap:
    """The question asks what ``named`` said or did, and in the closest memories the
    question's words are said by someone else (``other``), not by ``named``."""

    named: str
    other: str
    words: tuple[str, ...]  # the question's words in the other speaker's best line

    def note(self) -> str:
        quoted = ", ".join(f"'{w}'" for w in self.words)
        return (f"nothing found: in the closest memories {self.other}, not {self.named}, "
                f"talks about {quoted}")


def dialogue_lines(content: str) -> list[tuple[str, str]]:
    """(speaker, what they said) for each turn of ``content`` when it is a dialogue
    (``chunking.speaker_turns``: the labels and lines of the rule that embeds a dialogue
    by its turns), else ``[]``. Two turns are enough here: "A: …\nB: …" says who said
    what, though it is too short to embed turn by turn."""
    from .chunking import speaker_turns

    return speaker_turns(content, min_turns=2, per_speaker=1)


def speaker_gap(text: str, contents: Sequence[str], share: float | None = None) -> SpeakerGap | None:
    """A ``SpeakerGap`` when ``text`` names one speaker of the dialogues in ``contents``
    (the best results) and that speaker's lines cover at most ``share`` of the question
    words the other speakers' best line covers. None otherwise (not a dialogue, no
    speaker named, or the named speaker says it)."""
    from .tokenize import stem, tokenize

    dialogues = [lines for lines in (dialogue_lines(c) for c in contents) if len(lines) >= 2]
    if not dialogues:
        return None
    speakers = {who for lines in dialogues for who, _ in lines}
    spelled: dict[str, str] = {}
    for token in tokenize(text):
        spelled.setdefault(stem(token), token)
    asked = set(spelled)
    named = [who for who in speakers if {stem(t) for t in tokenize(who)} <= asked and tokenize(who)]
    if len(named) != 1:
        return None
    name_terms = {stem(t) for t in tokenize(named[0])}
    type_terms = {stem(t) for t in type_phrase_words(text)}
    speech = {stem(v) for v in _SPEECH_VERBS} & asked
    words = {w for w in asked - name_terms - type_terms - speech if len(w) >= 3 or not w.isascii()}
    if not words:
        return None
    best: dict[bool, tuple[float, str, set[str]]] = {True: (0.0, "", set()), False: (0.0, "", set())}
    for lines in dialogues:
        for who, said in lines:
            held = words & {stem(t) for t in tokenize(said)}
            own = who == named[0]
            if len(held) / len(words) > best[own][0]:
                best[own] = (len(held) / len(words), who, held)
    theirs, mine = best[False], best[True]
    share = SPEAKER_SHARE if share is None else share
    # one word suffices only when the question asks what was said about it ("What did Qin
    # say about visiting?"): then who said it is the question
    least = min(SPEAKER_MIN_WORDS, len(words)) if speech else SPEAKER_MIN_WORDS
    if len(theirs[2]) < least or mine[0] > share * theirs[0]:
        return None
    return SpeakerGap(named[0], theirs[1], tuple(spelled[w] for w in spelled if w in theirs[2]))
