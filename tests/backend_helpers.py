"""Reading what either backend keeps, for tests that run on both."""

from __future__ import annotations


def stored_markdown(pm, memory_id: str) -> str:
    """A memory's Markdown as its backend keeps it: the file, or the database's ``raw``."""
    if pm.backend == "local":
        return pm.get(memory_id, record_access=False).path.read_text("utf-8")
    return next(raw for path, raw in pm.storage.export_rows() if path.endswith(f"/{memory_id}.md")
                or path == f"{memory_id}.md")
