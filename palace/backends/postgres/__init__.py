"""The PostgreSQL backend (MEMORY_BACKEND=postgres): the database is the store of record."""

from .database import PgIndex, PgStore, PgWriteLock, PostgresPalace
from .sync import PgSyncer

__all__ = ["PgIndex", "PgStore", "PgSyncer", "PgWriteLock", "PostgresPalace"]
