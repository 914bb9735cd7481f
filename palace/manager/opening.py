"""Opening the manager an adapter serves: the one place that picks its embedder.

The CLI and the Claude Code hooks never load torch (a one-shot command must not spend
seconds on a model): they take the sidecar when one is configured, else search by
keyword. A long-lived server (MCP) may load a model in this process, in the background.
A broken vector install never stops the memory: the palace opens keyword-only and says so
in ``pm.notes``; a configuration error (MEMORY_VECTOR_MODE=http without a URL) is raised.
"""

from __future__ import annotations

from palace.errors import ConfigError
from palace.manager import MemoryPalaceManager
from palace.settings import Settings


def open_manager(settings: Settings, *, inprocess_vectors: bool = False, sync: bool = True) -> MemoryPalaceManager:
    """The manager over ``settings.workspace_dir``. ``inprocess_vectors``: a model may
    load in this process (started now, in the background); ``sync``: catch up with the
    files first (False: a command that only appends, like a hook spooling an event)."""
    from palace.embedders import make_embedder

    broken = None
    try:
        embedder = make_embedder(settings, allow_inprocess=inprocess_vectors)
    except ConfigError:
        raise
    except Exception as exc:  # noqa: BLE001 - a broken vector install must not stop the memory
        embedder, broken = None, f"vectors unavailable ({exc}); keyword search only"
    if embedder is not None and hasattr(embedder, "start_loading"):
        embedder.start_loading()
    pm = MemoryPalaceManager(settings.workspace_dir, settings=settings, embedder=embedder, sync=sync)
    if broken:
        pm.notes.append(broken)
    return pm
