"""Hierarchical tags: ``project/palace/search`` sits under ``project/palace``."""

from __future__ import annotations

from typing import Any, Mapping


def tag_tree(counts: Mapping[str, int]) -> list[dict[str, Any]]:
    """Nodes ``{name, tag, count, total, children}``, sorted by name; ``count``: memories
    carrying exactly this tag, ``total``: with any tag at or below it (a memory with two
    tags under one node is counted twice there: the index counts tag rows)."""
    root: dict[str, Any] = {"children": {}}
    for tag, count in counts.items():
        node = root
        parts = [p for p in tag.split("/") if p]
        for depth, part in enumerate(parts):
            node = node["children"].setdefault(part, {"name": part, "tag": "/".join(parts[:depth + 1]),
                                                      "count": 0, "total": 0, "children": {}})
            node["total"] += count
        node["count"] += count

    def freeze(node: dict[str, Any]) -> list[dict[str, Any]]:
        return [dict(child, children=freeze(child)) for _, child in sorted(node["children"].items())]

    return freeze(root)


def render_tree(nodes: list[dict[str, Any]], indent: int = 0) -> list[str]:
    lines = []
    for node in nodes:
        own = f" ({node['count']} here)" if node["children"] and node["count"] else ""
        lines.append(f"{'  ' * indent}{node['name']}  {node['total']}{own}")
        lines.extend(render_tree(node["children"], indent + 1))
    return lines
