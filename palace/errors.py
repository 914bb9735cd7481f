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


class EntityNotFoundError(PalaceError, LookupError):
    """No memory names this entity (nor an alias of it), so there is nothing to act on."""

    def __init__(self, name: str, hint: str = "`palace entity list` shows the entities"):
        self.name = name
        super().__init__(f"no entity {name!r}: no memory names it; {hint}")


class ReviewItemNotFoundError(PalaceError, LookupError):
    """No open review item has this id (a typo, or it was accepted or rejected already)."""

    def __init__(self, item_id: str):
        self.item_id = item_id
        super().__init__(f"no open review item {item_id!r}; `palace review list` shows the open ones "
                         "(an item accepted or rejected is closed)")


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


class StorageError(PalaceError):
    """The disk refused palace a read or write it needed (the base of the two below, and
    itself for an I/O error that is neither). ``path`` names where, when known.
    Nothing already stored is lost: files are replaced whole, the index in transactions."""

    def __init__(self, message: str, *, path: object = None):
        self.path = path
        super().__init__(message)


class DiskFullError(StorageError):
    """The file system holding the palace is full (or a quota or file-size limit is hit)."""


class ReadOnlyPalaceError(StorageError):
    """The palace's folder or index cannot be written: a read-only mount, file modes,
    or immutable files (``chattr +i``). Reads still work."""


# errno names -> the error they mean; anything else is not the disk's doing
_FULL_ERRNOS = frozenset({"ENOSPC", "EDQUOT", "EFBIG"})
_READ_ONLY_ERRNOS = frozenset({"EROFS", "EACCES", "EPERM"})
# SQLite's primary result codes (``sqlite_errorcode & 0xff``)
_SQLITE_FULL, _SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_PERM = 13, 8, 10, 3


def _storage_kind(exc: BaseException) -> str | None:
    """"full", "read-only", "io" or None (not a storage fault) for a raw exception."""
    import errno
    import sqlite3

    if isinstance(exc, OSError) and not isinstance(exc, (FileNotFoundError, IsADirectoryError,
                                                         NotADirectoryError)):
        name = errno.errorcode.get(exc.errno or 0, "")
        return "full" if name in _FULL_ERRNOS else "read-only" if name in _READ_ONLY_ERRNOS else None
    if isinstance(exc, sqlite3.OperationalError):
        code = getattr(exc, "sqlite_errorcode", None)
        text = str(exc).lower()
        if code is not None:
            primary = code & 0xFF
            return {_SQLITE_FULL: "full", _SQLITE_READONLY: "read-only", _SQLITE_PERM: "read-only",
                    _SQLITE_IOERR: "io"}.get(primary)
        if "disk is full" in text:
            return "full"
        if "readonly database" in text or "read-only" in text:
            return "read-only"
        if "disk i/o error" in text:
            return "io"
    return None


def storage_error(exc: BaseException, *, doing: str, where: object) -> StorageError | None:
    """The palace error a raw ``OSError`` or ``sqlite3.OperationalError`` from the disk
    stands for (``doing``: what failed, e.g. ``"store()"``; ``where``: the palace), or
    None when ``exc`` is no storage fault. The one place that reads errno and SQLite
    codes, used by the manager and by every adapter (CLI, MCP, sidecar)."""
    kind = _storage_kind(exc)
    if kind is None:
        return None
    path = getattr(exc, "filename", None) or where
    cause = getattr(exc, "strerror", None) or str(exc)
    if kind == "full":
        return DiskFullError(
            f"{doing} failed: the disk holding {where} is full ({cause}); free some space (`df -h` "
            "shows it) or move the workspace, then retry. Nothing already stored was lost", path=path)
    if kind == "read-only":
        return ReadOnlyPalaceError(
            f"{doing} failed: the palace is read-only here ({cause}: {path}); make it writable "
            "(file modes, `chattr -i`, a read-write mount) and retry. Reads still work", path=path)
    return StorageError(
        f"{doing} failed: the disk reported an I/O error at {path} ({cause}); check free space "
        "(`df -h`) and the disk, then retry. Nothing already stored was lost", path=path)
