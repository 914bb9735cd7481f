"""The import graph keeps palace's layers: no circles, no arrow running back up.

Every module under palace/ and vector_service/ is parsed with ``ast`` (nothing is
imported), and every import is counted: top-level, lazy ones inside functions, those
under ``if TYPE_CHECKING:``, and ``__import__("…")`` / ``importlib.import_module("…")``
with a literal name. A module may import its own layer or lower ones, never a higher one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# The wings of the house, lowest first: module prefix -> layer. A prefix covers the module
# and its submodules ("palace.index" covers palace.index.postings); the longest matching
# prefix wins. Every prefix must name a module that exists (test_every_wing_exists).
LAYERS: dict[str, int] = {
    # 0 foundation: plain data, settings, input rules and text that know nothing of a palace
    "palace.errors": 0, "palace.models": 0, "palace.validation": 0, "palace.settings": 0,
    "palace.limits": 0, "palace.network": 0,
    "palace.text": 0,  # the only place that segments, tags and stems; the word lists
    # 1 the store of record and what is derived from it
    "palace.store.layout": 0,  # where a palace lives in its workspace: two names (the hooks' client reads them)
    "palace.store.atomic": 0,  # writing any file whole (temp, fsync, rename): palace install and the hooks' service too
    "palace.store": 1,  # Markdown files, frontmatter, atomic writes, locks, the journal
    "palace.index": 1,  # the rebuildable SQLite index: postings, vectors, graph tables
    "palace.backends": 1,  # the backend choice; the Postgres store and index beside the local one
    # 2 the engines search and the manager use: pure rules over what is stored
    "palace.time_reasoning": 2, "palace.decay": 2, "palace.embedders": 2, "palace.graph": 2,
    # 3 search: the pipeline over explicit collaborators
    "palace.search": 3,
    # 3 also: recovery on open and the doctor's checks; they take the files, the index, the
    # lock from the manager, never the manager (test_no_module_below_the_manager_is_handed_it)
    "palace.maintenance": 3,
    # 4 the manager: the one orchestrator (wiring and the public API, palace.manager) and the
    # pieces it delegates to (writer: the write path and its locks; reader; embedding: vectors
    # at write time; entity_graph; upkeep: opening, reindex, doctor, export), and the package's
    # public face over it
    "palace.manager": 4, "palace": 4,
    # 5 features over the manager's public API, and the JSON shapes adapters share
    "palace.features": 5,  # context, summary, tasks, persona, experiences, the local Postgres
    "palace.capture": 5, "palace.responses": 5,
    # 6 adapters: how people and programs reach palace
    "palace.cli": 6, "palace.__main__": 6, "palace.integrations": 6,
    "palace.mcp": 6, "palace.viewer": 6, "vector_service": 6,
}
ADAPTERS = 6
# What adapters must reach through the manager instead of importing directly.
STORAGE_AND_INDEX = 1

# Upward arrows allowed on purpose, each with its reason. Keep this list short.
ALLOWED_UPWARD: set[tuple[str, str]] = {
    # pm.experiences (the public API, README.md) builds the experience feature lazily; the
    # feature types the manager by a protocol of its public methods, so no circle
    ("palace.manager", "palace.features.experiences"),
}


# --------------------------------------------------------------------------- the graph

def _module_files() -> dict[str, Path]:
    modules = {}
    for top in ("palace", "vector_service"):
        for path in sorted((REPO / top).rglob("*.py")):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


MODULES = _module_files()


def _is_package(module: str) -> bool:
    return MODULES.get(module, Path()).name == "__init__.py"


def _resolve(importer: str, level: int, target: str | None) -> str:
    """The absolute name of ``from <level dots><target> import …`` inside ``importer``."""
    if level == 0:
        return target or ""
    base = importer.split(".")
    if not _is_package(importer):
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _imports(module: str, path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, node.level, node.module)
            for alias in node.names:
                # "from . import tables" imports the submodule palace.time_reasoning.tables
                # (not the package around it); "from .x import name" imports palace.x
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in MODULES else base)
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and ((isinstance(node.func, ast.Name) and node.func.id == "__import__")
                   or (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module"))):
            found.add(node.args[0].value)
    return {name for name in found if name in MODULES and name != module}


GRAPH: dict[str, set[str]] = {module: _imports(module, path) for module, path in MODULES.items()}
EDGES = {(a, b) for a, targets in GRAPH.items() for b in targets}


def layer_of(module: str) -> int | None:
    parts = module.split(".")
    for length in range(len(parts), 0, -1):
        prefix = ".".join(parts[:length])
        if prefix in LAYERS and (prefix != "palace" or module == "palace"):
            return LAYERS[prefix]
    return None


def _cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    graph: dict[str, list[str]] = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


# --------------------------------------------------------------------------- the rules

def test_every_module_has_a_layer():
    assert [m for m in MODULES if layer_of(m) is None] == []


def test_every_wing_exists():
    """A wing listed here that names no module is a stale map of the house."""
    assert sorted(prefix for prefix in LAYERS if prefix not in MODULES) == []


def test_the_parser_sees_every_kind_of_import(tmp_path):
    """Guards the test itself: lazy, TYPE_CHECKING, relative-submodule and __import__
    imports all count."""
    source = tmp_path / "fake.py"
    source.write_text(
        "import typing\n"
        "if typing.TYPE_CHECKING:\n"
        "    from palace.settings import Settings\n"
        "from . import models\n"
        "def later():\n"
        "    from .errors import ConfigError\n"
        "    __import__('palace.text.tokens')\n", encoding="utf-8")
    assert _imports("palace.fake", source) == {"palace.settings", "palace.models", "palace.errors",
                                               "palace.text.tokens"}
    assert "palace.time_reasoning.tables" in GRAPH["palace.time_reasoning.lexicon"]


def test_palace_modules_import_no_circle():
    palace_edges = {(a, b) for a, b in EDGES - ALLOWED_UPWARD
                    if a.startswith("palace") and b.startswith("palace")}
    assert _cycles(palace_edges) == []


def test_no_lower_layer_imports_a_higher_one():
    upward = sorted(f"{a} (layer {layer_of(a)}) imports {b} (layer {layer_of(b)})"
                    for a, b in EDGES - ALLOWED_UPWARD
                    if (layer_of(a) or 0) < (layer_of(b) or 0))
    assert upward == []


def test_adapters_go_through_the_manager():
    """The CLI, the MCP server, the sidecar (and the viewer) never open the index or the
    files themselves: what they need is a manager method."""
    reaching = sorted(f"{a} imports {b}" for a, b in EDGES - ALLOWED_UPWARD
                      if layer_of(a) == ADAPTERS and layer_of(b) == STORAGE_AND_INDEX)
    assert reaching == []


MANAGER = 4
MANAGER_NAMES = {"pm", "manager", "MemoryPalaceManager"}


def _takes_the_manager(path: Path) -> list[str]:
    """Functions whose parameters are named or annotated as the manager: an import check
    cannot see a module calling back up into an object it was handed."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                annotation = ast.unparse(arg.annotation) if arg.annotation else ""
                if arg.arg in MANAGER_NAMES or any(name in annotation for name in MANAGER_NAMES - {"pm"}):
                    found.append(f"{node.name}({arg.arg})")
    return found


def test_no_module_below_the_manager_is_handed_the_manager():
    """Doctor and recovery used to take the manager and call back into it (pm.sync,
    pm.write_lock, pm.index); modules below it get their collaborators instead."""
    handed = sorted(f"{module}: {name}" for module, path in MODULES.items()
                    if (layer_of(module) or 0) < MANAGER for name in _takes_the_manager(path))
    assert handed == []


# The one adapter that may start the sidecar's app: `palace sidecar` serves the same app
# as scripts/vector-service.py (an adapter starting an adapter, never the library).
SIDECAR_LAUNCHERS = {"palace.cli.servers"}


def test_palace_never_imports_the_sidecar():
    """vector_service depends on palace, never the reverse; only the CLI command that
    starts the sidecar imports its app."""
    assert sorted(f"{a} imports {b}" for a, b in EDGES
                  if a.startswith("palace") and b.startswith("vector_service")
                  and a not in SIDECAR_LAUNCHERS) == []


@pytest.mark.parametrize("edge", sorted(ALLOWED_UPWARD), ids=lambda e: f"{e[0]}->{e[1]}")
def test_each_allowed_upward_arrow_still_exists(edge):
    """An allowed arrow that no longer exists must leave the list with its reason."""
    assert edge in EDGES, f"{edge} is gone: delete it from ALLOWED_UPWARD"


# The Protocol of the manager's public API that features type it by; it alone names the
# manager's class, to have mypy check that the manager still offers what it lists.
PALACE_API = "palace.features.palace_api"


def test_features_type_the_manager_by_its_protocol():
    """Features and capture use the manager's public API only: they import the Protocol
    (palace.features.palace_api), never the manager's package."""
    reaching = sorted(f"{a} imports {b}" for a, b in EDGES
                      if a.startswith(("palace.features", "palace.capture")) and a != PALACE_API
                      and (b == "palace.manager" or b.startswith("palace.manager.")))
    assert reaching == []


# --------------------------------------------------------------------------- the house's size

MOST_TOP_MODULES = 12  # the ground floor: the foundation and the package's face; the rest are wings
MOST_FUNCTION_LINES = 80  # a function fits on a screen
MOST_MANAGER_LINES = 450  # the manager is wiring plus the public API


def test_the_ground_floor_holds_few_modules():
    top = sorted(p.name for p in (REPO / "palace").glob("*.py"))
    assert len(top) <= MOST_TOP_MODULES, top


def test_no_function_is_longer_than_a_screen():
    long = sorted(f"{module}.{node.name}: {node.end_lineno - node.lineno + 1} lines"
                  for module, path in MODULES.items()
                  for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.end_lineno - node.lineno + 1 > MOST_FUNCTION_LINES)
    assert long == []


def test_the_manager_is_wiring_and_the_public_api():
    lines = len((REPO / "palace" / "manager" / "__init__.py").read_text(encoding="utf-8").splitlines())
    assert lines <= MOST_MANAGER_LINES
