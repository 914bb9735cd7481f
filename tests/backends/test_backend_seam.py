"""The seam for a second backend (palace/index/backend.py) is the real one: the local
classes provide every listed method, and the manager and search use no other."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import palace
from palace.backends.capture_state import CaptureState, FileCaptureState, FileSpool, SpoolVisit
from palace.backends.postgres import PgIndex, PgStore
from palace.backends.postgres.capture import PgCaptureState, PgSpool
from palace.backends.postgres.graph import PgDecisionLog, PgReviewQueue
from palace.graph.decisions import DecisionLog
from palace.graph.review import ReviewQueue
from palace.index import Index
from palace.index.backend import MemoryIndex, MemoryStore
from palace.store.files import FileStorage

PACKAGE = Path(palace.__file__).parent


# what the entity graph needs of an index, present only where supports_graph is true
GRAPH_METHODS = {"equivalent_keys", "relations_touching", "entity_mentions", "entity_summary",
                 "known_entity_keys", "passing"}  # passing: the graph retriever filters its hits


def members(protocol: type) -> set[str]:
    return {name for name in vars(protocol) if not name.startswith("_")} | set(
        getattr(protocol, "__annotations__", {}))


@pytest.mark.parametrize("protocol, concrete", [(MemoryIndex, Index), (MemoryStore, FileStorage),
                                                (MemoryIndex, PgIndex), (MemoryStore, PgStore)])
def test_both_backends_provide_every_listed_method(protocol, concrete):
    for name in members(protocol):
        if name in getattr(protocol, "__annotations__", {}):
            assert hasattr(concrete, name) or name == "root", f"{concrete.__name__} lacks {name}"
            continue  # an attribute (root is set in __init__)
        if name in GRAPH_METHODS and not concrete.supports_graph:
            continue  # a backend without graph tables says so (supports_graph) instead
        wanted = list(inspect.signature(getattr(protocol, name)).parameters)
        have = list(inspect.signature(getattr(concrete, name)).parameters)
        assert have[:len(wanted)] == wanted, f"{concrete.__name__}.{name}{have} vs the seam's {wanted}"


def used_attributes(source: Path, owner: str) -> set[str]:
    """Names X in ``<anything>.<owner>.X`` (e.g. self.index.row_by_id), or ``<owner>.X``
    where a function was handed it (``index.row_by_id``)."""
    found = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and (
                (isinstance(node.value, ast.Attribute) and node.value.attr == owner)
                or (isinstance(node.value, ast.Name) and node.value.id == owner)):
            found.add(node.attr)
    return found


MANAGER = sorted((PACKAGE / "manager").glob("*.py"))  # the manager and the parts it delegates to


def test_manager_and_search_use_only_the_seam():
    used = set().union(*(used_attributes(module, "index") for module in MANAGER))
    for module in sorted((PACKAGE / "search").glob("*.py")):
        used |= used_attributes(module, "index")
    assert {"postings", "best_keyword", "rows_by_rid"} <= used  # the search package reads through it
    assert used <= members(MemoryIndex), sorted(used - members(MemoryIndex))
    stored = set().union(*(used_attributes(module, "storage") for module in MANAGER))
    assert stored <= members(MemoryStore), sorted(stored - members(MemoryStore))


@pytest.mark.parametrize("protocol, concrete", [(CaptureState, FileCaptureState), (CaptureState, PgCaptureState),
                                                (SpoolVisit, FileSpool), (SpoolVisit, PgSpool)])
def test_both_capture_states_provide_the_seam(protocol, concrete):
    for name in members(protocol):
        wanted = list(inspect.signature(getattr(protocol, name)).parameters)
        have = list(inspect.signature(getattr(concrete, name)).parameters)
        assert have == wanted, f"{concrete.__name__}.{name}{have} vs the seam's {wanted}"


@pytest.mark.parametrize("local, shared", [(ReviewQueue, PgReviewQueue), (DecisionLog, PgDecisionLog)])
def test_the_graphs_records_have_the_same_methods_on_both_backends(local, shared):
    """The review queue and the decision log: files locally, tables on Postgres."""
    for name in {n for n in vars(local) if not n.startswith("_")}:
        assert hasattr(shared, name), f"{shared.__name__} lacks {name}"
        wanted = list(inspect.signature(getattr(local, name)).parameters)
        have = list(inspect.signature(getattr(shared, name)).parameters)
        assert have == wanted, f"{shared.__name__}.{name}{have} vs {local.__name__}'s {wanted}"


BACKEND_NAMES = {"local", "postgres"}
# where the setting is read before any backend is opened (whether a workspace must
# exist, how to print MEMORY_DATABASE_URL, which settings go together): Settings, not behaviour
SETTING_READS = {"settings.backend", "config.backend", "Settings.from_env().backend"}


def backend_name_tests(source: Path) -> list[str]:
    """``<x>.backend == "postgres"``-style tests of an opened backend's name in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        if any(isinstance(s, ast.Constant) and s.value in BACKEND_NAMES for s in sides):
            for side in sides:
                if isinstance(side, ast.Attribute) and side.attr in ("backend", "name") \
                        and ast.unparse(side) not in SETTING_READS \
                        and not ast.unparse(side).endswith(".settings.backend"):
                    found.append(f"{source.relative_to(PACKAGE.parent)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_code_outside_the_backend_classes_tests_which_backend_it_runs_on():
    """What differs by backend is a method of palace.backends' classes (vectors, review
    queue, capture state, keeps_files...), so a third backend changes no caller."""
    backends = PACKAGE / "backends"
    found = [hit for top in (PACKAGE, PACKAGE.parent / "vector_service")
             for source in sorted(top.rglob("*.py")) if backends not in source.parents
             for hit in backend_name_tests(source)]
    assert not found, "\n".join(found)


def test_the_local_backend_never_imports_the_postgres_one(tmp_path):
    """A local palace opens, stores and searches without psycopg or the Postgres modules."""
    import subprocess
    import sys

    script = ("import sys; from palace import MemoryPalaceManager\n"
              f"pm = MemoryPalaceManager({str(tmp_path)!r}, embedder=None)\n"
              "pm.store('the heron nests by the lake'); assert pm.search('heron')\n"
              "pm.capture_state(pm.root / '.capture'); pm.graph\n"
              "print(sorted(m for m in sys.modules if 'psycopg' in m or 'backends.postgres' in m))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
