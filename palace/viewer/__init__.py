"""The local web viewer: look into a palace (rooms, decay, search explanations) and edit it through the manager."""

from __future__ import annotations

from typing import Any


def create_viewer_app(pm_or_workspace: Any, token: str | None = None, **kwargs: Any):
    """The viewer's ASGI app; see palace.viewer.app (imported lazily: it needs the server extra)."""
    from palace.viewer.app import create_viewer_app as create

    return create(pm_or_workspace, token, **kwargs)


__all__ = ["create_viewer_app"]
