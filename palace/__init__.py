"""palace: a local-first long-term memory for AI agents.

    from palace import MemoryPalaceManager
    pm = MemoryPalaceManager("~/agent-workspace")
    pm.store("决定用 PostgreSQL", tags=["数据库"], type="decision")
    pm.search("上周讨论的数据库选型")
"""

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
from .settings import Settings

__version__ = "0.1.0"

__all__ = [
    "MemoryPalaceManager", "Memory", "SearchResult", "SearchResults", "Explanation", "DecayReport", "Settings",
    "PalaceError", "InvalidInputError", "MemoryNotFoundError", "MemoryFileError", "ConfigError",
    "EmbedderUnavailableError", "EssenceTooLargeError", "IndexVersionError", "__version__",
]
