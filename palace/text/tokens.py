"""How many tokens a text will cost an LLM, estimated without a tokenizer.

``len(text) / 4`` is a rule for English only: it counts 上周讨论的数据库选型 (ten
characters, about ten tokens) as two or three tokens, so a "2000-token" context
full of Chinese would really be four times over budget. Instead each kind of run
is priced the way BPE tokenizers (cl100k, o200k) actually split it:

- Han characters, kana, hangul: 1 token each (measured ~0.6–1.0 for o200k and
  ~1.0–1.4 for cl100k; 1 is the honest middle and keeps budgets safe on newer models);
- a Latin word: 1 token up to 7 letters, one more for every further 7
  (``the``, ``service`` → 1; ``PostgreSQL`` → 2; ``internationalization`` → 3),
  which averages ~1.3 tokens per English word once punctuation is counted;
- other alphabets (Cyrillic, Greek, Arabic…): one token per 3 letters, as BPE
  vocabularies hold fewer of their words;
- digits: one token per group of up to 3 (BPE splits numbers that way);
- punctuation and symbols: 1 each (emoji and other astral characters: 2);
- a line break (or a run of them): 1; spaces: 0 (they merge into the next word).

When ``tiktoken`` is installed and its cl100k vocabulary is already on disk,
``estimate_tokens`` counts with it instead; the heuristic needs nothing.
Everything here is pure and deterministic.
"""

from __future__ import annotations

import os
import re
import unicodedata
from functools import lru_cache
from typing import Iterator

from palace.text.script import CJK_RANGES

_CJK = CJK_RANGES  # Han, kana, hangul: one token a character
_PIECES = re.compile(
    rf"(?P<cjk>[{_CJK}])"
    r"|(?P<latin>[A-Za-z\u00c0-\u024f]+)"
    r"|(?P<digits>[0-9]+)"
    rf"|(?P<word>[^\W\d_{_CJK}]+)"
    r"|(?P<newline>\n+)"
    r"|(?P<space>\s+)"
    r"|(?P<other>.)",
    re.DOTALL,
)
LATIN_LETTERS_PER_TOKEN = 7
OTHER_LETTERS_PER_TOKEN = 3
DIGITS_PER_TOKEN = 3


def _ceil_div(n: int, d: int) -> int:
    return -(-n // d)


def _costs(text: str) -> Iterator[tuple[int, int]]:
    """(end, tokens) of each piece of an NFKC-normal ``text``, in order."""
    for match in _PIECES.finditer(text):
        kind = match.lastgroup
        if kind == "space":
            continue
        if kind == "cjk" or kind == "newline":
            cost = 1
        elif kind == "latin":
            cost = _ceil_div(match.end() - match.start(), LATIN_LETTERS_PER_TOKEN)
        elif kind == "digits":
            cost = _ceil_div(match.end() - match.start(), DIGITS_PER_TOKEN)
        elif kind == "word":
            cost = _ceil_div(match.end() - match.start(), OTHER_LETTERS_PER_TOKEN)
        else:
            cost = 2 if ord(match.group()) > 0xFFFF else 1
        yield match.end(), cost


def heuristic_tokens(text: str) -> int:
    """The rule-based estimate described in the module docstring."""
    if not text:
        return 0
    # NFKC: full-width ＡＢＣ１２３ are tokenized like their ASCII forms.
    return sum(cost for _, cost in _costs(unicodedata.normalize("NFKC", text)))


# A prefix of max_tokens tokens is looked for within max_tokens × this many characters
# (a Latin word is 7 letters a token, a run of spaces costs nothing): an excerpt of a
# 1 MB memory then reads and checks a few kilobytes, not the whole text, each time.
PREFIX_CHARS_PER_TOKEN = 16


def _heuristic_prefix(text: str, max_tokens: int) -> int | None:
    """Length of the longest prefix of ``text`` the heuristic puts at most ``max_tokens``,
    in one pass, ending at a piece's end; None when NFKC changes the text (its positions
    are not the text's), its first piece alone is too long, or the prefix does not end
    within the window looked at (mostly blanks: the caller searches instead)."""
    window = text[:max_tokens * PREFIX_CHARS_PER_TOKEN + 64]
    if unicodedata.normalize("NFKC", window) != window:
        return None
    total, fits = 0, 0
    for end, cost in _costs(window):
        total += cost
        if total > max_tokens:
            return fits or None  # a first piece too long alone (a blob): cut inside it
        fits = end
    return len(text) if len(window) == len(text) else None


@lru_cache(maxsize=1)
def _tiktoken_encoding():
    """cl100k from ``tiktoken``, only if it can load without the network.

    tiktoken downloads its vocabulary on first use; a memory server must not
    hang on that, so it is used only when the vocabulary is already cached
    (``TIKTOKEN_CACHE_DIR`` or the default cache) — or when the caller opted in
    with ``PALACE_TIKTOKEN=1``. ``PALACE_TIKTOKEN=0`` turns it off.
    """
    choice = os.environ.get("PALACE_TIKTOKEN", "auto").strip().lower()
    if choice in {"0", "false", "no", "off"}:
        return None
    try:
        import tiktoken  # optional
    except ImportError:
        return None
    if choice not in {"1", "true", "yes", "on"} and not _tiktoken_vocab_cached():
        return None
    try:
        return tiktoken.get_encoding("cl100k_base")
    except Exception:  # no network, broken cache: the heuristic is good enough
        return None


def _tiktoken_vocab_cached() -> bool:
    import tempfile

    folder = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR") \
        or os.path.join(tempfile.gettempdir(), "data-gym-cache")
    try:
        return any(True for _ in os.scandir(folder))
    except OSError:
        return False


# A text longer than SAMPLES × SAMPLE_CHARS is estimated from SAMPLES stretches spread
# over it, scaled to its length: bounded time whatever its size (a 1 MB paste took 3.4 s
# of a `palace context` to count in full, and its count only decides that it does not fit).
SAMPLE_CHARS = 16_384
SAMPLES = 4


def estimate_tokens(text: str) -> int:
    """Tokens ``text`` costs: tiktoken's count when available, else the heuristic;
    a very long text from samples of it (bounded time)."""
    if not text:
        return 0
    if len(text) <= SAMPLES * SAMPLE_CHARS:
        return _count(text)
    step = (len(text) - SAMPLE_CHARS) // (SAMPLES - 1)
    sampled = [text[i * step:i * step + SAMPLE_CHARS] for i in range(SAMPLES)]
    return _ceil_div(sum(_count(s) for s in sampled) * len(text), SAMPLES * SAMPLE_CHARS)


@lru_cache(maxsize=4096)  # a context counts each candidate's text several times
def _count(text: str) -> int:
    encoding = _tiktoken_encoding()
    if encoding is not None:
        return len(encoding.encode(text, disallowed_special=()))
    return heuristic_tokens(text)


_SENTENCE_END = re.compile(r"(?<=[。！？!?；;.\n])")


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of ``text`` estimated at most ``max_tokens`` tokens.

    Prefers to stop at the end of a sentence or line when one lies in the last
    third of the allowed prefix, so an excerpt reads as whole sentences.
    """
    if max_tokens <= 0:
        return ""
    if estimate_tokens(text) <= max_tokens:
        return text
    low = _heuristic_prefix(text, max_tokens) if _tiktoken_encoding() is None else None
    if low is None:
        low = _searched_prefix(text, max_tokens)
    prefix = text[:low]
    boundaries = [m.start() for m in _SENTENCE_END.finditer(prefix) if m.start() > 0]
    if boundaries and boundaries[-1] >= len(prefix) * 2 // 3:
        prefix = prefix[: boundaries[-1]]
    return prefix.rstrip()


def _searched_prefix(text: str, max_tokens: int) -> int:
    """As ``_heuristic_prefix`` for any estimate, by binary search over prefixes."""
    # Estimates only grow as a prefix grows, so binary search; start from a
    # short prefix that already overflows, so a 1 MB memory is not re-counted 20 times.
    high = len(text)
    probe = max_tokens * 8
    if probe < high and estimate_tokens(text[:probe]) > max_tokens:
        high = probe
    low = 0  # invariant: text[:low] fits, text[:high] does not
    while high - low > 1:
        mid = (low + high) // 2
        if estimate_tokens(text[:mid]) <= max_tokens:
            low = mid
        else:
            high = mid
    return low
