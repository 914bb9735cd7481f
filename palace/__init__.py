"""palace: a local-first long-term memory for AI agents.

    from palace import MemoryPalaceManager
    pm = MemoryPalaceManager("~/agent-workspace")
    pm.store("决定用 PostgreSQL", tags=["数据库"], type="decision")
    pm.search("上周讨论的数据库选型")

The public names are loaded on first use (PEP 562): ``import palace`` alone, which
every ``python -m palace.…`` command pays for, costs nothing, so a Claude Code hook
that only talks to its warm service (palace.integrations.hook_client) never loads
the manager.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and readers see; at run time __getattr__ loads them
    from palace.errors import (ConfigError, DiskFullError, EmbedderUnavailableError, EssenceTooLargeError,
                         IndexVersionError, InvalidInputError, MemoryFileError, MemoryNotFoundError, PalaceError,
                         ReadOnlyPalaceError, StorageError)
    from palace.manager import DecayReport, MemoryPalaceManager
    from palace.models import Explanation, Memory, SearchResult, SearchResults
    from palace.settings import SearchWeights, Settings

    __version__: str

# public name -> the module that defines it
_PUBLIC = {
    "MemoryPalaceManager": "manager", "DecayReport": "manager",
    "Memory": "models", "SearchResult": "models", "SearchResults": "models", "Explanation": "models",
    "Settings": "settings", "SearchWeights": "settings",
    **{name: "errors" for name in ("PalaceError", "InvalidInputError", "MemoryNotFoundError",
                                   "MemoryFileError", "ConfigError", "EmbedderUnavailableError",
                                   "EssenceTooLargeError", "IndexVersionError", "StorageError",
                                   "DiskFullError", "ReadOnlyPalaceError")},
}

__all__ = [
    "MemoryPalaceManager", "Memory", "SearchResult", "SearchResults", "Explanation", "DecayReport", "Settings", "SearchWeights",
    "PalaceError", "InvalidInputError", "MemoryNotFoundError", "MemoryFileError", "ConfigError",
    "EmbedderUnavailableError", "EssenceTooLargeError", "IndexVersionError", "StorageError", "DiskFullError",
    "ReadOnlyPalaceError", "__version__",
]


def _installed_version() -> str:
    """The installed distribution's version, so it is written in one place (pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("palace-memory")
    except PackageNotFoundError:  # imported from a checkout that was never pip-installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = _installed_version()
    elif name in _PUBLIC:
        value = getattr(import_module(f".{_PUBLIC[name]}", __name__), name)
    else:
        raise AttributeError(f"module 'palace' has no attribute {name!r}")
    globals()[name] = value  # once loaded, a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
