"""Turning Chinese, English and mixed text into search terms.

Chinese has no spaces, so runs of Han characters are segmented with jieba
(``palace.text.segment``) in *search mode*, which emits a long word
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

from palace.text.script import HAN, HAN_RANGES, has_han
from palace.text.segment import cut_for_search
from palace.text.words import EN_STOPWORDS, ZH_STOPWORDS

# has_han is offered here too: tokenizing callers ask it of the same text
__all__ = ["duplicate_key", "has_han", "index_text", "normalize", "query_terms", "stem", "tokenize"]

_RUNS = re.compile(rf"([{HAN_RANGES}]+)|([^\W_{HAN_RANGES}]+)")
_WORDS = re.compile(r"[^\W_]+")  # _RUNS on a text without Han
_ASCII_WORDS = re.compile(r"[^\W_]+", re.ASCII)  # the same on ASCII text (a faster class)


def normalize(text: str) -> str:
    # NFKC folds full-width letters and digits (ＰｏｓｔｇｒｅＳＱＬ, ３) into ASCII.
    return unicodedata.normalize("NFKC", text).lower()


def duplicate_key(content: str) -> str:
    """A digest of ``content`` once normalised (NFKC, case, runs of white space): two
    memories with the same key say the same thing (what ``store`` merges)."""
    import hashlib

    wanted = " ".join(normalize(content).split())
    return hashlib.blake2b(wanted.encode("utf-8"), digest_size=16).hexdigest()


def tokenize(text: str) -> list[str]:
    """Every content term of ``text`` in order (repeats kept, for term frequency)."""
    text = normalize(text)
    if text.isascii():  # most texts: one pass in C, no per-run test, ASCII classes
        return list(filterfalse(EN_STOPWORDS.__contains__, _ASCII_WORDS.findall(text)))
    if not HAN.search(text):
        return list(filterfalse(EN_STOPWORDS.__contains__, _WORDS.findall(text)))
    tokens: list[str] = []
    for han, other in _RUNS.findall(text):
        if han:
            tokens.extend(t for t in cut_for_search(han) if t not in ZH_STOPWORDS and t.strip())
        elif other not in EN_STOPWORDS:
            tokens.append(other)
    return tokens


def query_terms(text: str) -> list[str]:
    """Distinct content terms of a query, in order of first appearance."""
    return list(dict.fromkeys(tokenize(text)))


def index_text(text: str) -> str:
    """The space-joined tokens stored in the full-text table."""
    return " ".join(tokenize(text))


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
