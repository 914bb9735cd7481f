"""palace: a local-first long-term memory for AI agents."""

from .errors import (
    ConfigError,
    EmbedderUnavailableError,
    InvalidInputError,
    MemoryFileError,
    MemoryNotFoundError,
    PalaceError,
)
from .settings import Settings

__version__ = "0.1.0"
