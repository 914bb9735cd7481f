"""One exception hierarchy for palace.

Every error palace raises on purpose is a ``PalaceError``; its message says what
went wrong *and* how to fix it, because the reader is often an agent that will act
on the text.
"""

from __future__ import annotations


class PalaceError(Exception):
    """Base class of every error palace raises on purpose."""


class InvalidInputError(PalaceError, ValueError):
    """An argument (id, location, content, tag, time range…) is not acceptable."""


class MemoryNotFoundError(PalaceError, KeyError):
    """No memory with this id exists (active or archived). ``in_trash`` says it is in
    the trash, and the message then names the command that brings it back."""

    def __init__(self, memory_id: str, hint: str = "", *, in_trash: bool = False):
        self.memory_id = memory_id
        self.in_trash = in_trash
        if in_trash and not hint:
            hint = f"it is in the trash: `palace restore {memory_id}`"
        message = f"no memory with id {memory_id!r}"
        if hint:
            message += f"; {hint}"
        super().__init__(message)

    def __str__(self) -> str:  # KeyError would quote the message otherwise
        return str(self.args[0])


class MemoryFileError(PalaceError):
    """A Markdown memory file cannot be parsed. Carries the path and the reason."""

    def __init__(self, path, reason: str):
        self.path = path
        self.reason = reason
        super().__init__(
            f"{path}: {reason} (fix the file by hand, or move it out of the palace; "
            "`palace reindex` reports every unreadable file)"
        )


class ConfigError(PalaceError):
    """A MEMORY_* setting or a config file has a value palace cannot use."""


class IndexVersionError(PalaceError):
    """The index was built by a newer palace; this one will not overwrite it."""


class EmbedderUnavailableError(PalaceError):
    """Vectors were asked for but no embedder can produce them right now. ``brief``: what
    a search result's note says when the full message was already said once (a model
    that cannot load: the reason is logged when it fails, not repeated on every search)."""

    def __init__(self, message: str, *, brief: str | None = None):
        super().__init__(message)
        self.brief = brief or message


class EssenceTooLargeError(InvalidInputError):
    """The pinned essence memory exceeds its size cap."""
