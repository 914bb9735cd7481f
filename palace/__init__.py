"""palace: a local-first long-term memory for AI agents.

    from palace import MemoryPalaceManager
    pm = MemoryPalaceManager("~/agent-workspace")
    pm.store("决定用 PostgreSQL", tags=["数据库"], type="decision")
    pm.search("上周讨论的数据库选型")
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _distribution_version

from .errors import (
    ConfigError,
    EmbedderUnavailableError,
    EssenceTooLargeError,
    IndexVersionError,
    InvalidInputError,
    MemoryFileError,
    MemoryNotFoundError,
    PalaceError,
)
from .manager import DecayReport, MemoryPalaceManager
from .models import Explanation, Memory, SearchResult, SearchResults
from .settings import SearchWeights, Settings

try:  # the installed distribution's version, so it is written in one place (pyproject.toml)
    __version__ = _distribution_version("palace-memory")
except PackageNotFoundError:  # imported from a checkout that was never pip-installed
    __version__ = "0+unknown"

__all__ = [
    "MemoryPalaceManager", "Memory", "SearchResult", "SearchResults", "Explanation", "DecayReport", "Settings", "SearchWeights",
    "PalaceError", "InvalidInputError", "MemoryNotFoundError", "MemoryFileError", "ConfigError",
    "EmbedderUnavailableError", "EssenceTooLargeError", "IndexVersionError", "__version__",
]
