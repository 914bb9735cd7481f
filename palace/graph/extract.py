"""Deterministic extraction: the entities and relations a memory's text states plainly.

The text is read sentence by sentence, clause by clause (``clauses``). Each clause gets
a subject: 我 / 用户 / I / the user are the user, a name is that person, 我老婆 / "my
wife" a relative, 我们 / "we" / "our CI" the project (a household's "we" is the user),
a named team is that team; a clause without one inherits the subject before it (and
他 / 她 / he / she the last person named). Its predicate is matched against the rule
table of its language (``rules_zh``, ``rules_en``): the first row that matches gives
its slots and objects. Sentences that state no fact (questions, hypotheticals, plans,
commands, someone else's opinion, code and log lines) give nothing; a denied clause
("王磊不是我领导") gives nothing, but a correction after it does ("…，是在天津"); a
clause stating an end ("不再用 vim", "no longer on the payments team") gives the fact
marked ``ended``, which retires the one it names.

Entities: the ends of every relation, typed by the slot they fill (a partner is a
person, a ``lives_in`` object a place), then jieba's places and organisations, its
names only when they look like a Chinese name and are no time word or other known
word, capitalised English runs (typed only by what the text says of them: a person
when they are a clause's subject or a person's slot, or say something), and the
memory's tags.

Everything found is marked ``extracted: true``; when the user's frontmatter already
has ``entities`` or ``relations``, that key is left exactly as the user wrote it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from palace.graph import rules_en, rules_zh
from palace.graph.clauses import EN, ZH, ZH_OBJECT_FIRST, Rule, clauses, sentences
from palace.graph.facts import Entity, Relation
from palace.graph.lexicon import (COMPOUND_SURNAMES, DIETS_ZH, JOB_HEADS_EN, JOB_SUFFIXES_ZH, KIN_EN, KIN_ZH, LEADER_ROLES, MONTHS_EN,
                      NAME_TITLES_ZH, NOT_NAMES_EN, PERSON_CONTEXT_ZH, PERSON_OBJECTS, PROJECT_SUFFIXES, PROVINCES_ZH,
                      RELATIVES_EN, RELATIVES_ZH, REPORTING_VERBS_EN, SPECIES_ZH, SURNAMES, TEAM_SUFFIXES,
                      TIME_WORD_ZH, WEEKDAYS_EN)
from palace.graph.normalise import PROJECT_NAME, USER_NAME, entity_key
from palace.text.script import HAN, HAN_RANGES, has_han
from palace.text.segment import tag

USER = USER_NAME
PROJECT = PROJECT_NAME
# a named subject is typed a person only by what people have (a company also "uses" a tool)
NOT_PERSON_SLOTS = frozenset({"uses", "owns", "works_on", "member_of"})
MULTI_VALUED = frozenset({"likes", "dislikes", "uses", "speaks", "learning", "allergic_to", "pet", "owns"})


@dataclass
class Fact:
    subject: str
    predicate: str
    object: str
    purpose: str | None = None
    ended: bool = False
    change: bool = False


@dataclass
class Subject:
    name: str
    rest: str
    kind: str = "person"          # user, person, kin, project, team, we
    facts: list[Fact] = field(default_factory=list)
    topic: str | None = None      # "our CI": the purpose of the project's tools


@dataclass
class Context:
    """What one memory's clauses carry to the next."""
    subject: str | None = None
    third: str | None = None                  # 他 / 她 / he / she
    denied: tuple[str, str] | None = None     # (subject, predicate) of the clause just denied
    species: str | None = None                # 养了两只猫，一只叫年糕
    lead: tuple[str, str] | None = None       # (subject, verb text) of the last multi-valued fact
    persons: set[str] = field(default_factory=set)
    facts: list[Fact] = field(default_factory=list)


@dataclass(frozen=True)
class Cues:
    now: bool = False
    past: bool = False
    ended: bool = False


# ====================================================================== shared steps

@functools.lru_cache(maxsize=64)
def _leading_words(words: tuple[str, ...], spaced: bool) -> re.Pattern[str]:
    """One of ``words`` (the longest first) at the start, with its comma and space: built
    once per word list (escaping every word on every clause was a tenth of a store's CPU)."""
    sep = r"\s+" if spaced else r"\s*"
    return re.compile(r"^(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
                      + r")" + (r"\b" if spaced else "") + r"[,，]?" + sep, re.IGNORECASE)


def _strip_words(text: str, words: Sequence[str], *, spaced: bool) -> tuple[str, set[str]]:
    """``text`` without the leading ``words`` (repeatedly); which were removed."""
    removed: set[str] = set()
    pattern = _leading_words(tuple(words), spaced)
    while True:
        match = pattern.match(text)
        if not match or match.end() == 0:
            return text, removed
        removed.add(match.group(0).strip(" ,，").casefold())
        text = text[match.end():]


def _kind(obj: str, lang: str) -> str:
    folded = obj.casefold()
    if folded.endswith(tuple(s.casefold() for s in TEAM_SUFFIXES)):
        return "team"
    if folded.endswith(tuple(s.casefold() for s in PROJECT_SUFFIXES)):
        return "project"
    if lang == "zh" and _is_place_zh(obj):
        return "place"
    return "thing"


def _is_place_zh(obj: str) -> bool:
    if obj.endswith(("市", "区", "县", "省", "镇", "新城", "新区", "开发区", "园区")):
        return True
    tags = tag(obj)
    return bool(tags) and all(pos == "ns" for _word, pos in tags)


_RESOLVED = {
    "team": {"team": "member_of", "project": "member_of", "place": "member_of", "thing": "member_of"},
    "workplace": {"team": "member_of", "project": "works_on", "place": "works_in", "thing": "works_at"},
    "joined": {"team": "member_of", "project": "works_on", "place": "works_at", "thing": "works_at"},
    "doing": {"team": "member_of", "project": "works_on", "place": "role", "thing": "role"},
}
_NOT_OBJECTS = frozenset({"我", "你", "他", "她", "它", "我们", "i", "me", "you", "it", "them", "this", "that",
                          "him", "her", "us", "一起", "这里", "那里", "那边", "家里", "这个", "那个"})
_QUANTITY = re.compile(r"^[\d.]+\s*[^\s\d]{0,3}$|^[一二三四五六七八九十百千两几]+[个次秒分天年月号]")
_PLACE_SLOTS = frozenset({"lives_in", "works_in", "hometown", "born_in"})


def _clean(obj: str, slot: str, lang: str) -> str:
    obj = obj.strip().strip("，。、；：,.;:!?！？\"'“”‘’()（）")
    if lang == "zh":
        obj = re.sub(r"(?:了|的|啦|呢|吧|啊|呀|哦|哈)+$", "", obj).strip()
        if slot in _PLACE_SLOTS:
            obj = re.sub("(?:" + "|".join(rules_zh.PLACE_NOISE) + ")$", "", obj).strip() or obj
            obj = obj.split("的", 1)[0] or obj   # 成都的高新区: 成都
            obj = _city(obj)
        if slot in ("likes", "dislikes"):
            obj = re.sub(r"^(?:上了?)", "", obj)
            if (len(obj) >= 2 and obj[0] in "吃喝") or (len(obj) >= 3 and obj[0] in "看听玩打踢弹读去"):
                obj = obj[1:]
        if slot == "for":
            obj = re.sub(r"^(?:来|去)", "", obj)
        if slot == "workplace" and re.search(r"(?:项目|组|团队|部门)(?:里|中)$", obj):
            obj = obj[:-1]
        obj = re.sub(r"^(?:一名|一位|一个|一辆|一台|个|名)", "", obj).strip()
    else:
        obj = re.sub(r"^(?:the|a|an|my|our|his|her|their|some)\s+", "", obj, flags=re.IGNORECASE)
        called = re.match(r"^(?:an? )?[a-z][\w\- ]* (?:called|named) (.+)$", obj)
        if called:
            obj = called.group(1)
        obj = re.sub(r"'s$", "", obj) if slot not in ("works_at", "studies_at") else obj
        obj = obj.strip(" .,")
    return obj


def _city(place: str) -> str:
    """A place at city level: 湖南衡阳 → 衡阳, 杭州滨江 → 杭州 (jieba's own split)."""
    tags = tag(place)
    words = [w for w, _t in tags]
    if len(words) >= 2 and all(t == "ns" for _w, t in tags):
        if words[0] in PROVINCES_ZH or words[0].rstrip("省") in PROVINCES_ZH:
            return "".join(words[1:2])
        return words[0]
    return place


def _split_objects(raw: str, slot: str, lang: str) -> list[str]:
    if slot not in MULTI_VALUED:
        return [raw]
    parts = re.split(r"\s*(?:和|、|与|以及|及)\s*" if lang == "zh" else r"\s*(?:,\s*and|,|\band\b|&|,?\s*or\b)\s*", raw)
    return [p for p in parts if p.strip()]


def _valid(obj: str, slot: str, flags: frozenset[str], lang: str) -> bool:
    if not obj or entity_key(obj) in _NOT_OBJECTS or obj.casefold() in _NOT_OBJECTS:
        return False
    if slot not in ("age", "birthday") and _QUANTITY.match(obj):
        return False
    if lang == "zh":
        if "job" in flags and not (obj.endswith(JOB_SUFFIXES_ZH) or obj in DIETS_ZH):
            return False
        if "project" in flags and not obj.endswith(PROJECT_SUFFIXES):
            return False
        if obj.endswith(("不", "没", "也不", "都不")):
            return False
    else:
        if slot != "birthday" and obj.split()[0] in (*MONTHS_EN, *WEEKDAYS_EN):
            return False
        if "not_a" in flags and re.match(r"^(?:an?)\s", obj):
            return False
        if slot == "owns" and not re.search(r"[A-Z0-9]", obj):
            return False
        if "job" in flags and not _job_en(obj):
            return False
        if re.match(_VAGUE_EN, obj, re.IGNORECASE) or re.search(r"[\"“”]|\bnot\b", obj):
            return False   # "the idea of …", "that they are …", "these ideas": no thing named
        if slot in ("likes", "dislikes", "uses", "role") and len(obj.split()) > 4:
            return False
        if slot == "role" and re.match(r"^(?:huge|big|fan|bit|lot|little|few|member)\b", obj, re.IGNORECASE):
            return False
    return True


_VAGUE_EN = (r"^(?:(?:the )?(?:idea|sound|thought|way|fact|look|feel|part|rest|same|point|options?|suggestions?|"
             r"recommendations?|template|caption|list|plan|approach|format|layout|first|second|last|big|huge|lots?)|"
             r".*\bidea$|a|an|the|that|this|these|those|it|them|"
             r"how|what|when|where|why|which|who|whether|if|to|something|anything|everything|nothing|some|any|all|"
             r"such|so|more|most|much|many|lot|lots|one|ones|other|others|another|each|both|either|your|you|its|"
             r"their|his|her|our|my|same|whatever|here|there|in|on|at|of|for|with)(?=\s|$)")


def _job_en(role: str) -> bool:
    words = role.casefold().split()
    return bool(words) and (words[-1] in JOB_HEADS_EN or " ".join(words[-2:]) in JOB_HEADS_EN)


_NAMED_SLOTS = frozenset({"works_on", "works_at", "member_of", "lives_in", "works_in", "studies_at"})


def _unnamed(obj: str, lang: str, slot: str = "") -> bool:
    """"一家银行", "a startup", "a project": a place or team the text does not name."""
    if lang == "zh":
        return obj.startswith(rules_zh.UNNAMED)
    return slot in _NAMED_SLOTS and bool(re.match(r"^(?:a|an|some|one)\s", obj.strip(), re.IGNORECASE)) \
        and not re.search(r"\b(?:called|named)\b", obj)


def _apply(rules: Sequence[Rule], rest: str, subject: Subject, cues: Cues, ctx: Context, lang: str
           ) -> tuple[list[Fact], str, Rule, re.Match[str]] | None:
    """The first rule that matches ``rest``, as facts about ``subject`` (and the text
    after the match)."""
    for rule in rules:
        match = rule.pattern.match(rest)
        if match is None:
            continue
        if "now" in rule.flags and not (cues.now or cues.past or cues.ended):
            continue
        facts = _facts(rule, match, subject, cues, lang)
        if facts is None:
            continue
        return facts, rest[match.end():], rule, match
    return None


def _facts(rule: Rule, match: re.Match[str], subject: Subject, cues: Cues, lang: str) -> list[Fact] | None:
    groups = {slot: match.group(group) for group, slot in rule.slots if match.group(group) is not None}
    group_of = {slot: group for group, slot in rule.slots}
    purpose = _clean(groups["for"], "for", lang) if groups.get("for") else subject.topic
    kin = groups.get("kin")
    who = subject.name
    change = "change" in rule.flags or cues.now
    ended_all = cues.past or cues.ended
    facts: list[Fact] = []
    resolved_old: str | None = None
    for slot, raw in groups.items():
        name = slot.lstrip("-")
        if name in ("for", "kin", "species"):
            continue
        ended = slot.startswith("-") or ended_all
        for piece in _split_objects(raw, name, lang):
            if _unnamed(piece, lang, name):
                continue
            obj = _clean(piece, name, lang)
            if not _valid(obj, name, rule.flags, lang):
                return None
            predicate = _RESOLVED[name][_kind(obj, lang)] if name in _RESOLVED else name
            if name in _RESOLVED and slot.startswith("-"):
                resolved_old = predicate
            elif name in _RESOLVED and resolved_old and predicate in ("role", "works_at"):
                predicate = resolved_old   # 从星图项目调去做天枢: the new value is of the old one's kind
            if _unnamed(obj, lang):
                continue
            if lang == "en" and re.fullmatch(r"[a-z]+ing", obj) and re.match(
                    r"\s+(?:to|with|about|at|for|on|in|of|around|up|out|through)\b",
                    match.string[match.end(group_of[slot]):]):
                return None   # "I enjoy listening to …": the object is what follows, cut off
            facts.append(Fact(who, predicate, obj, purpose if predicate == "uses" else None, ended,
                              change and not ended))
            if "hometown" in rule.flags:
                facts.append(Fact(who, "hometown", obj))
    if "of_user" in rule.flags and kin:
        table = KIN_ZH if lang == "zh" else KIN_EN
        predicate, _kind_word = table.get(kin, table.get(kin.casefold(), ("friend", None)))
        facts = [Fact(USER, predicate, who, ended=ended_all)]
    if "colleague" in rule.flags:
        facts = [Fact(USER, "colleague", who, ended=ended_all)]
    if "our_team" in rule.flags:
        team = next((f.object for f in facts if f.predicate == "member_of"), None)
        roles = [f for f in facts if f.predicate == "role"]
        facts = ([Fact(USER, "member_of", team)] if team else []) + [Fact(USER, "colleague", who)] + roles
        if team and any(r.object.casefold() in LEADER_ROLES for r in roles):
            facts.append(Fact(who, "responsible_for", team))
    return facts


# ====================================================================== Chinese

_ZH_FILLERS = ("btw", "BTW", "对了", "另外", "还有", "然后", "嗯", "哦", "其实", "但是", "但", "而且", "不过", "可是",
               "所以", "并且", "同时", "而")
_KIN_ZH_RE = "|".join(sorted(KIN_ZH, key=len, reverse=True))
_ZH_KIN_PREFIX = re.compile(r"^(?:我|本人|用户)(?:的)?(?P<new>新)?(?P<kin>" + _KIN_ZH_RE + ")")
_ZH_USER = re.compile(r"^(?:我|本人|用户)(?:的)?")
_ZH_RELATIVE = re.compile(r"^(?P<kin>" + "|".join(sorted(RELATIVES_ZH, key=len, reverse=True)) + ")")
_ZH_TEAM = re.compile(rf"^(?P<team>[{HAN_RANGES}A-Za-z]{{1,6}}?(?:组|团队|部门))(?:的(?:服务|项目|代码|系统|人))?"
                      r"(?=都|也|决定|统一|一律|全部|用|跑|在|部署)")
_ZH_PROJECT = re.compile(r"^(?:项目|本项目|整个项目|(?:后端|前端|客户端|服务端|全组|团队|公司|咱们)(?=统一|都|决定|一律|全部))")
_ZH_TOPIC = re.compile(rf"^\s*(?P<topic>[A-Za-z][\w\-]*|[{HAN_RANGES}]{{1,4}}?)\s*(?=用|跑|部署|统一|都)")
_ZH_REPORTING = re.compile("^(?:" + "|".join(rules_zh.REPORTING) + ")")


def _name_shaped_zh(word: str) -> bool:
    if not 2 <= len(word) <= 4 or not all(HAN.match(c) for c in word):
        return False
    if TIME_WORD_ZH.match(word) or word in KIN_ZH or word in SPECIES_ZH or word.endswith(JOB_SUFFIXES_ZH[:-1]):
        return False
    if word[0] in "老小" and len(word) == 2:
        return word[1] in SURNAMES
    if word[0] == "阿" and len(word) == 2:
        return True
    if word.startswith(COMPOUND_SURNAMES):
        return len(word) in (3, 4)
    if word[0] not in SURNAMES or len(word) == 4:
        return False
    return len(word) in (2, 3) or word.endswith(NAME_TITLES_ZH)


_COMPANION = re.compile(r"^(?:和|跟|与)[^，。]{1,5}?(?=一起|都|住|在)(?:一起)?")   # 安娜和她先生住在青岛


def _matches_zh(rest: str) -> bool:
    rest, _ = _strip_words(_COMPANION.sub("", rest), rules_zh.ADVERBS, spaced=False)
    rest = re.sub("^(?:" + "|".join(rules_zh.NEGATION + rules_zh.CESSATION) + ")", "", rest)
    return any(rule.pattern.match(rest) for rule in ZH) or rest.startswith(("是我", "的生日", "的导师"))


def _subject_zh(text: str, ctx: Context, first: bool) -> Subject | None:
    if text.startswith("我们家"):
        return Subject(USER, text[3:], "user")
    if text.startswith("我们") or text.startswith("咱们"):
        rest = re.sub(r"^(?:我们|咱们)(?:的)?", "", text)
        topic = _ZH_TOPIC.match(rest)
        return Subject(PROJECT, rest[topic.end():] if topic else rest, "project",
                       topic=topic.group("topic") if topic else None)
    kin = _ZH_KIN_PREFIX.match(text)
    if kin:
        return _kin_subject(kin, text, ctx)
    user = _ZH_USER.match(text)
    if user:
        return Subject(USER, text[user.end():], "user")
    relative = _ZH_RELATIVE.match(text)
    if relative and not _name_shaped_zh(text[:3]):
        return Subject(relative.group("kin"), text[relative.end():], "kin")
    if text[:1] in ("他", "她") and ctx.third:
        return Subject(ctx.third, text[1:], "person")
    project = _ZH_PROJECT.match(text)
    if project:
        return Subject(PROJECT, text[project.end():], "project")
    team = _ZH_TEAM.match(text)
    if team:
        return Subject(team.group("team"), text[team.end():], "team")
    for size in (2, 3, 4):
        word = text[:size]
        if _name_shaped_zh(word) and _matches_zh(text[size:]):
            return Subject(word, text[size:], "person")
    return None


def _kin_subject(kin: re.Match[str], text: str, ctx: Context) -> Subject:
    word = kin.group("kin")
    predicate, _kind_word = KIN_ZH[word]
    after = text[kin.end():]
    named = re.match(rf"^(?:叫|名字叫|名叫|是)(?P<n>[{HAN_RANGES}A-Za-z·]{{1,6}}?)(?:[，。、]|$)", after)
    if named and (after.startswith(("叫", "名")) or (_name_shaped_zh(named.group("n"))
                                                     and not named.group("n").endswith(JOB_SUFFIXES_ZH))):
        name = named.group("n")
        fact = Fact(USER, predicate, name, change=bool(kin.group("new")))
        return Subject(name, after[named.end():], "person", [fact])
    for size in (2, 3):
        name = after[:size]
        if _name_shaped_zh(name) and (_matches_zh(after[size:]) or not after[size:]):
            return Subject(name, after[size:], "person", [Fact(USER, predicate, name)])
    if _name_shaped_zh(after[:2]) and not _matches_zh(after):   # 我朋友阿杰养了一只柯基
        return Subject(after[:2], after[2:], "person", [Fact(USER, predicate, after[:2])])
    return Subject(word, after, "kin")


# a time before the subject: 今年春天, 三月起, 上个月底, 2024 年
_ZH_TIME_OPENER = re.compile(r"^(?:(?:今年|去年|前年|明年|\d{4}\s*年)?(?:春天|夏天|秋天|冬天|年初|年底|年中|上半年|下半年)|"
                             r"(?:\d{4}\s*年)?[一二三四五六七八九十\d]{1,2}\s*月(?:份|初|中|底)?|"
                             r"(?:上|这|下)个?月(?:初|中|底)|\d{4}\s*年)(?:起|开始|以来)?[，,]?")


def _clause_zh(clause: str, ctx: Context, first: bool) -> list[Fact]:
    text, _ = _strip_words(clause, _ZH_FILLERS, spaced=False)
    text, lead_cues = _strip_words(_ZH_TIME_OPENER.sub("", text), rules_zh.ADVERBS + rules_zh.PAST_CUES,
                                   spaced=False)
    subject = _subject_zh(text, ctx, first)
    if subject is None:
        return _subjectless_zh(text, lead_cues, ctx, first)
    if subject.kind == "person":
        ctx.third = subject.name
    ctx.subject = subject.name
    facts = list(subject.facts)
    if subject.facts and subject.kind == "person":
        ctx.persons.add(subject.name)
    if subject.rest.strip():
        found = _predicate_zh(subject.rest, subject, lead_cues, ctx)
        if subject.kind == "person" and any(f.subject == subject.name and f.predicate not in NOT_PERSON_SLOTS
                                            for f in found):
            ctx.persons.add(subject.name)
        facts.extend(found)
    return facts


def _subjectless_zh(text: str, cues: set[str], ctx: Context, first: bool) -> list[Fact]:
    for rule, who in ZH_OBJECT_FIRST:
        if rule.pattern.match(text):
            subject = USER if who == "user" else (ctx.subject or USER)
            found = _apply([rule], text, Subject(subject, text), Cues(ended=True), ctx, "zh")
            return found[0] if found else []
    if ctx.subject is None or (first and not cues):
        return []
    return _predicate_zh(text, Subject(ctx.subject, text, "inherited"), cues, ctx)


def _predicate_zh(rest: str, subject: Subject, lead_cues: set[str], ctx: Context) -> list[Fact]:
    rest, cues_found = _strip_words(_COMPANION.sub("", rest.strip()), rules_zh.ADVERBS + rules_zh.PAST_CUES,
                                    spaced=False)
    words = cues_found | lead_cues
    cues = Cues(now=bool(words & set(rules_zh.NOW_CUES)), past=bool(words & set(rules_zh.PAST_CUES)))
    rest = _COMPANION.sub("", rest)
    if _ZH_REPORTING.match(rest) and not rest.startswith(("说粤", "说英", "说普")):
        return []
    if ctx.species:
        pet = re.match(rf"^(?:一只|另一只|一条|另一条|一个|只)?叫(?P<o>[{HAN_RANGES}A-Za-z]{{1,6}})", rest)
        if pet:
            return [Fact(subject.name, "pet", pet.group("o"))]
    species = re.match(r"^养了?(?:一只|一条|两只|三只|几只|只|条|个)?(?P<s>" + "|".join(SPECIES_ZH) + ")", rest)
    if species:
        ctx.species = species.group("s")
    found = _apply(ZH, rest, subject, cues, ctx, "zh")
    if found is not None:
        ctx.denied = None
        return found[0]
    for cue in rules_zh.CESSATION + rules_zh.NEGATION:
        if not rest.startswith(cue):
            continue
        inner, more = _strip_words(rest[len(cue):], rules_zh.ADVERBS, spaced=False)
        ends = cue in ("不再", "没再", "已经不", "已不") or (cue in ("不", "没在", "没") and re.search(r"了\s*$", rest))
        found = _apply(ZH, inner, subject, Cues(ended=bool(ends)), ctx, "zh")
        if found is None:
            continue
        if ends:
            return [f for f in found[0] if f.ended]
        ctx.denied = (subject.name, found[0][0].predicate) if found[0] else None
        return []
    if ctx.denied and ctx.denied[0] == subject.name:
        fixed = re.match(rules_zh.CORRECTION, rest)
        if fixed:
            obj = _clean(fixed.group("o"), ctx.denied[1], "zh")
            denied, ctx.denied = ctx.denied, None
            if _valid(obj, denied[1], frozenset(), "zh"):
                return [Fact(subject.name, denied[1], obj)]
    return []


# ====================================================================== English

_EN_FILLERS = rules_en.FILLERS
_KIN_EN_RE = "|".join(re.escape(k) for k in sorted(KIN_EN, key=len, reverse=True))
_EN_MY_KIN = re.compile(r"^(?:my|our)\s+(?:(?P<new>new|current)\s+)?(?P<kin>" + _KIN_EN_RE + r")\b(?P<poss>'s)?\s*",
                        re.IGNORECASE)
_EN_NAME = re.compile(r"^(?:(?:Prof|Dr|Mr|Mrs|Ms)\.?\s+)?(?P<n>[A-Z][a-z]+(?:[ \-][A-Z][a-z]+)?)(?P<poss>'s)?\b\s*")
_EN_PROPER_NAME = r"(?:(?:Prof|Dr|Mr|Mrs|Ms)\.?\s+)?(?P<n>[A-Z][a-z]+(?: [A-Z][a-z]+)?)"
_EN_TEAM = re.compile(r"^the\s+(?P<team>(?:[\w\-]+ ){1,3}?team)\b\s*", re.IGNORECASE)
_EN_PROJECT = re.compile(r"^the\s+(?:repo|repository|codebase|project|app|service|monorepo|backend|frontend|stack)"
                         r"\b\s*", re.IGNORECASE)
_EN_OUR = re.compile(r"^our\s+(?P<topic>[\w\-]+)\s+", re.IGNORECASE)
_CONTRACTIONS = ((re.compile(r"\bI'm\b", re.IGNORECASE), "I am"), (re.compile(r"\bI've\b"), "I have"),
                 (re.compile(r"\bI'd\b"), "I would"), (re.compile(r"\bI'll\b"), "I will"),
                 (re.compile(r"\bcan't\b", re.IGNORECASE), "can not"), (re.compile(r"\bwon't\b", re.IGNORECASE),
                                                                        "will not"),
                 (re.compile(r"(\w)n't\b"), r"\1 not"), (re.compile(r"(\w)'re\b"), r"\1 are"),
                 (re.compile(r"(\w)'ve\b"), r"\1 have"), (re.compile(r"(\w)'ll\b"), r"\1 will"),
                 (re.compile(r"\b(she|he|it|that|there|what|who)'s\b", re.IGNORECASE), r"\1 is"),
                 (re.compile(r"(\w)'s (?=(?:a|an|the|my|our|his|her|not|now|also|just|really|obsessed|allergic|"
                             r"based|officially|still|been|got|going|moving|working|doing|currently|very|so|"
                             r"always|never|no|studying|learning)\b)"), r"\1 is "))


def expand(text: str) -> str:
    text = text.replace("’", "'").replace("‘", "'")
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    return text


def _subject_en(text: str, ctx: Context) -> Subject | None:
    if re.match(r"^I\b", text):
        return Subject(USER, text[1:].strip(), "user")
    speaker = re.match(r"^(?:the\s+)?user\b\s*", text, re.IGNORECASE)   # "The user works at Acme"
    if speaker:
        return Subject(USER, text[speaker.end():], "user")
    kin = _EN_MY_KIN.match(text)
    if kin:
        word = kin.group("kin").casefold()
        predicate, _kind_word = KIN_EN[word]
        after = text[kin.end():]
        named = re.match(r"^(?:is|name is)\s+" + _EN_PROPER_NAME + r"\s*$", after)
        if named:
            return Subject(USER, "", "user", [Fact(USER, predicate, named.group("n"), change=bool(kin.group("new")))])
        direct = _EN_NAME.match(after) if not kin.group("poss") else None
        if direct and direct.group("n").split()[0] not in NOT_NAMES_EN and not direct.group("poss"):
            name = direct.group("n")
            return Subject(name, after[direct.end():], "person", [Fact(USER, predicate, name)])
        if kin.group("poss"):
            return Subject(USER, word + "'s " + after, "user")
        return Subject(word, after, "kin")
    bare = re.match(r"^(?P<kin>" + "|".join(sorted(RELATIVES_EN, key=len, reverse=True)) + r")\b\s*", text,
                    re.IGNORECASE)
    if bare:   # "wife's a graphic designer btw"
        return Subject(bare.group("kin").casefold(), text[bare.end():], "kin")
    if re.match(r"^my\s+", text, re.IGNORECASE):
        return Subject(USER, re.sub(r"^my\s+", "", text, flags=re.IGNORECASE), "user")
    if re.match(r"^we\b", text, re.IGNORECASE):
        return Subject("we", text[2:].strip(), "we")
    our = _EN_OUR.match(text)
    if our:
        return Subject(PROJECT, text[our.end():], "project", topic=our.group("topic"))
    team = _EN_TEAM.match(text)
    if team:
        return Subject(team.group("team"), text[team.end():], "team")
    project = _EN_PROJECT.match(text)
    if project:
        return Subject(PROJECT, text[project.end():], "project")
    if re.match(r"^(?:he|she|they)\b", text, re.IGNORECASE):
        if ctx.third is None:
            return None
        return Subject(ctx.third, re.sub(r"^\w+\s*", "", text), "person")
    name = _EN_NAME.match(text)
    if name and name.group("n").split()[0] not in NOT_NAMES_EN and not re.search(r"(?:ing|ly|ed)$", name.group("n")):
        after = text[name.end():]
        who = name.group("n")
        if name.group("poss"):
            partner = re.match(r"^(?P<kin>" + _KIN_EN_RE + r")\s+is\s+" + _EN_PROPER_NAME, after, re.IGNORECASE)
            if partner:
                predicate, _k = KIN_EN[partner.group("kin").casefold()]
                return Subject(who, after[partner.end():], "person", [Fact(who, predicate, partner.group("n"))])
        return Subject(who, after, "person")
    return None


_EN_TIME_OPENER = re.compile(r"^(?:these days|nowadays|lately|recently|today|yesterday|this (?:week|month|year)|"
                             r"last (?:week|month|year|spring|summer|fall|autumn|winter)|since \w+|in \d{4}|"
                             r"(?:in|since|from|on) (?:" + "|".join((*MONTHS_EN, *WEEKDAYS_EN)) + r")|"
                             r"(?:this|last) (?:spring|summer|fall|autumn|winter)),?\s+", re.IGNORECASE)


def _clause_en(clause: str, ctx: Context, first: bool) -> list[Fact]:
    text, fillers = _strip_words(expand(clause), _EN_FILLERS, spaced=True)
    text = _EN_TIME_OPENER.sub("", text)
    lowered = text.casefold()
    if lowered.startswith(rules_en.NON_FACT_OPENERS) and not lowered.startswith(("i am", "is ", "are ")):
        return []
    if re.match(r"^(?:i (?:will|would|am going to|am thinking|am planning|am moving|might|may|should|could|"
                r"want|wanna|hope|plan|need to)|let me)\b", lowered):
        return []
    subject = _subject_en(text, ctx)
    continuing = lowered.split(" ", 1)[0] in rules_en.CONTINUERS or bool(fillers & set(rules_en.CONTINUERS))
    if subject is None:
        # English drops a subject only after "and" / "but" or a word like "especially": a
        # clause after a comma with none is a phrase ("…, like a conservation project")
        if ctx.subject is None or first:
            return []
        return _inherited_en(text, ctx, continuing)
    if subject.kind == "person" and re.match(r"^(?:" + "|".join(REPORTING_VERBS_EN) + r")\b", subject.rest):
        ctx.persons.add(subject.name)   # "Sue said …": a person, and no fact of ours
        return []
    facts = list(subject.facts)
    previous = ctx.subject
    if subject.kind != "we":
        ctx.subject = subject.name
    found = _predicate_en(subject.rest, subject, ctx) if subject.rest.strip() else []
    if not found and not facts and subject.kind == "person":
        ctx.subject = previous
        inherited = _inherited_en(text, ctx, True) if ctx.lead and previous and not first else []
        if inherited:
            return inherited
    if found and subject.kind == "we":
        household = {"lives_in", "pet", "owns"}
        who = USER if any(f.predicate in household for f in found) else PROJECT
        found = [Fact(who if f.subject == "we" else f.subject, f.predicate, f.object, f.purpose, f.ended, f.change)
                 for f in found]
        subject.name = who
    if subject.kind == "person" and (facts or any(f.subject == subject.name and f.predicate not in NOT_PERSON_SLOTS
                                                  for f in found)):
        ctx.persons.add(subject.name)
    if subject.kind in ("person", "kin") and (found or facts):
        ctx.third = subject.name
    if found or facts or subject.kind != "person":
        ctx.subject = subject.name
    return facts + found


def _inherited_en(text: str, ctx: Context, continuing: bool) -> list[Fact]:
    assert ctx.subject is not None
    subject = Subject(ctx.subject, text, "inherited")
    body = re.sub(r"^(?:" + "|".join(rules_en.CONTINUERS) + r")\s+", "", text, flags=re.IGNORECASE)
    found = _predicate_en(body, subject, ctx) if continuing else []
    if found:
        return found
    if ctx.denied and ctx.denied[0] == ctx.subject:
        fixed = re.match(rules_en.CORRECTION, text, re.IGNORECASE)
        if fixed:
            predicate = ctx.denied[1]
            ctx.denied = None
            obj = _clean(fixed.group("o"), predicate, "en")
            if _valid(obj, predicate, frozenset(), "en"):
                return [Fact(ctx.subject, predicate, obj)]
    if re.match(r"^(?:an?|the)\s", body, re.IGNORECASE) and not re.search(
            r"\b(?:is|are|was|were|am|has|have|do|does|did)\b", body):  # "I am Nora, a PM at Figma"
        found = _predicate_en("is " + body, subject, ctx)
        if found:
            return found
    if continuing and ctx.lead and ctx.lead[0] == ctx.subject:  # "I like jazz, especially Coltrane"
        return _predicate_en(ctx.lead[1] + body, subject, ctx)
    return []


_AFTER_AUX = re.compile(r"^((?:am|is|are|was|were|have|has|do|does)\s+)(?:" + "|".join(rules_en.ADVERBS) + r")\s+")


def _plain_en(rest: str) -> tuple[str, set[str]]:
    """``rest`` without the adverbs before and after its first verb ("am now reporting")."""
    rest, cues = _strip_words(rest.strip(), rules_en.ADVERBS, spaced=True)
    while _AFTER_AUX.match(rest):
        rest = _AFTER_AUX.sub(r"\1", rest, count=1)
    return rest, cues


def _predicate_en(rest: str, subject: Subject, ctx: Context) -> list[Fact]:
    rest, cues_found = _plain_en(rest)
    clause_now = bool(re.search(r"\b(?:now|currently|these days|nowadays)\b", rest)) or bool(
        cues_found & {"now", "currently"})
    ending = bool(re.search(r"\b(?:anymore|any more|any longer|no longer)\b", rest))
    cues = Cues(now=clause_now)
    negation = re.match(r"^(?:(?:am|is|are|was|were|have|has|had)\s+)?(?:" + "|".join(rules_en.NEGATIONS) + ")", rest)
    found = _apply(EN[:_DISLIKE_ROWS] if negation else EN, rest, subject, cues, ctx, "en")
    if found is None:
        if negation is None:
            return []
        kept = re.match(r"^(am|is|are|was|were|have|has|had)\s+(?:not|never|no longer)\s+", rest)
        inner, _ = _plain_en((kept.group(1) + " " + rest[kept.end():]) if kept else rest[negation.end():])
        inner = re.sub(r"^(?:been\s+)?", "", inner)
        found = _apply(EN, inner.strip(), subject, Cues(ended=ending), ctx, "en")
        if found is None:
            return []
        if not ending:
            ctx.denied = (subject.name, found[0][0].predicate) if found[0] else None
            return []
        return [f for f in found[0] if f.ended]
    facts, tail, rule, match = found
    ctx.denied = None
    if facts and facts[-1].predicate in MULTI_VALUED and rule.slots:
        first_group = rule.slots[0][0]
        ctx.lead = (subject.name, rest[:match.start(first_group)])
    return facts + _trailers(tail, facts, subject, ctx)


_DISLIKE_ROWS = 3   # EN's first rows: the dislikes a negation states ("do not like", "can not stand")

_TRAILERS: tuple[tuple[re.Pattern[str], frozenset[str], str], ...] = (
    (re.compile(r"^at\s+(?:an?|the)\s+(?:[a-z][\w\-]* ){0,3}?in\s+(?P<o>" + rules_en.OBJECTS["proper"] + ")"),
     frozenset({"role", "works_at"}), "works_in"),
    (re.compile(r"^(?:at|for)\s+(?P<o>" + rules_en.OBJECTS["proper"] + ")"),
     frozenset({"role", "responsible_for", "member_of", "works_on"}), "works_at"),
    (re.compile(r"^in\s+(?P<o>" + rules_en.OBJECTS["proper"] + ")"), frozenset({"works_at", "role"}), "works_in"),
    (re.compile(r"^as\s+(?:an?|the)\s+(?P<o>[\w\- ]+?)(?=\s+(?:at|in|for|on|and|but|since|last|this)\b|\s*$)"),
     frozenset({"works_at", "member_of"}), "role"),
    (re.compile(r"^on\s+(?:the\s+)?(?P<o>[A-Z][\w\-]*(?: [A-Z][\w\-]*)*(?: project)?|[\w\-]+ project)\b"),
     frozenset({"role", "responsible_for"}), "works_on"),
    (re.compile(r"^on\s+(?:my|our)\s+team\b"), frozenset({"role"}), "colleague"),
    (re.compile(r"^for\s+(?:the\s+)?(?P<o>(?:[\w\-]+ ){1,3}?team)\b"), frozenset({"role"}), "responsible_for"),
)


def _trailers(tail: str, facts: list[Fact], subject: Subject, ctx: Context) -> list[Fact]:
    """What follows a matched rule in the same clause: " at Netflix", " in Sydney", " as a
    PM", " on the Orion project", "and reports to Tom", "and French"."""
    out: list[Fact] = []
    predicates = {f.predicate for f in facts if not f.ended}
    for _ in range(6):
        text = tail.strip()
        if not text:
            break
        for pattern, after, predicate in _TRAILERS:
            match = pattern.match(text)
            if match and predicates & after:
                if predicate == "colleague":
                    out.append(Fact(USER, "colleague", subject.name))
                else:
                    obj = _clean(match.group("o"), predicate, "en")
                    if _valid(obj, predicate, frozenset(), "en"):
                        out.append(Fact(subject.name, predicate, obj))
                        predicates.add(predicate)
                tail = text[match.end():]
                break
        else:
            joined = re.match(r"^(?:and|but|,)\s+(?P<rest>.+)$", text)
            if joined:
                more = _clause_en("and " + joined.group("rest"), ctx, False)
                if not more and ctx.lead and ctx.lead[0] == subject.name:
                    more = _predicate_en(ctx.lead[1] + joined.group("rest"), subject, ctx)
                return out + more
            skipped = re.match(r"^(?:(?:last|this|next) \w+|(?:in|on|since|over) (?:the )?(?:[A-Z][a-z]+|\d{4}|"
                               r"summer|winter|spring|fall|autumn)|yesterday|today|recently|ago|a while ago)\b",
                               text) or re.match(r"^(?:\S+\s+){1,4}?(?=(?:and|but)\s)", text)
            if not skipped:
                break
            tail = text[skipped.end():]
    return out


# ====================================================================== the pipeline

_NON_FACT_EN = re.compile(r"^(?:" + "|".join(re.escape(w) for w in rules_en.NON_FACT_OPENERS) + r")\b",
                          re.IGNORECASE)


def _states_facts(sentence: str) -> bool:
    """False for a sentence that states no fact: a question, a hypothetical, a plan, a
    command, someone's opinion, code or a log line."""
    if sentence.endswith(("?", "？")):
        return False
    if has_han(sentence):
        text, _ = _strip_words(sentence, _ZH_FILLERS, spaced=False)
        if text.startswith(rules_zh.NON_FACT_OPENERS) or any(w in sentence for w in rules_zh.NON_FACT_ANYWHERE):
            return False
        return not re.search(r"(?:吗|呢|么)\s*$", sentence)
    if any(w in sentence for w in rules_en.NON_FACT_ANYWHERE):
        return False
    text, _ = _strip_words(expand(sentence), _EN_FILLERS, spaced=True)
    if _NON_FACT_EN.match(text) and not re.match(r"^(?:i am|is not|are not)\b", text, re.IGNORECASE):
        return False
    return not re.match(r"^[A-Za-z]+:\s", sentence)   # "Bash: pytest -x …"


def _read(content: str) -> Context:
    ctx = Context()
    for sentence in sentences(content[:20_000]):
        ctx.denied = None
        ctx.species = None
        if not _states_facts(sentence):
            for name in re.findall(r"\b([A-Z][a-z]+) (?:" + "|".join(REPORTING_VERBS_EN) + r")\b", sentence):
                if name not in NOT_NAMES_EN:
                    ctx.persons.add(name)
            continue
        reader = _clause_zh if has_han(sentence) else _clause_en
        for index, clause in enumerate(clauses(sentence)):
            ctx.facts.extend(reader(clause, ctx, index == 0))
        ctx.lead = None
    return ctx


def _relations(ctx: Context) -> list[Relation]:
    found: list[Relation] = []
    seen: set[tuple[str, str, str, bool]] = set()
    for fact in ctx.facts:
        relation = Relation(fact.subject, fact.predicate, fact.object, purpose=fact.purpose or None,
                            extracted=True, ended=fact.ended, change=fact.change)
        key = (relation.subject_key, relation.predicate, relation.object_key, relation.ended)
        if not relation.subject_key or not relation.object_key or key in seen:
            continue
        seen.add(key)
        found.append(relation)
    return found


def extract_relations(content: str) -> list[Relation]:
    return _relations(_read(content))


# ---------------------------------------------------------------------- entities

_TYPE_OF_SLOT = {"lives_in": "place", "works_in": "place", "born_in": "place", "hometown": "place",
                 "works_at": "organisation", "studies_at": "organisation", "graduated_from": "organisation",
                 "member_of": "team", "works_on": "project", "uses": "tool", "pet": "pet", "owns": "thing"}
POS_TYPES = {"ns": "place", "nt": "organisation"}
_CAPITALISED = re.compile(r"\b([A-Z][a-z]+(?: [A-Z][a-z]+)*)\b")
_LIST_MARK = re.compile(r"\n\s*(?:[-*•]|\d+[.)])?\s*$")
_NEVER_ENTITIES = frozenset({*MONTHS_EN, *WEEKDAYS_EN, *NOT_NAMES_EN})


def _capitalised_names(content: str) -> list[str]:
    """Capitalised runs that look like names. A lone capitalised word opening a sentence,
    a line or a list item ("Why …", "Facts:", "- Fixed …") is only the grammar's capital,
    unless the same word is also capitalised inside a sentence somewhere."""
    runs, inside = [], set()
    for match in _CAPITALISED.finditer(content):
        name = match.group(1)
        if name in _NEVER_ENTITIES or name.split()[0] in _NEVER_ENTITIES:
            continue
        before = content[:match.start()].rstrip(" \t\"'(“‘")
        opening = not before or before[-1] in ".!?:;\n" or bool(_LIST_MARK.search(content[:match.start()]))
        if not opening:
            inside.add(name)
        runs.append((name, opening))
    return [name for name, opening in runs if " " in name or not opening or name in inside]


def _short_names(name: str) -> tuple[str, ...]:
    """星图项目 is also 星图, "Orion project" also "Orion": one project under both names,
    so two memories naming it either way meet in the graph."""
    short = re.sub(r"\s*(?:项目|project)$", "", name, flags=re.IGNORECASE).strip()
    return (short,) if short != name and len(short) >= 2 else ()


def _typed_from_relations(ctx: Context) -> dict[str, Entity]:
    typed: dict[str, Entity] = {}
    for fact in ctx.facts:
        if fact.predicate in PERSON_OBJECTS:
            typed.setdefault(entity_key(fact.object), Entity(fact.object, type="person", extracted=True))
        elif fact.predicate in _TYPE_OF_SLOT:
            kind = _TYPE_OF_SLOT[fact.predicate]
            typed.setdefault(entity_key(fact.object), Entity(fact.object, type=kind, aliases=_short_names(fact.object),
                                                             extracted=True))
    for name in ctx.persons:
        typed[entity_key(name)] = Entity(name, type="person", extracted=True)
    typed.pop(entity_key(USER), None)
    typed.pop(entity_key(PROJECT), None)
    return typed


def _pos_entities(content: str) -> list[Entity]:
    if not has_han(content):
        return []
    out = []
    for word, pos in tag(content):
        word = word.strip()
        if len(word) < 2:
            continue
        if pos in POS_TYPES:
            out.append(Entity(word, type=POS_TYPES[pos], extracted=True))
        elif pos in ("nr", "nrfg", "nrt") and _name_shaped_zh(word) and word not in RELATIVES_ZH:
            after = content[content.find(word) + len(word):]
            if after.startswith(PERSON_CONTEXT_ZH):   # 张伟说… (not 李宁的新款, 王者荣耀又…)
                out.append(Entity(word, type="person", extracted=True))
    return out


def _entities(content: str, ctx: Context, tags: Sequence[str]) -> list[Entity]:
    found = _typed_from_relations(ctx)
    for entity in _pos_entities(content):
        found.setdefault(entity.key, entity)
    for name in _capitalised_names(content):
        found.setdefault(entity_key(name), Entity(name, extracted=True))
    for label in tags:
        found.setdefault(entity_key(label), Entity(label, type="tag", extracted=True))
    return [e for key, e in found.items() if key and not TIME_WORD_ZH.match(e.name)]


def extract_entities(content: str, tags: Sequence[str] = ()) -> list[Entity]:
    return _entities(content, _read(content), tags)


def with_extracted(extra: Mapping[str, Any], content: str, tags: Sequence[str]) -> dict[str, Any]:
    """``extra`` with extracted entities and relations added under the keys the user left out."""
    out = dict(extra)
    if "entities" in extra and "relations" in extra:
        return out
    ctx = _read(content)
    if "entities" not in extra:
        entities = _entities(content, ctx, tags)
        if entities:
            out["entities"] = [e.to_frontmatter() for e in entities]
    if "relations" not in extra:
        relations = _relations(ctx)
        if relations:
            out["relations"] = [r.to_frontmatter() for r in relations]
    return out
