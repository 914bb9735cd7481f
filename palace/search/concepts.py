"""Concept expansion: add the words a user *didn't* type to a query.

People store "决定用 PostgreSQL" and later ask about "数据库选型". A keyword index
cannot bridge that, so before searching we look the query up in a concept map and
add related terms, each with a weight below the user's own words.

The map
-------
A YAML list of groups. The built-in one ships inside the package
(``palace/data/concepts.yaml``); a user file (``MEMORY_CONCEPTS_FILE``) is merged
over it. A group::

    - name: database                # unique id; a user group with the same name replaces it
      terms: 数据库, database, DB    # words for the concept itself, all equivalent
      instances:                    # kinds / examples of the concept, one per line
        - PostgreSQL, Postgres, PG  # commas separate aliases of one instance
        - MySQL
        - SQLite

Words are separated by ``,``, ``，`` or ``、``; YAML lists (``[a, b]``) work too.

User files may also say ``disabled: true`` (remove the built-in group of that
name) or ``extend: true`` (add the terms/instances to the built-in group instead of
replacing it).

Relations and weights (the user's own words count 1.0)
------------------------------------------------------
===============  ======  ======================================================
relation         weight  when
===============  ======  ======================================================
synonym          0.60    another term of the same group, same script
                         (部署 → 上线), or another alias of the same instance
                         (Postgres → PostgreSQL)
translation      0.60    like synonym, but across scripts (部署 → deploy)
instance         0.45    the query names the concept, we add its instances
                         (数据库 → PostgreSQL): likely what the memory says
hypernym         0.35    the query names an instance, we add the concept's terms
                         (PostgreSQL → 数据库): weaker, because a memory about
                         "the database" may be about another one
neighbour        ≤ 0.50  from ``neighbour_fn`` (vector neighbours):
                         0.5 × similarity, so never as strong as a synonym
===============  ======  ======================================================

Siblings are deliberately not linked (MySQL does not bring PostgreSQL): someone
asking about MySQL is not helped by memories about another database.

Matching
--------
Chinese has no spaces, so terms containing CJK characters match as substrings;
Latin terms match case-insensitively on word boundaries ("DB" does not fire inside
"feedback", "release" fires in "release notes"; a CJK character counts as a
boundary, so "用PostgreSQL" matches; a plural -s/-es is tolerated). Overlapping
matches are resolved longest first, so 前端框架 wins over 框架.

Ranking: by weight; within a weight, the sources take turns (the first instance
of every concept in the query before the second of any), so one concept with
many instances cannot crowd the others out of ``max_terms``.

Speed: the built-in map is parsed once per process (``builtin_groups``) and the
match index once per distinct group set, so ``ConceptExpander.load()`` is cheap
after the first call; the first call (YAML with libyaml) takes a few tens of ms.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence, cast

from palace.errors import ConfigError, PalaceError
from palace.text.script import CJK, CJK_RANGES, has_cjk

SYNONYM_WEIGHT = 0.60
TRANSLATION_WEIGHT = 0.60
INSTANCE_WEIGHT = 0.45
HYPERNYM_WEIGHT = 0.35
NEIGHBOUR_MAX_WEIGHT = 0.50
MIN_NEIGHBOUR_WEIGHT = 0.05  # below this a neighbour only adds noise to the query

NeighbourFn = Callable[[str], Iterable[tuple[str, float]]]

_GROUP_KEYS = {"name", "terms", "instances", "disabled", "extend"}


@dataclass(frozen=True)
class Expansion:
    term: str       # related term to add to the query
    weight: float   # in (0, 1): always lower than the user's own words (1.0)
    source: str     # the query term that triggered it
    relation: str   # "synonym" | "translation" | "instance" | "hypernym" | "neighbour"
    group: str      # concept group name ("" for neighbours)


@dataclass(frozen=True)
class ConceptGroup:
    name: str
    terms: tuple[str, ...]
    instances: tuple[tuple[str, ...], ...] = ()  # each instance: its aliases, preferred first


# --- text helpers ------------------------------------------------------------

# CJK, not only Han: kana and hangul also run on without spaces, so each of their
# characters is a word boundary for a Latin term and a concept key of its own script.
_CJK_CLASS = CJK_RANGES
_CJK_RE = CJK
# A word for the neighbour hook: a run of CJK characters, or a run of other word characters.
_WORD_RE = re.compile(f"[{_CJK_CLASS}]+|(?:(?![{_CJK_CLASS}])\\w)+")
_TERM_SEPARATORS = re.compile(r"[,，、]")


def _is_latin_word_char(char: str) -> bool:
    # str.isalnum() is true for CJK too; a CJK neighbour must count as a boundary.
    return (char.isalnum() or char == "_") and _CJK_RE.match(char) is None


def _fold(text: str) -> str:
    """Lower-case without changing the length, so offsets stay valid."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def term_key(term: str) -> str:
    """How terms are compared: case-folded, inner whitespace collapsed."""
    folded = _fold(term)
    return " ".join(folded.split()) if "  " in folded or "\t" in folded else folded


def _is_on_word_boundary(text: str, start: int, end: int) -> bool:
    before_ok = start == 0 or not _is_latin_word_char(text[start - 1])
    after_ok = end == len(text) or not _is_latin_word_char(text[end])
    return before_ok and after_ok


def _occurrences(folded_text: str, key: str) -> list[tuple[int, int]]:
    """Spans where ``key`` occurs; Latin keys only on word boundaries.

    A Latin key ending in a letter also matches its plural ("databases", "bugs"),
    so the map does not have to list every inflection.
    """
    spans = []
    is_latin = not has_cjk(key)
    suffixes = ("", "s", "es") if is_latin and key[-1:].isalpha() else ("",)
    start = folded_text.find(key)
    while start != -1:
        end = start + len(key)
        if not is_latin:
            spans.append((start, end))
        else:
            for suffix in suffixes:
                if folded_text.startswith(suffix, end) and _is_on_word_boundary(
                    folded_text, start, end + len(suffix)
                ):
                    spans.append((start, end + len(suffix)))
                    break
        start = folded_text.find(key, start + 1)
    return spans


def _same_level(source: str, target: str) -> tuple[float, str]:
    """Weight and relation between two words that mean the same thing."""
    if has_cjk(source) != has_cjk(target):
        return TRANSLATION_WEIGHT, "translation"
    return SYNONYM_WEIGHT, "synonym"


# --- parsing and validation --------------------------------------------------

def _as_term(value: Any, where: str, position: int) -> str:
    # Numbers are accepted because YAML turns "618" or "4090" into ints.
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f"{where}[{position}]: expected a word, got {value!r}")
    term = " ".join(str(value).split())
    if not term:
        raise ValueError(f"{where}[{position}]: empty term")
    return term


def _as_term_list(value: Any, where: str) -> list[str]:
    """A list of words, or one string of words separated by commas (, ， or 、)."""
    if value is None:
        return []
    if isinstance(value, str):
        # The common case, kept lean: the built-in map has thousands of these.
        terms = [" ".join(part.split()) for part in _TERM_SEPARATORS.split(value)]
        return [term for term in terms if term]
    if not isinstance(value, list):
        raise ValueError(f"{where}: expected words separated by commas, got {value!r}")
    return [_as_term(item, where, i) for i, item in enumerate(value)]


def _parse_instances(value: Any, where: str) -> list[list[str]]:
    """One entry per instance; an entry is a word, "alias, alias", or [alias, alias]."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(
            f"{where}: expected a list with one instance per line ('- MySQL'), got {value!r}"
        )
    instances = []
    for i, item in enumerate(value):
        if not isinstance(item, (str, list)):
            item = [_as_term(item, where, i)]
        aliases = _as_term_list(item, f"{where}[{i}]")
        if not aliases:
            raise ValueError(f"{where}[{i}]: empty instance")
        instances.append(aliases)
    return instances


def _dedupe_terms(terms: Iterable[str], seen: set[str]) -> tuple[str, ...]:
    kept = []
    for term in terms:
        key = term_key(term)
        if key not in seen:
            seen.add(key)
            kept.append(term)
    return tuple(kept)


def _build_group(name: str, terms: Sequence[str], instances: Sequence[Sequence[str]]) -> ConceptGroup:
    """A group with duplicates dropped (the first spelling of a word wins)."""
    seen: set[str] = set()
    kept_terms = _dedupe_terms(terms, seen)
    kept_instances = tuple(
        aliases for aliases in (_dedupe_terms(a, seen) for a in instances) if aliases
    )
    return ConceptGroup(name=name, terms=kept_terms, instances=kept_instances)


@dataclass(frozen=True)
class GroupEntry:
    """One group as written in a file, before it is merged over the built-in map."""

    name: str
    terms: list[str]
    instances: list[list[str]]
    disabled: bool = False
    extend: bool = False


def _parse_entry(raw: Any, index: int) -> GroupEntry:
    where = f"group #{index + 1}"
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: expected a mapping with 'name' and 'terms', got {raw!r}")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{where}: missing 'name'")
    name = name.strip()
    where = f"group {name!r}"
    unknown = sorted(set(map(str, raw)) - _GROUP_KEYS)
    if unknown:
        raise ValueError(
            f"{where}: unknown key(s) {', '.join(unknown)}; "
            f"allowed: {', '.join(sorted(_GROUP_KEYS))}"
        )
    for flag in ("disabled", "extend"):
        if flag in raw and not isinstance(raw[flag], bool):
            raise ValueError(f"{where}: '{flag}' must be true or false, got {raw[flag]!r}")
    disabled = raw.get("disabled", False)
    extend = raw.get("extend", False)
    if disabled and extend:
        raise ValueError(f"{where}: 'disabled' and 'extend' cannot both be true")
    terms = _as_term_list(raw.get("terms"), f"{where}.terms")
    instances = _parse_instances(raw.get("instances"), f"{where}.instances")
    if extend and not (terms or instances):
        raise ValueError(f"{where}: 'extend' needs terms or instances to add")
    if not disabled and not extend:
        if not terms:
            raise ValueError(f"{where}: needs at least one word in 'terms'")
        if not instances and len(terms) < 2:
            raise ValueError(f"{where}: needs two or more terms, or terms and instances")
    return GroupEntry(name, terms, instances, disabled, extend)


def parse_concept_entries(data: Any) -> list[GroupEntry]:
    """Validate a parsed YAML document; raises ValueError with the reason."""
    if data is None:
        return []  # an empty file is a valid (empty) map
    if not isinstance(data, list):
        raise ValueError(
            f"the top level must be a list of groups ('- name: ...'), got {type(data).__name__}"
        )
    entries = []
    names: set[str] = set()
    for index, raw in enumerate(data):
        entry = _parse_entry(raw, index)
        if entry.name in names:
            raise ValueError(f"group {entry.name!r} is defined twice in the same file")
        names.add(entry.name)
        entries.append(entry)
    return entries


def merge_groups(base: Sequence[ConceptGroup], overrides: Sequence[GroupEntry]) -> list[ConceptGroup]:
    """Apply a file's entries over ``base``: replace, extend, disable or add groups."""
    merged: dict[str, ConceptGroup] = {group.name: group for group in base}
    for entry in overrides:
        if entry.disabled:
            merged.pop(entry.name, None)  # disabling an unknown group is harmless
        elif entry.extend:
            current = merged.get(entry.name)
            if current is None:
                raise ValueError(f"group {entry.name!r}: 'extend' names no existing group")
            merged[entry.name] = _build_group(
                entry.name, [*current.terms, *entry.terms], [*current.instances, *entry.instances]
            )
        else:
            merged[entry.name] = _build_group(entry.name, entry.terms, entry.instances)
    return list(merged.values())


def _load_entries(text: str, origin: str) -> list[GroupEntry]:
    import yaml  # lazily: a process with concepts disabled never pays for it

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{origin}: not valid YAML{at}: {problem}") from None
    try:
        return parse_concept_entries(data)
    except ValueError as exc:
        raise ConfigError(f"{origin}: {exc}") from None


BUILTIN_MAP = "data/concepts.yaml"


@functools.lru_cache(maxsize=1)
def builtin_groups() -> tuple[ConceptGroup, ...]:
    """The shipped concept map, parsed once per process."""
    text = resources.files("palace").joinpath(BUILTIN_MAP).read_text(encoding="utf-8")
    entries = _load_entries(text, f"palace/{BUILTIN_MAP}")
    return tuple(merge_groups((), entries))


def load_user_entries(path: str | Path) -> list[GroupEntry]:
    """Parse and validate a user concept file; ConfigError names the file and the reason."""
    path = Path(path).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"{path}: concept file not found (fix MEMORY_CONCEPTS_FILE, or unset it)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the concept file: {exc}") from None
    return _load_entries(text, str(path))


def _coerce_group(group: ConceptGroup | Mapping[str, Any], index: int) -> ConceptGroup:
    if isinstance(group, ConceptGroup):
        return group
    try:
        entry = _parse_entry(dict(group), index)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"concept group: {exc}") from None
    if entry.disabled or entry.extend:
        raise ConfigError(f"concept group {entry.name!r}: 'disabled'/'extend' only work in a file")
    return _build_group(entry.name, entry.terms, entry.instances)


# --- the match index -------------------------------------------------------------

NAMES_THE_CONCEPT = -1  # instance index of a term that names the group itself


@dataclass(frozen=True)
class _MatchIndex:
    memberships: dict[str, tuple[tuple[int, int], ...]]  # key -> (group index, instance index)
    cjk_keys: frozenset[str]
    cjk_lengths_by_first_char: dict[str, tuple[int, ...]]  # longest first
    latin_keys: tuple[str, ...]


@functools.lru_cache(maxsize=8)
def _build_index(groups: tuple[ConceptGroup, ...]) -> _MatchIndex:
    """Cached per group set, so repeated ``load()`` calls share one index."""
    memberships: dict[str, list[tuple[int, int]]] = {}
    for gi, group in enumerate(groups):
        for term in group.terms:
            memberships.setdefault(term_key(term), []).append((gi, NAMES_THE_CONCEPT))
        for ii, aliases in enumerate(group.instances):
            for alias in aliases:
                memberships.setdefault(term_key(alias), []).append((gi, ii))
    cjk_keys = []
    latin_keys = []
    lengths: dict[str, set[int]] = {}
    for key in memberships:
        if _CJK_RE.search(key):
            cjk_keys.append(key)
            lengths.setdefault(key[0], set()).add(len(key))
        else:
            latin_keys.append(key)
    return _MatchIndex(
        memberships={key: tuple(found) for key, found in memberships.items()},
        cjk_keys=frozenset(cjk_keys),
        cjk_lengths_by_first_char={c: tuple(sorted(ls, reverse=True)) for c, ls in lengths.items()},
        latin_keys=tuple(latin_keys),
    )


@dataclass(frozen=True)
class TermMatch:
    start: int
    end: int
    text: str  # as written in the query
    key: str   # the map's key it matched ("databases" in the text -> "database")


def find_terms(terms: _MatchIndex, text: str) -> list[TermMatch]:
    """Concept terms in ``text``: non-overlapping, longest claimed first, in text order."""
    folded = _fold(text)
    candidates: list[tuple[int, int, str]] = []
    for start, char in enumerate(folded):
        for length in terms.cjk_lengths_by_first_char.get(char, ()):
            end = start + length
            if end <= len(folded) and folded[start:end] in terms.cjk_keys:
                candidates.append((start, end, folded[start:end]))
    for key in terms.latin_keys:
        if key in folded:  # cheap C-level pre-check before the boundary scan
            candidates.extend((start, end, key) for start, end in _occurrences(folded, key))
    # Longest first, then leftmost: 前端框架 claims its characters before 框架 can.
    candidates.sort(key=lambda c: (-(c[1] - c[0]), c[0]))
    taken = [False] * len(folded)
    chosen = []
    for start, end, key in candidates:
        if not any(taken[start:end]):
            taken[start:end] = [True] * (end - start)
            chosen.append(TermMatch(start, end, text[start:end], key))
    chosen.sort(key=lambda m: m.start)
    return chosen


def related_terms(
    groups: Sequence[ConceptGroup], terms: _MatchIndex, match: TermMatch
) -> Iterable[tuple[str, float, str, str]]:
    """(term, weight, relation, group name) for every word the map links to ``match``."""
    for gi, ii in terms.memberships.get(match.key, ()):
        group = groups[gi]
        if ii == NAMES_THE_CONCEPT:
            for term in group.terms:
                yield term, *_same_level(match.text, term), group.name
            for aliases in group.instances:
                for alias in aliases:
                    yield alias, INSTANCE_WEIGHT, "instance", group.name
        else:
            for alias in group.instances[ii]:
                yield alias, *_same_level(match.text, alias), group.name
            for term in group.terms:
                yield term, HYPERNYM_WEIGHT, "hypernym", group.name


def neighbour_sources(text: str, matches: Sequence[TermMatch]) -> list[str]:
    """What to ask ``neighbour_fn`` about: the concept terms found, then the words
    between them (Latin words and CJK runs of two or more characters)."""
    sources = [m.text for m in matches]
    previous_end = 0
    for gap_end, next_start in [(m.start, m.end) for m in matches] + [(len(text), len(text))]:
        gap = text[previous_end:gap_end]
        sources.extend(word for word in _WORD_RE.findall(gap) if len(word) > 1)
        previous_end = next_start
    return list(dict.fromkeys(sources))


# --- the expander ------------------------------------------------------------

class ConceptExpander:
    """Finds concept terms in free text and proposes weighted related terms."""

    def __init__(
        self,
        groups: Iterable[ConceptGroup | Mapping[str, Any]],
        neighbour_fn: NeighbourFn | None = None,
    ):
        # Kept as the very same tuple when possible: the match index is cached by it.
        self.groups: tuple[ConceptGroup, ...]
        if isinstance(groups, tuple) and all(isinstance(g, ConceptGroup) for g in groups):
            self.groups = cast("tuple[ConceptGroup, ...]", groups)  # checked just above
        else:
            self.groups = tuple(_coerce_group(g, i) for i, g in enumerate(groups))
        self.neighbour_fn = neighbour_fn
        self._index = _build_index(self.groups)

    @classmethod
    def load(
        cls, user_file: str | Path | None = None, *, neighbour_fn: NeighbourFn | None = None
    ) -> "ConceptExpander":
        """The built-in map, with ``user_file`` (if given) merged over it."""
        groups: Sequence[ConceptGroup] = builtin_groups()
        if user_file:
            entries = load_user_entries(user_file)
            try:
                groups = tuple(merge_groups(groups, entries))
            except ValueError as exc:
                raise ConfigError(f"{Path(user_file).expanduser()}: {exc}") from None
        return cls(groups, neighbour_fn=neighbour_fn)

    def find_terms(self, text: str) -> list[TermMatch]:
        return find_terms(self._index, text)

    def _neighbours(self, text: str, matches: Sequence[TermMatch]) -> Iterable[tuple[str, float, str]]:
        """(term, weight, source) proposed by ``neighbour_fn``."""
        if self.neighbour_fn is None:
            return
        for source in neighbour_sources(text, matches):
            try:
                neighbours = list(self.neighbour_fn(source))
            except PalaceError:
                # e.g. EmbedderUnavailableError: concept expansion still works without it.
                continue
            for term, similarity in neighbours:
                weight = NEIGHBOUR_MAX_WEIGHT * min(float(similarity), 1.0)
                if weight >= MIN_NEIGHBOUR_WEIGHT and isinstance(term, str) and term.strip():
                    yield " ".join(term.split()), weight, source

    def expand(self, text: str, *, max_terms: int = 24) -> list[Expansion]:
        """Related terms for ``text``: best first, no duplicates, none already in it."""
        if max_terms <= 0 or not text or not text.strip():
            return []
        folded_text = _fold(text)
        matches = self.find_terms(text)
        best: dict[str, tuple[tuple[float, int, int], Expansion]] = {}
        turn_of_source: dict[str, int] = {}

        def offer(term: str, weight: float, relation: str, group: str, source: str, pos: int) -> None:
            key = term_key(term)
            if key in best and best[key][1].weight >= weight:
                return
            if _occurrences(folded_text, key):
                return  # the user already said it
            turn = turn_of_source.get(source, 0)
            turn_of_source[source] = turn + 1
            rank = (-weight, turn, pos)
            best[key] = (rank, Expansion(term, weight, source, relation, group))

        for match in matches:
            for term, weight, relation, group in related_terms(self.groups, self._index, match):
                offer(term, weight, relation, group, match.text, match.start)
        for term, weight, source in self._neighbours(text, matches):
            offer(term, weight, "neighbour", "", source, len(text))
        ranked = sorted(best.values(), key=lambda item: item[0])
        return [expansion for _, expansion in ranked[:max_terms]]


def _file_key(path: Path) -> tuple[str, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return str(path), stat.st_mtime_ns, stat.st_size


def load_cached(cache: Path | None, user_file: str | None) -> ConceptExpander:
    """The concept expander, from a pickle beside the index when the maps it was built
    from (and this module) are unchanged: parsing 546 YAML groups and building the
    matcher costs a one-shot CLI search ~0.1-0.2 s, unpickling ~5 ms. Any problem:
    build it afresh. ``cache`` None: no cache (a palace with no local folder)."""
    import pickle

    from palace.store.atomic import atomic_write

    if cache is None:
        return ConceptExpander.load(user_file)
    builtin = Path(str(resources.files("palace").joinpath(BUILTIN_MAP)))
    key = (_file_key(Path(__file__)), _file_key(builtin),
           _file_key(Path(user_file).expanduser()) if user_file else None)
    try:
        with open(cache, "rb") as handle:
            saved_key, expander = pickle.load(handle)
        if saved_key == key and isinstance(expander, ConceptExpander):
            return expander
    except Exception:  # missing, stale format, corrupt: rebuild below
        pass
    expander = ConceptExpander.load(user_file)
    try:
        atomic_write(cache, pickle.dumps((key, expander), protocol=pickle.HIGHEST_PROTOCOL))
    except OSError:
        pass  # a read-only palace still searches, just without the cache
    return expander
