"""The PostgreSQL backend (MEMORY_BACKEND=postgres): the database is the store of record."""

from palace.backends.postgres.database import PgIndex, PgStore, PgWriteLock, PostgresPalace
from palace.backends.postgres.sync import PgSyncer

__all__ = ["PgIndex", "PgStore", "PgSyncer", "PgWriteLock", "PostgresPalace"]
