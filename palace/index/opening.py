"""Opening the SQLite index safely: created owner-only, a corrupt file moved aside and
rebuilt (the index is derived), a read-only folder opened read-only."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from palace.errors import ConfigError, PalaceError
from palace.store.atomic import make_private_dirs
from palace.index.database import SCHEMA_VERSION, Index


def open_index(path: Path, notes: list[str], *, derive_graph: Any = None) -> Index:
    """The index at ``path``: created owner-only; a corrupt one moved aside and rebuilt
    (it is derived from the files); on a read-only folder, opened read-only."""
    folder = path.parent
    if folder.exists() and not folder.is_dir():
        raise ConfigError(
            f"{folder} is a file, but palace keeps its index in that folder: move the file "
            "away (the index is derived from the memories and is rebuilt on the next open)")
    try:
        make_private_dirs(folder)
        if not path.exists():
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))  # sqlite keeps the mode
    except OSError:
        pass  # a read-only folder: found out below
    try:
        index = Index(path, derive_graph=derive_graph)
    except sqlite3.OperationalError as exc:
        if path.exists():
            try:
                index = Index(path, read_only=True, derive_graph=derive_graph)
            except sqlite3.DatabaseError:
                pass
            else:
                notes.append(f"the index cannot be written ({exc}): opened read-only")
                return index
        raise PalaceError(f"cannot open the index {path}: {exc}; check that the folder is "
                          "writable and the disk not full") from None
    except sqlite3.DatabaseError as exc:
        aside = path.with_name(path.name + ".corrupt")
        try:
            os.replace(path, aside)
            for suffix in ("-wal", "-shm"):
                path.with_name(path.name + suffix).unlink(missing_ok=True)
        except OSError as move_error:
            raise PalaceError(
                f"the index {path} is damaged ({exc}) and cannot be replaced ({move_error}); "
                "delete it: it is rebuilt from the memory files, nothing is lost") from None
        notes.append(f"the index was damaged ({exc}): moved to {aside.name} and rebuilt from the files")
        return open_index(path, notes)
    if index.rebuilt_schema and index.upgraded_from is not None:
        # the first command after an upgrade reads every file again (and may re-embed):
        # without a word it just looks slow
        old = f"schema {index.upgraded_from}" if index.upgraded_from else "an unversioned schema"
        notes.append(f"the index was written by an older palace ({old}): rebuilt from the memory "
                     f"files for schema {SCHEMA_VERSION}; nothing is lost, and embeddings are kept "
                     "unless their rule changed")
    return index
