"""The embedding sidecar: one warm model shared by every palace process, over HTTP.

``create_app(settings, workspace)`` builds the ASGI app; scripts/vector-service.py
serves it with uvicorn. Its routes are declared on routers (here, in capture.py and
host_api.py) and reach the sidecar's state through dependencies (sidecar.py). The model loads in a background thread so ``GET /health``
answers at once (``loading`` → ``ready``); embedding calls made before that get
503 with a Retry-After header.

Endpoints (JSON in, JSON out; errors are ``{"error": code, "message": text}``):

* ``GET /health`` → ``{status, model, dimension, max_chars, backend, load_seconds, workspace (bool), error?}``
* ``POST /embed`` ``{texts: [str], kind: "document"|"query"}`` → ``{model, dimension, vectors}``
* OpenClaw's VectorSearchProvider over ``workspace`` (see palace/features/provider.py):
  ``POST /search`` ``{query, topK?, filter?}`` → ``{results: [{id, score, content, metadata}]}``,
  ``POST /index`` ``{id, content, metadata?}`` → ``{id, created}``,
  ``POST /remove`` ``{id}`` or ``DELETE /memories/{id}`` → ``{id, removed}``.
* For agent hosts (vector_service/host_api.py, schemas in ``GET /openapi.json``):
  ``POST /bootstrap``, ``POST /context``, ``POST /memories/search``, ``POST /memories``,
  ``GET /memories/{id}``, ``POST /memories/{id}/restore``, ``POST /experiences``,
  ``POST /experiences/{id}/verify``, ``POST /experiences/search``. Unknown paths (404)
  and wrong methods (405) answer in the same ``{error, message}`` shape.
* ``POST /capture`` ``{source?, events: [payload…]}`` → ``{accepted, stored, skipped, errors}``
  (agent events and hook payloads; see docs/capture.md); a retry that carries the same
  ``Idempotency-Key`` header gets the first answer, captured once.

With ``MEMORY_VECTOR_SERVICE_TOKEN`` set, every request but ``/health`` needs
``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import AliasChoices, BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from palace.embedders import InProcessEmbedder
from palace.errors import (
    ConfigError,
    DiskFullError,
    EmbedderUnavailableError,
    InvalidInputError,
    MemoryNotFoundError,
    PalaceError,
    ReadOnlyPalaceError,
    StorageError,
    storage_error,
)
from palace.settings import Settings
from vector_service.bodies import describe, error, json_body
from vector_service.capture import CaptureRequest, capture_routes
from vector_service.host_api import HostPalace, add_http_error_handlers, document_core_endpoints, hosts
from vector_service.middleware import (
    BearerTokenMiddleware,
    BodyLimitMiddleware,
    CatchAllMiddleware,
    ViewerDispatch,
)
from vector_service.sidecar import LOADING_RETRY_AFTER_S, NoWorkspace, ServiceLimits, Sidecar, SidecarDep, Unavailable

__all__ = ["create_app", "mount_viewer", "ServiceLimits", "LOADING_RETRY_AFTER_S", "CaptureRequest",
           "EmbedRequest", "SearchRequest", "IndexRequest", "RemoveRequest"]

log = logging.getLogger("palace.vector_service")


# --- request bodies --------------------------------------------------------------


class _Body(BaseModel):
    # strict: a number is not a string; forbid: a misspelt key is an error, not ignored.
    model_config = ConfigDict(extra="forbid", strict=True)


class EmbedRequest(_Body):
    texts: list[str]
    kind: Literal["document", "query"] = "document"


class SearchRequest(_Body):
    query: str
    top_k: int = Field(10, validation_alias=AliasChoices("topK", "top_k"))
    filter: dict[str, Any] | None = None


class IndexRequest(_Body):
    id: str
    content: str
    metadata: dict[str, Any] | None = None


class RemoveRequest(_Body):
    id: str


# --- the app ---------------------------------------------------------------------


def create_app(
    settings: Settings,
    workspace: str | Path | None = None,
    *,
    embedder: InProcessEmbedder | None = None,
    limits: ServiceLimits | None = None,
) -> FastAPI:
    """The sidecar app. Without ``workspace`` only /health and /embed work."""
    sidecar = Sidecar(settings, workspace, embedder=embedder, limits=limits)
    app = FastAPI(title="palace vector service", lifespan=_lifespan, docs_url=None, redoc_url=None)
    app.state.sidecar = sidecar
    app.state.embedder = sidecar.embedder
    app.state.limits = sidecar.limits
    app.state.host_palace = HostPalace(sidecar.provider)
    for router in (core, capture_routes, hosts):
        app.include_router(router)
    for exc, handler in ERROR_HANDLERS.items():
        app.add_exception_handler(exc, handler)
    add_http_error_handlers(app)  # routing errors (404, 405) in the {error, message} shape
    # Added first = innermost of ours: an unexpected error becomes a 500 answer here,
    # so Starlette's outermost handler never re-raises it and the server keeps the
    # client's keep-alive connection.
    app.add_middleware(CatchAllMiddleware)
    # Added last = runs first: refuse strangers before buffering their bodies.
    app.add_middleware(BodyLimitMiddleware, max_bytes=sidecar.limits.max_body_bytes)
    app.add_middleware(BearerTokenMiddleware, token=settings.vector_service_token, tokens=sidecar.tokens)
    return app


@asynccontextmanager
async def _lifespan(app: FastAPI):
    sidecar: Sidecar = app.state.sidecar
    if sidecar.embedder.state == "not loaded":
        sidecar.embedder.start_loading()
    yield
    sidecar.close()


# --- the core routes: health, embeddings, OpenClaw's provider ----------------------

core = APIRouter()


@core.get("/health")
async def health(sidecar: SidecarDep) -> JSONResponse:  # async: answers even while every worker thread embeds
    embedder = sidecar.embedder
    status = embedder.state
    model = embedder.model
    body: dict[str, Any] = {
        "status": "loading" if status == "not loaded" else status,
        "model": embedder.name,
        "dimension": model.dimension if model else None,
        "max_chars": model.max_chars if model else None,
        "backend": model.backend if model else None,
        "load_seconds": round(model.load_seconds, 2) if model else None,
        # whether one is served, not where: /health answers without the token,
        # and a path tells a stranger who runs this and how the disk is laid out
        "workspace": sidecar.workspace is not None,
    }
    if status == "error":
        body["error"] = embedder.error
    return JSONResponse(body)


@core.post("/embed")
async def embed(request: Annotated[EmbedRequest, Depends(json_body(EmbedRequest))],
                sidecar: SidecarDep) -> JSONResponse:
    limits = sidecar.limits
    if not request.texts:
        raise InvalidInputError("texts is empty; send at least one string")
    if len(request.texts) > limits.max_texts_per_call:
        raise InvalidInputError(
            f"texts holds {len(request.texts)} strings; at most "
            f"{limits.max_texts_per_call} per call, so send them in batches")
    for index, text in enumerate(request.texts):
        sidecar.check_text(text, f"texts[{index}]")
    model = sidecar.ready_model()
    run = model.embed_queries if request.kind == "query" else model.embed_documents
    vectors = await run_in_threadpool(run, request.texts)
    # Six decimals: half the JSON of float32's full repr, and cosine moves by <1e-5.
    return JSONResponse({
        "model": model.name,
        "dimension": model.dimension,
        "vectors": vectors.astype("float64").round(6).tolist(),
    })


@core.post("/search")
async def search(request: Annotated[SearchRequest, Depends(json_body(SearchRequest))],
                 sidecar: SidecarDep) -> JSONResponse:
    sidecar.check_text(request.query, "query")
    memories = await run_in_threadpool(sidecar.provider)  # the first call opens the palace
    if sidecar.embedder.state in ("loading", "not loaded"):
        sidecar.ready_model()  # 503 + Retry-After: results now would lack the vector half
    results = await run_in_threadpool(memories.search, request.query, request.top_k, request.filter)
    return JSONResponse({"results": results})


@core.post("/index")
async def index(request: Annotated[IndexRequest, Depends(json_body(IndexRequest))],
                sidecar: SidecarDep) -> JSONResponse:
    memories = await run_in_threadpool(sidecar.provider)  # the first call opens the palace
    if sidecar.embedder.state in ("loading", "not loaded"):
        sidecar.ready_model()
    answer = await run_in_threadpool(memories.index, request.id, request.content, request.metadata)
    return JSONResponse(answer)


@core.post("/remove")
async def remove(request: Annotated[RemoveRequest, Depends(json_body(RemoveRequest))],
                 sidecar: SidecarDep) -> JSONResponse:
    memories = await run_in_threadpool(sidecar.provider)
    removed = await run_in_threadpool(memories.remove, request.id)
    return JSONResponse({"id": request.id, "removed": removed})


@core.delete("/memories/{memory_id}")
def delete_memory(memory_id: str, sidecar: SidecarDep) -> JSONResponse:
    return JSONResponse({"id": memory_id, "removed": sidecar.provider().remove(memory_id)})


# their OpenAPI schemas (the bodies are parsed by hand, so FastAPI cannot infer them)
document_core_endpoints(core, {"/embed": EmbedRequest, "/search": SearchRequest,
                               "/index": IndexRequest, "/remove": RemoveRequest})


# --- errors, in the {error, message} shape -----------------------------------------

async def _invalid_request(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return error(400, "invalid_request", describe(exc.errors()))


async def _invalid_input(request: Request, exc: Exception) -> JSONResponse:
    return error(400, "invalid_request", str(exc))


async def _not_found(request: Request, exc: Exception) -> JSONResponse:
    return error(404, "not_found", str(exc))


async def _no_workspace(request: Request, exc: Exception) -> JSONResponse:
    return error(404, "no_workspace",
                 "this sidecar serves /embed only; start it with --workspace DIR (or "
                 "MEMORY_WORKSPACE_DIR) to use /search, /index and /remove")


async def _unavailable(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Unavailable)
    headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
    code = "loading" if exc.retry_after else "model_error"
    return error(503, code, str(exc), headers)


async def _embedder_unavailable(request: Request, exc: Exception) -> JSONResponse:
    return error(503, "embedder_unavailable", str(exc))


async def _storage(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StorageError)
    log.error("palace storage error: %s", exc)
    return _storage_response(exc)


async def _palace_error(request: Request, exc: Exception) -> JSONResponse:
    log.error("palace error: %s", exc)
    return error(500, "palace_error", str(exc))


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    # a disk fault that escaped as a raw OSError / sqlite3 error still says what it is
    translated = storage_error(exc, doing=f"{request.method} {request.url.path}", where="the palace")
    if translated is not None:
        log.error("palace storage error: %s", translated)
        return _storage_response(translated)
    log.exception("unexpected error")
    return error(500, "internal_error", f"{type(exc).__name__}: {exc}")


def _storage_response(exc: StorageError) -> JSONResponse:
    """507 for a full disk, 503 for a read-only palace (the server's state, not the
    request's fault: the same request works once the disk is fixed), 500 otherwise."""
    if isinstance(exc, DiskFullError):
        return error(507, "disk_full", str(exc))
    if isinstance(exc, ReadOnlyPalaceError):
        return error(503, "read_only", str(exc))
    return error(500, "storage_error", str(exc))


ERROR_HANDLERS: dict[type[Exception], Any] = {
    RequestValidationError: _invalid_request, InvalidInputError: _invalid_input,
    MemoryNotFoundError: _not_found, NoWorkspace: _no_workspace, Unavailable: _unavailable,
    EmbedderUnavailableError: _embedder_unavailable, StorageError: _storage,
    PalaceError: _palace_error, Exception: _unexpected,
}


# --- the viewer beside the API (palace.viewer) ----------------------------------------


def mount_viewer(app: FastAPI, settings: Settings, workspace: str | Path, *,
                 prefix: str = "/viewer") -> None:
    """Serve the palace viewer under ``prefix`` (``/viewer/``) on this sidecar.

    Same token rule as the API: with MEMORY_VECTOR_SERVICE_TOKEN set, the viewer asks
    for it (login form, ``?token=`` or a Bearer header) and keeps it in a cookie, since
    a browser cannot send a Bearer header itself; so viewer requests are handed to the
    viewer before the API's Bearer check. The viewer's manager shares the sidecar's
    embedder. Call before the app starts serving.
    """
    from palace.manager import MemoryPalaceManager
    from palace.viewer import create_viewer_app

    if settings.sidecar_tokens and not settings.vector_service_token:
        # the viewer answers before the token check, as the sidecar's own identity: without
        # a token of its own it would be open to anyone who can reach the port
        raise ConfigError("--viewer with MEMORY_SIDECAR_TOKENS needs MEMORY_VECTOR_SERVICE_TOKEN: the "
                          "viewer acts as the sidecar's own identity and asks for that token")
    path = Path(workspace).expanduser()
    manager = MemoryPalaceManager(str(path), settings=settings.replace(workspace_dir=str(path)),
                                  embedder=app.state.embedder)
    viewer = create_viewer_app(manager, token=settings.vector_service_token)
    # added last = runs first, before the Bearer check
    app.add_middleware(ViewerDispatch, viewer=viewer, prefix="/" + prefix.strip("/"))
