"""Walks over the relation graph: breadth first from named entities, each reached
entity remembering the path that reached it, written as people read it
("张伟 —负责→ 星图 ←参与— 用户")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence


@dataclass(frozen=True)
class Edge:
    subject: str      # keys
    predicate: str    # as written
    object: str
    memory_id: str


@dataclass(frozen=True)
class Step:
    edge: Edge
    forward: bool     # walked subject → object


def render(start: str, steps: Sequence[Step], names: dict[str, str]) -> str:
    text = names.get(start, start)
    for step in steps:
        edge = step.edge
        if step.forward:
            text += f" —{edge.predicate}→ {names.get(edge.object, edge.object)}"
        else:
            text += f" ←{edge.predicate}— {names.get(edge.subject, edge.subject)}"
    return text


def walk(starts: Iterable[str], edges_of: Callable[[set[str]], list[Edge]], depth: int
         ) -> tuple[dict[str, tuple[str, tuple[Step, ...]]], dict[str, tuple[str, tuple[Step, ...]]]]:
    """Entities and memories reached within ``depth`` hops: key → (start, steps) for
    each entity (shortest path first found), memory id → (start, steps) for the memory
    stating the last edge of a path."""
    reached: dict[str, tuple[str, tuple[Step, ...]]] = {key: (key, ()) for key in starts}
    stated: dict[str, tuple[str, tuple[Step, ...]]] = {}
    frontier = set(reached)
    for _ in range(depth):
        if not frontier:
            break
        nxt: set[str] = set()
        for edge in sorted(edges_of(frontier), key=lambda e: (e.subject, e.object, e.memory_id)):
            for here, there, forward in ((edge.subject, edge.object, True), (edge.object, edge.subject, False)):
                if here not in frontier:
                    continue
                start, steps = reached[here]
                path = (*steps, Step(edge, forward))
                if edge.memory_id not in stated:
                    stated[edge.memory_id] = (start, path)
                if there not in reached:
                    reached[there] = (start, path)
                    nxt.add(there)
        frontier = nxt
    return reached, stated
