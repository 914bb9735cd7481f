"""One sidecar's state, given to its routes as a FastAPI dependency (``SidecarDep``):
its settings and limits, the shared embedder, and one palace per client identity.
``create_app`` (vector_service/app.py) puts one ``Sidecar`` on ``app.state.sidecar``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, Request

from palace import limits
from palace.embedders import InProcessEmbedder
from palace.errors import InvalidInputError
from palace.features.provider import PalaceVectorSearchProvider
from palace.settings import Settings
from vector_service.identities import CURRENT, load_for

# How long a client should wait before asking again while the model loads.
LOADING_RETRY_AFTER_S = 2


@dataclass(frozen=True)
class ServiceLimits:
    """What one request may carry; larger work must be split by the client."""

    max_texts_per_call: int = 256
    # A model reads a few hundred tokens at most; longer texts should be chunked
    # (palace.text.chunking) rather than silently truncated by the model.
    max_chars_per_text: int = 8192
    max_body_bytes: int = limits.MAX_REQUEST_BYTES  # palace/limits.py

    @classmethod
    def for_settings(cls, settings: Settings) -> "ServiceLimits":
        # /index carries a whole memory; JSON escaping can double its UTF-8 size.
        return cls(max_body_bytes=max(cls.max_body_bytes, 2 * settings.max_content_bytes + 64 * 1024))


class Unavailable(Exception):
    """The model is loading (a retry after ``retry_after`` seconds) or failed (None): 503."""

    def __init__(self, message: str, retry_after: int | None):
        super().__init__(message)
        self.retry_after = retry_after


class NoWorkspace(Exception):
    """A palace route on a sidecar started without a workspace: 404 no_workspace."""


class Sidecar:
    """The embedder every request shares and, over ``workspace``, one manager (and
    provider) per identity: a token of MEMORY_SIDECAR_TOKENS, or None (the sidecar's
    own settings); each declares its agent to the database."""

    def __init__(self, settings: Settings, workspace: str | Path | None = None, *,
                 embedder: InProcessEmbedder | None = None, limits: ServiceLimits | None = None):
        self.settings = settings
        self.embedder = embedder or InProcessEmbedder(settings)
        self.limits = limits or ServiceLimits.for_settings(settings)
        self.workspace = Path(workspace).expanduser() if workspace else None
        self.tokens = load_for(settings)
        self.providers: dict[Any, PalaceVectorSearchProvider] = {}
        self.provider_lock = threading.Lock()
        # POST /capture: answers by (palace, Idempotency-Key), so that a retry is captured once
        self.capture_lock = threading.Lock()
        self.captured: OrderedDict[tuple[int, str], dict[str, Any]] = OrderedDict()

    def ready_model(self):
        """The loaded model, else a 503 (with Retry-After while it loads)."""
        status = self.embedder.state
        if status == "ready":
            return self.embedder.model
        if status == "error":
            raise Unavailable(f"the embedding model failed to load: {self.embedder.error}", None)
        raise Unavailable(f"the embedding model {self.embedder.name} is still loading", LOADING_RETRY_AFTER_S)

    def provider(self) -> PalaceVectorSearchProvider:
        """This request's identity's palace, opened on first use (blocking: call it from a
        worker thread)."""
        if self.workspace is None:
            raise NoWorkspace()
        identity = CURRENT.get()  # who this request is (its token)
        with self.provider_lock:
            if identity not in self.providers:
                from palace.manager import MemoryPalaceManager

                own = self.settings if identity is None else identity.settings_for(self.settings)
                # The sidecar's own embedder, so the manager does not call us over HTTP.
                manager = MemoryPalaceManager(
                    str(self.workspace), settings=own.replace(workspace_dir=str(self.workspace)),
                    embedder=self.embedder)
                made = self.providers[identity] = PalaceVectorSearchProvider(manager)
                made.embed_in_background()  # what earlier writes left without a vector
            return self.providers[identity]

    def check_text(self, text: str, what: str) -> None:
        if len(text) > self.limits.max_chars_per_text:
            raise InvalidInputError(
                f"{what} has {len(text)} characters; at most {self.limits.max_chars_per_text} — "
                "split longer text with palace.text.chunking.chunk_text first")

    def close(self) -> None:
        for provider in self.providers.values():
            provider.close()  # its background worker first, then its manager


async def get_sidecar(request: Request) -> Sidecar:
    return request.app.state.sidecar


SidecarDep = Annotated[Sidecar, Depends(get_sidecar)]
