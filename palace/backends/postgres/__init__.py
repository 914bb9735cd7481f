"""The PostgreSQL backend (MEMORY_BACKEND=postgres): the database is the store of record."""

from palace.backends.postgres.database import PgIndex, PgStore, PostgresPalace
from palace.backends.postgres.locks import PgWriteLock
from palace.backends.postgres.sync import PgSyncer

__all__ = ["PgIndex", "PgStore", "PgSyncer", "PgWriteLock", "PostgresPalace"]
