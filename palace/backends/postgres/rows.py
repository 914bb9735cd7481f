"""A memory as its ``memories`` row (shared by single writes and bulk import), and row ids as a query parameter."""

from __future__ import annotations

import json
from typing import Any, Iterable

from palace.index.postings import memory_terms
from palace.models import Memory, embed_key
from palace.store.files import render_memory
from palace.text.tokenize import duplicate_key


def row_ids(rids: Iterable[int]) -> str:
    """Row ids as one array literal, for ``= ANY(%s::bigint[])``: psycopg adapts a list
    element by element (2,000 ids: 8.0 ms a check; as one string, 5.8 ms)."""
    return "{" + ",".join(map(str, map(int, rids))) + "}"


def scope_of(memory: Memory) -> str:
    """A memory's scope: its ``scope`` frontmatter key; none means the whole team."""
    return str(memory.extra.get("scope") or "team")


def memory_row(memory: Memory, path: str) -> dict[str, Any]:
    """A memory's ``memories`` row: its Markdown as the local backend would write it,
    and the indexed columns (``terms``: the stemmed keyword terms, space-joined)."""
    raw = render_memory(memory)
    terms = memory_terms(memory.content, memory.summary, memory.tags)
    assert memory.created_at is not None and memory.updated_at is not None
    return {
        "id": memory.id, "scope": scope_of(memory), "path": path, "location": memory.location,
        "type": memory.type, "status": memory.status, "source": memory.source,
        "importance": memory.importance, "pinned": int(memory.pinned),
        "created_ts": memory.created_at.timestamp(), "updated_ts": memory.updated_at.timestamp(),
        "created_at": memory.created_at.isoformat(), "updated_at": memory.updated_at.isoformat(),
        "tags": json.dumps(list(memory.tags), ensure_ascii=False), "summary": memory.summary,
        "content": memory.content, "extra": json.dumps(memory.extra, ensure_ascii=False, default=str),
        "content_hash": embed_key(memory.content, memory.summary), "raw": raw,
        "terms": " ".join(terms), "doc_len": len(terms), "size": len(raw.encode("utf-8")),
        "dup_key": duplicate_key(memory.content),
    }
