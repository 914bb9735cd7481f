"""Turning Chinese, English and mixed text into search terms.

Chinese has no spaces, so runs of Han characters are segmented with jieba (the
Rust port ``rjieba``: ~10x faster to load than Python jieba, which matters for a
CLI that must answer in half a second) in *search mode*, which emits a long word
and its dictionary sub-words: 数据库 → 数据, 据库, 数据库. So a two-character word
like 数据 or 部署 is findable inside longer words. Other scripts are split on
non-letters and lower-cased; the Porter stemmer (``stem``) then folds English
inflections (deploys/deployed → deploi) in the index and in queries alike.

The same function is used for indexing and for queries, so both sides agree.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from itertools import filterfalse

_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_RUNS = re.compile(rf"([{_HAN}]+)|([^\W_{_HAN}]+)")
_HAN_CHAR = re.compile(f"[{_HAN}]")
_WORDS = re.compile(r"[^\W_]+")  # _RUNS on a text without Han
_ASCII_WORDS = re.compile(r"[^\W_]+", re.ASCII)  # the same on ASCII text (a faster class)

# Function words that carry no topic; dropping them keeps indexes small and
# keeps a long question from matching every memory on "the" or "的".
ZH_STOPWORDS = frozenset(
    "的 了 是 在 和 与 及 或 就 都 而 也 还 又 很 吗 吧 呢 啊 呀 哦 嗯 么 着 过 被 把 让 给 对 从 向 "
    "这 那 这个 那个 这些 那些 这样 那样 我 你 他 她 它 我们 你们 他们 她们 咱们 自己 "
    "一个 一些 什么 怎么 怎样 如何 哪 哪个 哪些 为什么 有没有 是不是 之 其 所 以 于 "
    "个 吗 得 地 啦 呗 嘛 么".split()
)
EN_STOPWORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from into onto about as
    is are was were be been being am do does did doing done have has had having i me my mine
    myself we us our ours you your yours he him his she her hers it its they them their theirs
    this that these those there here what which who whom whose when where why how all any both
    each few more most other some such no nor not only own same so than too very can will just
    should would could may might must shall s t d ll m re ve y don didn doesn isn aren wasn
    weren hasn haven hadn won wouldn shouldn couldn mustn up down out over under again further
    once also get got let lets ok okay""".split()
)
# Words that ask for whatever happened, not about a topic ("what happened last week",
# 上周发生了什么, 昨天做了什么, "what was I busy with"): a query whose words are all
# these asks for its period (palace.search.retrievers lists it). Unlike stop words they
# stay in the index and in the keyword score: a memory may be about 工作 or "the work".
# Compared with query terms as written, each form listed: a stem would also take "go"
# for "going", and Go is a language people ask about.
EVENT_WORDS = frozenset(
    """happen happens happened happening work works worked working going busy
    thing things something anything everything
    发生 做 干 啥 有 忙 工作 事 事情 事儿""".split()
)


def normalize(text: str) -> str:
    # NFKC folds full-width letters and digits (ＰｏｓｔｇｒｅＳＱＬ, ３) into ASCII.
    return unicodedata.normalize("NFKC", text).lower()


def duplicate_key(content: str) -> str:
    """A digest of ``content`` once normalised (NFKC, case, runs of white space): two
    memories with the same key say the same thing (what ``store`` merges)."""
    import hashlib

    wanted = " ".join(normalize(content).split())
    return hashlib.blake2b(wanted.encode("utf-8"), digest_size=16).hexdigest()


@lru_cache(maxsize=1)
def _jieba():
    import rjieba  # imported on first Chinese text only

    return rjieba


def _segment_han(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return _jieba().cut_for_search(run)


def tokenize(text: str) -> list[str]:
    """Every content term of ``text`` in order (repeats kept, for term frequency)."""
    text = normalize(text)
    if text.isascii():  # most texts: one pass in C, no per-run test, ASCII classes
        return list(filterfalse(EN_STOPWORDS.__contains__, _ASCII_WORDS.findall(text)))
    if not _HAN_CHAR.search(text):
        return list(filterfalse(EN_STOPWORDS.__contains__, _WORDS.findall(text)))
    tokens: list[str] = []
    for han, other in _RUNS.findall(text):
        if han:
            tokens.extend(t for t in _segment_han(han) if t not in ZH_STOPWORDS and t.strip())
        elif other not in EN_STOPWORDS:
            tokens.append(other)
    return tokens


def query_terms(text: str) -> list[str]:
    """Distinct content terms of a query, in order of first appearance."""
    return list(dict.fromkeys(tokenize(text)))


def index_text(text: str) -> str:
    """The space-joined tokens stored in the full-text table."""
    return " ".join(tokenize(text))


def has_han(text: str) -> bool:
    return _HAN_CHAR.search(text) is not None


@lru_cache(maxsize=1)
def _porter():
    from snowballstemmer import stemmer

    return stemmer("porter")


@lru_cache(maxsize=200_000)
def stem(token: str) -> str:
    """The indexed form of a token: English words Porter-stemmed (deploys,
    deployed → deploi), accents dropped (café → cafe); Chinese and numbers as is."""
    if token.isascii():
        return _porter().stemWord(token) if token.isalpha() and len(token) > 2 else token
    if any(unicodedata.combining(c) for c in unicodedata.normalize("NFD", token)):
        token = "".join(c for c in unicodedata.normalize("NFD", token) if not unicodedata.combining(c))
        return stem(token) if token.isascii() else token
    return token
