"""The seam for a second backend (palace/index/backend.py) is the real one: the local
classes provide every listed method, and the manager and search use no other."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import palace
from palace.index import Index
from palace.index.backend import MemoryIndex, MemoryStore
from palace.storage import FileStorage

PACKAGE = Path(palace.__file__).parent


def members(protocol: type) -> set[str]:
    return {name for name in vars(protocol) if not name.startswith("_")} | set(
        getattr(protocol, "__annotations__", {}))


@pytest.mark.parametrize("protocol, concrete", [(MemoryIndex, Index), (MemoryStore, FileStorage)])
def test_the_local_backend_provides_every_listed_method(protocol, concrete):
    for name in members(protocol):
        if name in getattr(protocol, "__annotations__", {}):
            continue  # an attribute set in __init__
        wanted = list(inspect.signature(getattr(protocol, name)).parameters)
        have = list(inspect.signature(getattr(concrete, name)).parameters)
        assert have[:len(wanted)] == wanted, f"{concrete.__name__}.{name}{have} vs the seam's {wanted}"


def used_attributes(source: Path, owner: str) -> set[str]:
    """Names X in ``<anything>.<owner>.X`` (e.g. self.index.row_by_id)."""
    found = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                and node.value.attr == owner):
            found.add(node.attr)
    return found


def test_manager_and_search_use_only_the_seam():
    used = used_attributes(PACKAGE / "manager.py", "index") | used_attributes(PACKAGE / "search.py", "index")
    assert used <= members(MemoryIndex), sorted(used - members(MemoryIndex))
    stored = used_attributes(PACKAGE / "manager.py", "storage")
    assert stored <= members(MemoryStore), sorted(stored - members(MemoryStore))
