"""Text to sentences to clauses, and the rule tables compiled for matching.

A sentence ends at 。！？!? or a full stop before a space or the end (not after Prof.,
St., Dr.…); a Chinese sentence splits into clauses at ，；; (and 但/但是, 而且/并且 open a
clause), an English one at , ; and before "but", and before "and" when a new subject
follows it ("lives in Berlin and I like jazz": a name's object would run on over "and I").
Any other "and" is left to the clause reader: after it a new clause or one more object
may follow ("speaks Japanese and French").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator

from palace.graph import rules_en, rules_zh
from palace.graph.lexicon import KIN_EN, KIN_ZH, SPECIES_EN, SPECIES_ZH
from palace.text.script import has_han

_ABBREVIATIONS = r"(?<!\bProf)(?<!\bDr)(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bSt)(?<!\bJr)(?<!\bvs)(?<!\be\.g)(?<!\bi\.e)"
_SENTENCE_END = re.compile(r"[。！？!?\n]+|" + _ABBREVIATIONS + r"\.(?=\s|$)")
_ZH_CLAUSE = re.compile(r"[，,；;：:]\s*|\s+(?=但是|但|不过|可是)|\s*(?=而且|并且)")
_EN_NEW_SUBJECT = r"and\s+(?:I|[Ww]e|[Hh]e|[Ss]he|[Tt]hey)\b"   # subject pronouns: never an object
_EN_CLAUSE = re.compile(r"\s*[,;:]\s+|\s*[;]\s*|\s+(?=but\s)|\s+(?=" + _EN_NEW_SUBJECT + r")|\s+-\s+|\s+—\s+")


def sentences(text: str) -> Iterator[str]:
    start = 0
    for match in _SENTENCE_END.finditer(text):
        piece = text[start:match.start()].strip()
        if piece:
            yield piece + ("?" if "?" in match.group(0) or "？" in match.group(0) else "")
        start = match.end()
    tail = text[start:].strip()
    if tail:
        yield tail


def clauses(sentence: str) -> list[str]:
    splitter = _ZH_CLAUSE if has_han(sentence) else _EN_CLAUSE
    return [part.strip() for part in splitter.split(sentence.rstrip("?？")) if part.strip()]


# ---------------------------------------------------------------------- rule compiling

@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern[str]
    slots: tuple[tuple[str, str], ...]   # (group name, slot as written: "lives_in", "-uses")
    flags: frozenset[str]
    lead: str                            # the template before its first object (a continuation's verb)


_PLACEHOLDER = re.compile(r"\{(-?[a-z_]+)\}")
_ZH_END = r"(?=(?:了|的|啦|呢|吧|啊|呀|哦|哈)*\s*$)"
_EN_END = r"(?=\s+(?:" + "|".join(re.escape(w) for w in rules_en.STOPS) + r")\b|\s*[.!?]*\s*$)"


def _alternation(words: Iterable[str]) -> str:
    return "(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + ")"


def _compile(template: str, flags: str, objects: dict[str, str], default: str, end: str,
             always_end: bool, special: dict[str, str], spaced: bool = False) -> Rule:
    slots: list[tuple[str, str]] = []
    parts: list[str] = []
    last = 0
    for index, match in enumerate(_PLACEHOLDER.finditer(template)):
        parts.append(template[last:match.start()])
        slot = match.group(1)
        name = slot.lstrip("-")
        body = special.get(name) or objects.get(name) or default
        group = f"g{index}"
        pad = r"\s*" if spaced else ""
        closing = re.fullmatch(r"[)?]*", template[match.end():]) is not None
        if closing and body.endswith("?") and not always_end:
            body += end   # a lazy object last in its row runs up to where the clause goes on
        parts.append(f"{pad}(?P<{group}>{body}){pad}")
        slots.append((group, slot))
        last = match.end()
    parts.append(template[last:])
    first = _PLACEHOLDER.search(template)
    lead = template[:first.start()] if first else template
    regex = "^" + "".join(parts) + (end if always_end else "")
    return Rule(re.compile(regex), tuple(slots), frozenset(flags.split()), lead)


def _compile_all() -> tuple[tuple[Rule, ...], tuple[Rule, ...]]:
    zh_special = {"kin": _alternation(KIN_ZH), "species": _alternation(SPECIES_ZH)}
    zh = tuple(_compile(t, f, rules_zh.OBJECTS, r"[^，。；！？,;!?]+?", _ZH_END, True, zh_special, spaced=True)
               for t, f in rules_zh.ZH_RULES)
    en_objects = dict(rules_en.OBJECTS)
    for slot in rules_en.PROPER_SLOTS:
        en_objects.setdefault(slot, rules_en.OBJECTS["proper"])
    en_special = {"kin": _alternation(KIN_EN), "species": _alternation(SPECIES_EN)}
    en = tuple(_compile(t, f, en_objects, r"[^,;]+?", _EN_END, False, en_special) for t, f in rules_en.EN_RULES)
    return zh, en


ZH, EN = _compile_all()
ZH_OBJECT_FIRST = tuple((_compile(t, "", rules_zh.OBJECTS, r"[^，。；！？,;!?]+?", _ZH_END, True, {}, spaced=True), who)
                        for t, who in rules_zh.OBJECT_FIRST)
