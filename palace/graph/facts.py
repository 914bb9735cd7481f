"""Entities and relations as a memory's files state them.

Frontmatter (the truth; a person may edit it)::

    entities:
      - 张伟
      - {name: 星图, type: project, aliases: [Xingtu]}
    relations:
      - {subject: 用户, predicate: lives_in, object: 杭州, validFrom: 2025-03-01}
      - {subject: 用户, predicate: uses, object: ruff, for: linting}

and ``[[wiki links]]`` in the text (``[[星图]]``, ``[[星图|the project]]``), each a
mention of an entity. A relation's ``validFrom`` defaults to the memory's creation
time; ``validTo`` is set when a later fact supersedes it. Items palace extracted
itself carry ``extracted: true``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, tzinfo
from typing import Any, Iterable, Mapping, Sequence

from palace.errors import InvalidInputError
from palace.graph.normalise import entity_key
from palace.index.rows import AliasValues, EntityValues, GraphRows, RelationValues

WIKI_LINK = re.compile(r"\[\[([^\[\]|#]+)(?:#[^\[\]|]*)?(?:\|[^\[\]]*)?\]\]")


@dataclass(frozen=True)
class Entity:
    name: str
    type: str | None = None
    aliases: tuple[str, ...] = ()
    extracted: bool = False

    @property
    def key(self) -> str:
        return entity_key(self.name)

    def to_frontmatter(self) -> Any:
        if self.type is None and not self.aliases and not self.extracted:
            return self.name
        data: dict[str, Any] = {"name": self.name}
        if self.type:
            data["type"] = self.type
        if self.aliases:
            data["aliases"] = list(self.aliases)
        if self.extracted:
            data["extracted"] = True
        return data


@dataclass(frozen=True)
class Relation:
    subject: str
    predicate: str
    object: str
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    purpose: str | None = None          # "uses X for Y": Y
    extracted: bool = False
    memory_id: str | None = None        # the memory stating it (set when read from the index)
    ended: bool = False                 # the text says it no longer holds ("不再用 vim"): it retires its match
    change: bool = False                # stated as a change ("moved to", "switched to", "现在在…")

    @property
    def subject_key(self) -> str:
        return entity_key(self.subject)

    @property
    def object_key(self) -> str:
        return entity_key(self.object)

    @property
    def predicate_key(self) -> str:
        return predicate_key(self.predicate)

    def current(self, now: datetime) -> bool:
        return not self.ended and (self.valid_to is None or self.valid_to > now)

    def to_frontmatter(self) -> dict[str, Any]:
        data: dict[str, Any] = {"subject": self.subject, "predicate": self.predicate, "object": self.object}
        if self.purpose:
            data["for"] = self.purpose
        if self.valid_from is not None:
            data["validFrom"] = self.valid_from.isoformat()
        if self.valid_to is not None and not self.ended:   # an ended fact ends at its memory's time
            data["validTo"] = self.valid_to.isoformat()
        if self.ended:
            data["ended"] = True
        if self.change:
            data["change"] = True
        if self.extracted:
            data["extracted"] = True
        return data


def predicate_key(predicate: str) -> str:
    return re.sub(r"[\s\-]+", "_", str(predicate).strip().casefold())


def _when(value: Any, tz: tzinfo, what: str) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=tz)
    if isinstance(value, date):
        return datetime.combine(value, time(), tzinfo=tz)
    try:
        parsed = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInputError(f"{what} must be an ISO date or time, got {value!r}") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=tz)


def _text(value: Any, what: str) -> str:
    if not isinstance(value, (str, int, float)) or not str(value).strip():
        raise InvalidInputError(f"{what} must be a non-empty name, got {value!r}")
    return str(value).strip()


def parse_entity(item: Any) -> Entity:
    if isinstance(item, Mapping):
        aliases = item.get("aliases") or ()
        if isinstance(aliases, str):
            aliases = (aliases,)
        return Entity(_text(item.get("name"), "entities[].name"),
                      type=str(item["type"]).strip() if item.get("type") else None,
                      aliases=tuple(_text(a, "entities[].aliases[]") for a in aliases),
                      extracted=bool(item.get("extracted", False)))
    return Entity(_text(item, "an entity"))


def parse_relation(item: Any, *, default_from: datetime | None, tz: tzinfo) -> Relation:
    if not isinstance(item, Mapping):
        raise InvalidInputError(f"a relation must be a mapping with subject, predicate and object, got {item!r}")
    ended = bool(item.get("ended", False))
    return Relation(
        subject=_text(item.get("subject"), "relations[].subject"),
        predicate=_text(item.get("predicate"), "relations[].predicate"),
        object=_text(item.get("object"), "relations[].object"),
        # an ended fact says when it stopped (the memory's time), not when it began
        valid_from=_when(item.get("validFrom"), tz, "validFrom") or (None if ended else default_from),
        # … and it stopped holding by the memory's time
        valid_to=_when(item.get("validTo"), tz, "validTo") or (default_from if ended else None),
        purpose=str(item["for"]).strip() if item.get("for") else None,
        extracted=bool(item.get("extracted", False)), ended=ended, change=bool(item.get("change", False)))


def _items(value: Any, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidInputError(f"frontmatter {what!r} must be a list, got {type(value).__name__}")
    return value


def read_facts(extra: Mapping[str, Any], content: str, *, created_at: datetime | None, tz: tzinfo,
               strict: bool = True) -> tuple[list[Entity], list[Relation]]:
    """A memory's entities (frontmatter, then wiki links) and relations. ``strict``:
    a malformed item is an error (on store); otherwise it is skipped (a hand-edited file
    must still be indexed; ``palace doctor``-style checks report it)."""
    entities: list[Entity] = []
    relations: list[Relation] = []
    for item in _items(extra.get("entities"), "entities"):
        try:
            entities.append(parse_entity(item))
        except InvalidInputError:
            if strict:
                raise
    for item in _items(extra.get("relations"), "relations"):
        try:
            relations.append(parse_relation(item, default_from=created_at, tz=tz))
        except InvalidInputError:
            if strict:
                raise
    entities.extend(Entity(match.group(1).strip()) for match in WIKI_LINK.finditer(content)
                    if match.group(1).strip())
    return entities, relations


def graph_rows(extra: Mapping[str, Any], content: str, *, created_at: datetime | None,
               tz: tzinfo) -> GraphRows:
    """What the index stores for one memory: every entity it mentions (relation ends
    included), the aliases it declares, and its relations (their columns:
    ``palace.index.rows.GraphRows``)."""
    if extra.get("entities") is None and extra.get("relations") is None and "[[" not in content:
        return [], [], []  # most memories: nothing to read (a rebuild asks for every one)
    return rows_of(*read_facts(extra, content, created_at=created_at, tz=tz, strict=False))


def rows_of(entities: Sequence[Entity], relations: Sequence[Relation]) -> GraphRows:
    """``graph_rows`` of facts already read (a store reads its memory's facts once)."""
    named: dict[str, EntityValues] = {}
    aliases: set[AliasValues] = set()
    for entity in entities:
        key = entity.key
        if key and (key not in named or named[key][2] is None):
            named[key] = (key, entity.name, entity.type)
        aliases.update((entity_key(alias), key) for alias in entity.aliases
                       if entity_key(alias) and entity_key(alias) != key)
    rows: list[RelationValues] = []
    for rel in relations:
        for name in (rel.subject, rel.object):
            named.setdefault(entity_key(name), (entity_key(name), name, None))
        valid_to = rel.valid_to
        rows.append((rel.subject_key, rel.predicate_key, rel.object_key, rel.predicate,
                     rel.valid_from.timestamp() if rel.valid_from else None,
                     valid_to.timestamp() if valid_to else None,
                     rel.purpose, int(rel.extracted), rel.subject, rel.object))
    return list(named.values()), sorted(aliases), rows


def relations_to_frontmatter(relations: Iterable[Relation]) -> list[dict[str, Any]]:
    return [rel.to_frontmatter() for rel in relations]
