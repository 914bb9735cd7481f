"""Every limit palace enforces, in one place.

A limit protects the store from input that would break it (a file name longer
than the file system allows, a date the calendar cannot hold, a crafted file that
would take all memory) or from work without bound. Each one is checked at the
boundary (validation, the parser, the API layers) with an ``InvalidInputError`` or
a ``MemoryFileError`` that names it. ``describe()`` lists them for the docs and
``palace config``.
"""

from __future__ import annotations

from datetime import datetime, timezone

# --- what a caller may hand palace -------------------------------------------------

#: Largest memory content, bytes of UTF-8 (the default of MEMORY_MAX_CONTENT_BYTES).
DEFAULT_MAX_CONTENT_BYTES = 1024 * 1024
#: Longest search / context / bootstrap query, in characters.
MAX_QUERY_CHARS = 4000
#: Most results one search, list or experience query returns through MCP or HTTP.
MAX_RESULTS = 100
#: Most tags on one memory, and the longest tag in characters.
MAX_TAGS = 64
MAX_TAG_CHARS = 64
#: Most results the Python API's search returns (top_k).
MAX_API_TOP_K = 1000
#: Rooms may nest this deep ("a/b/c" is 3).
MAX_LOCATION_DEPTH = 8
#: One room name, in characters (readable paths) and in bytes of UTF-8: it becomes a folder name, and file systems allow
#: 255 bytes per name (70 emoji are 280).
MAX_ROOM_NAME_CHARS = 80
MAX_ROOM_NAME_BYTES = 200
#: Memory ids: 1-128 ASCII letters, digits, '.', '_' or '-'.
MAX_ID_CHARS = 128
#: Largest HTTP request body the sidecar reads.
MAX_REQUEST_BYTES = 2 * 1024 * 1024
#: Largest day count (``older_than_days``): about 10,000 years.
MAX_DAYS = 3_650_000

# --- time --------------------------------------------------------------------------

#: Times outside [EARLIEST_TIME, LATEST_TIME) are refused: every offset, decay
#: interval and "next year" computed from them must stay inside the calendar.
EARLIEST_TIME = datetime(1000, 1, 1, tzinfo=timezone.utc)
LATEST_TIME = datetime(9000, 1, 1, tzinfo=timezone.utc)

# --- files -------------------------------------------------------------------------

#: Largest memory file read on sync; a larger one is reported and skipped.
MAX_FILE_BYTES = 8 * 1024 * 1024
#: Largest frontmatter block, nesting depth and node count (aliases expanded): a
#: crafted file (an alias bomb, 100,000 nested lists) is reported, never parsed.
MAX_FRONTMATTER_BYTES = 256 * 1024
MAX_FRONTMATTER_DEPTH = 32
MAX_FRONTMATTER_NODES = 20_000

#: An access journal larger than this is compacted by ``palace doctor``.
MAX_JOURNAL_BYTES = 16 * 1024 * 1024

_MEANINGS = {
    "DEFAULT_MAX_CONTENT_BYTES": "largest memory content, bytes of UTF-8 (MEMORY_MAX_CONTENT_BYTES)",
    "MAX_QUERY_CHARS": "longest query for search, get_context and bootstrap, characters",
    "MAX_RESULTS": "most results per MCP / HTTP call (top_k, limit)",
    "MAX_API_TOP_K": "most results of one pm.search (top_k)",
    "MAX_TAGS": "most tags on one memory",
    "MAX_TAG_CHARS": "longest tag, characters",
    "MAX_LOCATION_DEPTH": "deepest room nesting",
    "MAX_ROOM_NAME_CHARS": "longest room name, characters",
    "MAX_ROOM_NAME_BYTES": "longest room name, bytes of UTF-8 (a folder name)",
    "MAX_ID_CHARS": "longest memory id, ASCII characters",
    "MAX_REQUEST_BYTES": "largest sidecar request body, bytes",
    "MAX_DAYS": "largest day count (older_than_days)",
    "EARLIEST_TIME": "earliest time accepted (now, created_at, frontmatter, journal)",
    "LATEST_TIME": "first time no longer accepted",
    "MAX_FILE_BYTES": "largest memory file indexed on sync, bytes",
    "MAX_FRONTMATTER_BYTES": "largest frontmatter block, bytes",
    "MAX_FRONTMATTER_DEPTH": "deepest nesting inside frontmatter",
    "MAX_FRONTMATTER_NODES": "most values in a frontmatter block, aliases expanded",
    "MAX_JOURNAL_BYTES": "access journal size over which `palace doctor` compacts it",
}


def describe() -> list[tuple[str, object, str]]:
    """(name, value, meaning) of every limit, in the order above."""
    values = globals()
    return [(name, values[name].isoformat() if isinstance(values[name], datetime) else values[name],
             meaning) for name, meaning in _MEANINGS.items()]
