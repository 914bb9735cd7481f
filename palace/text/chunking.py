"""Split a long memory into pieces an embedding model can read whole.

A model truncates its input at a fixed number of tokens, so a single vector for a
long note only represents its beginning. Embedding each chunk separately (and
scoring a memory by its best chunk) keeps the end of a note as findable as its start.

Chunks are cut at the coarsest boundary that makes them fit: paragraphs, then
sentences and lines (Chinese 。！？；… and English . ! ? ;), then clauses and
spaces (，、：, :), and only as a last resort in the middle of a run of characters.
Consecutive chunks share up to ``overlap_chars`` of whole sentences, so a fact that
straddles a cut still appears intact in one chunk.

A dialogue (lines written "Name: text", its speakers coming back) is cut at its turns
instead: one chunk per turn, led by the turn before it as context when both fit. A
turn is what a question about a conversation usually asks after ("what did Melanie
paint?"), and a chunk packing several turns to the budget dilutes a one-line answer
with its neighbours' topics (docs/search-quality.md, Round 4).
"""

from __future__ import annotations

import re

# Boundary patterns, coarsest first; a cut goes right after each match.
_PARAGRAPH = re.compile(r"\n[ \t\r\f\v]*\n\s*")
_SENTENCE = re.compile(
    r"(?:[。！？；…]+|[.!?;]+(?=[\s\"'”’)\]]|$))[\"'”’」』）)\]]*\s*"
    r"|\n\s*"
)
_CLAUSE = re.compile(r"[，、：,:]\s*|\s+")
_LEVELS = (_PARAGRAPH, _SENTENCE, _CLAUSE)
# A dialogue line: a short speaker label ("Caroline", "Dr. Lee", "妈妈") then ": " or "：".
_SPEAKER_LINE = re.compile(r"[ \t]*([^\s:：][^:：\n]{0,30}?)(?::[ \t]|：)")
DIALOGUE_TURNS = True
DIALOGUE_MIN_TURNS = 4      # fewer turns than this is a note, whatever its lines look like
DIALOGUE_LINE_SHARE = 0.8   # the share of non-blank lines a speaker label must open
DIALOGUE_TURNS_PER_SPEAKER = 2  # speakers come back: "Date: …\nPlace: …" is a form, not a talk


def chunk_text(text: str, max_chars: int, overlap_chars: int | None = None) -> list[str]:
    """Chunks of ``text``, each at most ``max_chars`` characters, in order.

    Text that fits is returned as one chunk (stripped); blank text gives ``[]``.
    ``overlap_chars`` defaults to an eighth of ``max_chars``; 0 turns overlap off.
    """
    return [text[start:end] for start, end in chunk_spans(text, max_chars, overlap_chars)]


def chunk_spans(text: str, max_chars: int, overlap_chars: int | None = None) -> list[tuple[int, int]]:
    """Like ``chunk_text`` but returns ``(start, end)`` offsets into ``text``, so a
    caller can show where in a memory a match was found."""
    if max_chars < 1:
        raise ValueError(f"max_chars must be at least 1, got {max_chars}")
    if overlap_chars is None:
        overlap_chars = max_chars // 8
    if overlap_chars < 0:
        raise ValueError(f"overlap_chars must not be negative, got {overlap_chars}")
    whole = _strip_span(text, 0, len(text))
    if whole[0] == whole[1]:
        return []
    if whole[1] - whole[0] <= max_chars:
        return [whole]
    turns = dialogue_turns(text) if DIALOGUE_TURNS else []
    if turns:
        return _turn_chunks(text, turns, max_chars, overlap_chars)
    units = _units(text, whole[0], whole[1], max_chars, 0)
    return [_strip_span(text, units[first][0], units[last][1])
            for first, last in _pack(text, units, max_chars, overlap_chars)]


def dialogue_turns(text: str, *, min_turns: int = DIALOGUE_MIN_TURNS,
                   per_speaker: float = DIALOGUE_TURNS_PER_SPEAKER) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of the turns of ``text`` when it is a dialogue, else ``[]``.

    A dialogue: at least ``DIALOGUE_MIN_TURNS`` lines open with a speaker label, they
    are ``DIALOGUE_LINE_SHARE`` of its non-blank lines, and each speaker has on average
    ``DIALOGUE_TURNS_PER_SPEAKER`` turns or more. A line without a label continues
    the turn above it.
    """
    if text.count(":") + text.count("：") < min_turns:
        return []  # every turn's label ends in a colon: too few of them (most texts)
    starts: list[int] = []
    speakers: set[str] = set()
    lines = 0
    offset = 0
    for line in text.splitlines(keepends=True):
        if line.strip():
            lines += 1
            match = _SPEAKER_LINE.match(line)
            if match:
                starts.append(offset)
                speakers.add(match.group(1).strip().casefold())
        offset += len(line)
    if (len(starts) < min_turns or len(starts) < DIALOGUE_LINE_SHARE * lines
            or len(starts) < per_speaker * len(speakers)):
        return []
    bounds = [*starts, len(text)]
    if text[:starts[0]].strip():  # a heading above the first turn joins it
        bounds[0] = 0
    return [_strip_span(text, start, end) for start, end in zip(bounds, bounds[1:])]


def speaker_turns(text: str, *, min_turns: int = DIALOGUE_MIN_TURNS,
                  per_speaker: float = DIALOGUE_TURNS_PER_SPEAKER) -> list[tuple[str, str]]:
    """(speaker, what they said) for each turn of ``text`` when it is a dialogue (the
    rule of ``dialogue_turns``, with its thresholds), else ``[]``. A heading above the
    first turn is left out."""
    out = []
    for start, end in dialogue_turns(text, min_turns=min_turns, per_speaker=per_speaker):
        offset = start
        for line in text[start:end].splitlines(keepends=True):
            match = _SPEAKER_LINE.match(line)
            if match:  # the turn's label (below a heading, for the first turn)
                out.append((match.group(1).strip(), text[offset + match.end():end].strip()))
                break
            offset += len(line)
    return out


def _turn_chunks(text: str, turns: list[tuple[int, int]], max_chars: int,
                 overlap_chars: int) -> list[tuple[int, int]]:
    """One chunk per turn, from the turn before it when both fit ``max_chars``; a turn
    longer than the budget is cut as any text is."""
    chunks: list[tuple[int, int]] = []
    for number, (start, end) in enumerate(turns):
        if end - start > max_chars:
            chunks.extend((start + a, start + b) for a, b in chunk_spans(text[start:end], max_chars, overlap_chars))
        elif number and end - turns[number - 1][0] <= max_chars:
            chunks.append((turns[number - 1][0], end))
        else:
            chunks.append((start, end))
    return chunks


def _units(text: str, start: int, end: int, max_chars: int, level: int) -> list[tuple[int, int]]:
    """Contiguous spans covering [start, end), each fitting ``max_chars`` once stripped."""
    if _stripped_len(text, start, end) <= max_chars:
        return [(start, end)]
    if level == len(_LEVELS):
        # No boundary left: cut the run every max_chars characters.
        return [(cut, min(cut + max_chars, end)) for cut in range(start, end, max_chars)]
    cuts = [m.end() for m in _LEVELS[level].finditer(text, start, end) if start < m.end() < end]
    bounds = [start, *cuts, end]
    units: list[tuple[int, int]] = []
    for piece_start, piece_end in zip(bounds, bounds[1:]):
        units.extend(_units(text, piece_start, piece_end, max_chars, level + 1))
    return units


def _pack(text: str, units: list[tuple[int, int]], max_chars: int,
          overlap_chars: int) -> list[tuple[int, int]]:
    """Group consecutive units into chunks as (first unit, last unit) index pairs.

    Each chunk after the first starts with the trailing units of the previous chunk
    that fit in ``overlap_chars`` (never all of them, never at the cost of the new unit).
    """
    def size(first: int, last: int) -> int:
        return _stripped_len(text, units[first][0], units[last][1])

    chunks: list[tuple[int, int]] = []
    next_unit = 0
    while next_unit < len(units):
        first = next_unit
        if chunks and overlap_chars:
            previous_first = chunks[-1][0]
            while first - 1 > previous_first and size(first - 1, next_unit - 1) <= overlap_chars:
                first -= 1
        while first < next_unit and size(first, next_unit) > max_chars:
            first += 1
        last = next_unit
        while last + 1 < len(units) and size(first, last + 1) <= max_chars:
            last += 1
        chunks.append((first, last))
        next_unit = last + 1
    return chunks


def _stripped_len(text: str, start: int, end: int) -> int:
    start, end = _strip_span(text, start, end)
    return end - start


def _strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
