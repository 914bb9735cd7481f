"""Deterministic extraction: entities and relations a memory's text states plainly.

Entities: people (jieba POS ``nr``), places (``ns``), organisations (``nt``,
transliterated names ``nrt``/``nrfg``), runs of Capitalised English words, and the
memory's tags. Relations: the patterns in ``PATTERNS`` below, in Chinese and English,
about the speaker (我 / I → the user) or a named person at the start of a clause.

Everything found is marked ``extracted: true``; when the user's frontmatter already
has ``entities`` or ``relations``, that key is left exactly as the user wrote it.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from .facts import Entity, Relation

POS_TYPES = {"nr": "person", "ns": "place", "nt": "organisation", "nrt": "name", "nrfg": "name"}
_SUBJECT_ZH = r"(?P<s>我|[\u4e00-\u9fff]{2,3}?)"
_OBJ_ZH = r"(?P<o>[A-Za-z0-9\u4e00-\u9fff·\-\s]{1,16}?)"
_END_ZH = r"(?=[了的，。！？；、,.!?;\s]|$|来|去|做|写|工作)"
_SUBJECT_EN = (r"(?P<s>I|[A-Z][a-z]+(?: [A-Z][a-z]+)?)"
               r"(?: (?:also|really|still|actually|always|usually|totally|now))?")
_OBJ_EN = r"(?P<o>[A-Za-z0-9][\w.+#\-]*(?: [A-Z0-9][\w.+#\-]*){0,3})"
_FOR_EN = r"(?: (?:for|to) (?P<p>[a-z][\w\-]*(?: [a-z][\w\-]*)?))?"
_FOR_ZH = r"(?:\s*(?:来|做|写)(?P<p>[\u4e00-\u9fff]{1,6}?))?"
# a preference's object may be a lowercase phrase ("horror movies"), up to where the
# clause goes on ("tea in the morning": tea)
_GLUE_EN = (r"(?!(?:for|to|in|at|on|near|with|by|and|but|or|because|when|now|anymore|any|too|as|the|a|an|"
            r"of|from|since|every|these|this|that|so|very|much|more|anymore|again|lately|there|here)\b)")
_PHRASE_EN = r"(?P<o>[A-Za-z0-9][\w.+#\-]*(?: " + _GLUE_EN + r"[A-Za-z0-9][\w.+#\-]*){0,2})"

# (predicate written into the frontmatter, pattern). Order matters: 不喜欢 before 喜欢.
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("dislikes", re.compile(_SUBJECT_ZH + r"(?:不喜欢|讨厌)" + _OBJ_ZH + _END_ZH)),
    ("likes", re.compile(_SUBJECT_ZH + r"(?<!不)(?:喜欢|偏好|更喜欢)" + _OBJ_ZH + _END_ZH)),
    ("lives_in", re.compile(_SUBJECT_ZH + r"(?:住在|搬到了|搬到|搬去了|搬去|定居在|家在)" + _OBJ_ZH + _END_ZH)),
    ("works_at", re.compile(_SUBJECT_ZH + r"(?:现在)?在" + _OBJ_ZH + r"(?:工作|上班|任职)")),
    ("responsible_for", re.compile(_SUBJECT_ZH + r"负责" + _OBJ_ZH + _END_ZH)),
    ("uses", re.compile(_SUBJECT_ZH + r"(?:决定用|决定使用|改用|使用|用)" + _OBJ_ZH + _FOR_ZH + _END_ZH)),
    ("dislikes", re.compile(_SUBJECT_EN + r" (?:(?:don't|do not|doesn't|does not) (?:like|enjoy)|hate|hates|"
                                          r"dislike|dislikes) " + _PHRASE_EN)),
    ("likes", re.compile(_SUBJECT_EN + r" (?:like|likes|prefer|prefers|love|loves|enjoy|enjoys) " + _PHRASE_EN)),
    ("lives_in", re.compile(_SUBJECT_EN + r" (?:live|lives|moved|relocated)(?: to| in) " + _OBJ_EN)),
    ("works_at", re.compile(_SUBJECT_EN + r" (?:work|works|started working|now work) (?:at|for) " + _OBJ_EN)),
    ("uses", re.compile(_SUBJECT_EN + r" (?:decided to use|switched to|use|uses) " + _OBJ_EN + _FOR_EN)),
)
_CAPITALISED = re.compile(r"\b([A-Z][a-z]+(?: [A-Z][a-z]+)*)\b")
_NOT_NAMES = frozenset({"I", "The", "A", "An", "We", "He", "She", "They", "It", "My", "Our", "This",
                        "That", "Today", "Yesterday", "Tomorrow", "Monday", "Tuesday", "Wednesday",
                        "Thursday", "Friday", "Saturday", "Sunday", "If", "When", "And", "But",
                        "Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays",
                        "Sundays"})
# words that open a Chinese clause without being its subject
_TIME_WORDS = frozenset({"现在", "目前", "如今", "今年", "去年", "后来", "最近", "已经", "然后", "上个月", "这个月",
                         "下个月", "之后", "以后", "以前", "当时", "那时"})
# one-character verbs before a preference's object (喜欢喝奶茶: 奶茶)
_VERBS_ZH = frozenset("喝吃看听玩读打踢弹")
_LIST_MARK = re.compile(r"\n\s*(?:[-*•]|\d+[.)])?\s*$")


def _capitalised_names(content: str) -> list[str]:
    """Capitalised runs that look like names. A lone capitalised word opening a sentence,
    a line or a list item ("Why …", "Facts:", "- Fixed …") is only the grammar's capital,
    unless the same word is also capitalised inside a sentence somewhere."""
    runs, inside = [], set()
    for match in _CAPITALISED.finditer(content):
        name = match.group(1)
        if name in _NOT_NAMES:
            continue
        before = content[:match.start()].rstrip(" \t\"'(“‘")
        opening = not before or before[-1] in ".!?:;\n" or bool(_LIST_MARK.search(content[:match.start()]))
        if not opening:
            inside.add(name)
        runs.append((name, opening))
    return [name for name, opening in runs if " " in name or not opening or name in inside]


def _pos_entities(content: str) -> list[Entity]:
    try:
        import rjieba
    except ImportError:  # the zh extra is not installed: English rules only
        return []
    return [Entity(word, type=POS_TYPES[tag], extracted=True) for word, tag in rjieba.tag(content)
            if tag in POS_TYPES and len(word.strip()) > 1]


def extract_entities(content: str, tags: Sequence[str] = ()) -> list[Entity]:
    found: dict[str, Entity] = {}
    candidates = [*_pos_entities(content),
                  *(Entity(name, extracted=True) for name in _capitalised_names(content)),
                  *(Entity(tag, type="tag", extracted=True) for tag in tags)]
    for entity in candidates:
        found.setdefault(entity.key, entity)
    return list(found.values())


def extract_relations(content: str) -> list[Relation]:
    found: list[Relation] = []
    seen: set[tuple[str, str, str]] = set()
    for predicate, pattern in PATTERNS:
        for match in pattern.finditer(content):
            subject = match.group("s")
            # "今年我…": the clause's subject is the speaker, whatever words came first
            subject = "用户" if subject == "I" or "我" in subject else subject
            if subject in _TIME_WORDS:
                # "我跳槽了，现在在美团上班": a clause opened by a time word goes on about
                # the speaker named before it; with no speaker before, it is no fact
                if "我" not in content[:match.start()]:
                    continue
                subject = "用户"
            obj = match.group("o").strip().rstrip(".,;:!?")
            if predicate in ("likes", "dislikes") and len(obj) >= 3 and obj[0] in _VERBS_ZH:
                obj = obj[1:]  # 喜欢喝奶茶 / 讨厌奶茶: the thing, not the act
            if not obj or obj in ("我", "I"):
                continue
            purpose = match.groupdict().get("p")
            relation = Relation(subject, predicate, obj, purpose=purpose or None, extracted=True)
            key = (relation.subject_key, predicate, relation.object_key)
            if key not in seen and not any(k[0] == key[0] and k[2] == key[2] for k in seen):
                seen.add(key)
                found.append(relation)
    return found


def with_extracted(extra: Mapping[str, Any], content: str, tags: Sequence[str]) -> dict[str, Any]:
    """``extra`` with extracted entities and relations added under the keys the user left out."""
    out = dict(extra)
    if "entities" not in extra:
        entities = extract_entities(content, tags)
        if entities:
            out["entities"] = [e.to_frontmatter() for e in entities]
    if "relations" not in extra:
        relations = extract_relations(content)
        if relations:
            out["relations"] = [r.to_frontmatter() for r in relations]
    return out
