"""The embedding sidecar: one warm model shared by every palace process, over HTTP.

``create_app(settings, workspace)`` builds the ASGI app; scripts/vector-service.py
serves it with uvicorn. The model loads in a background thread so ``GET /health``
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

import hmac
import logging
import threading
from collections import OrderedDict
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool

from palace import limits
from palace.embedders import InProcessEmbedder
from palace.network import is_loopback
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
from palace.features.provider import PalaceVectorSearchProvider
from palace.settings import Settings
from vector_service.identities import CURRENT, TokenMap, load_for

log = logging.getLogger("palace.vector_service")

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


def check_bind_address(host: str, token: str | None) -> None:
    """Refuse to expose the sidecar beyond this machine without a token."""
    if not is_loopback(host) and not token:
        raise ConfigError(
            f"refusing to listen on {host}: it is reachable from other machines and anyone "
            "there could read and write your memories. Set MEMORY_VECTOR_SERVICE_TOKEN "
            "(clients send it as a Bearer token), or listen on 127.0.0.1"
        )


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


class _Unavailable(Exception):
    def __init__(self, message: str, retry_after: int | None):
        super().__init__(message)
        self.retry_after = retry_after


# --- the app ---------------------------------------------------------------------


def create_app(
    settings: Settings,
    workspace: str | Path | None = None,
    *,
    embedder: InProcessEmbedder | None = None,
    limits: ServiceLimits | None = None,
) -> FastAPI:
    """The sidecar app. Without ``workspace`` only /health and /embed work."""
    embedder = embedder or InProcessEmbedder(settings)
    limits = limits or ServiceLimits.for_settings(settings)
    workspace_path = Path(workspace).expanduser() if workspace else None
    provider_lock = threading.Lock()
    # one manager (and provider) per identity: a token of MEMORY_SIDECAR_TOKENS, or None
    # (the sidecar's own settings); each declares its agent to the database
    tokens = load_for(settings)
    state: dict[str, Any] = {"managers": {}, "providers": {}}

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if embedder.state == "not loaded":
            embedder.start_loading()
        yield
        for provider_ in state["providers"].values():
            provider_.close()  # its background worker first, then its manager

    app = FastAPI(title="palace vector service", lifespan=lifespan,
                  docs_url=None, redoc_url=None)
    app.state.embedder = embedder
    app.state.limits = limits

    def ready_model():
        status = embedder.state
        if status == "ready":
            return embedder.model
        if status == "error":
            raise _Unavailable(f"the embedding model failed to load: {embedder.error}", None)
        raise _Unavailable(f"the embedding model {embedder.name} is still loading", LOADING_RETRY_AFTER_S)

    def provider() -> PalaceVectorSearchProvider:
        if workspace_path is None:
            raise _NoWorkspace()
        identity = CURRENT.get()  # who this request is (its token)
        with provider_lock:
            if identity not in state["providers"]:
                from palace.manager import MemoryPalaceManager

                own = settings if identity is None else identity.settings_for(settings)
                # The sidecar's own embedder, so the manager does not call us over HTTP.
                manager = MemoryPalaceManager(
                    str(workspace_path),
                    settings=own.replace(workspace_dir=str(workspace_path)),
                    embedder=embedder,
                )
                state["managers"][identity] = manager
                made = state["providers"][identity] = PalaceVectorSearchProvider(manager)
                made.embed_in_background()  # what earlier writes left without a vector
            return state["providers"][identity]

    def check_text(text: str, what: str) -> None:
        if len(text) > limits.max_chars_per_text:
            raise InvalidInputError(
                f"{what} has {len(text)} characters; at most {limits.max_chars_per_text} — "
                "split longer text with palace.text.chunking.chunk_text first")

    @app.get("/health")
    async def health() -> JSONResponse:  # async: answers even while every worker thread embeds
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
            "workspace": workspace_path is not None,
        }
        if status == "error":
            body["error"] = embedder.error
        return JSONResponse(body)

    @app.post("/embed")
    async def embed(http: Request) -> JSONResponse:
        request = await _parse(http, EmbedRequest)
        if not request.texts:
            raise InvalidInputError("texts is empty; send at least one string")
        if len(request.texts) > limits.max_texts_per_call:
            raise InvalidInputError(
                f"texts holds {len(request.texts)} strings; at most "
                f"{limits.max_texts_per_call} per call, so send them in batches")
        for index, text in enumerate(request.texts):
            check_text(text, f"texts[{index}]")
        model = ready_model()
        run = model.embed_queries if request.kind == "query" else model.embed_documents
        vectors = await run_in_threadpool(run, request.texts)
        # Six decimals: half the JSON of float32's full repr, and cosine moves by <1e-5.
        return JSONResponse({
            "model": model.name,
            "dimension": model.dimension,
            "vectors": vectors.astype("float64").round(6).tolist(),
        })

    @app.post("/search")
    async def search(http: Request) -> JSONResponse:
        request = await _parse(http, SearchRequest)
        check_text(request.query, "query")
        memories = await run_in_threadpool(provider)  # the first call opens the palace
        if embedder.state in ("loading", "not loaded"):
            ready_model()  # 503 + Retry-After: results now would lack the vector half
        results = await run_in_threadpool(memories.search, request.query, request.top_k, request.filter)
        return JSONResponse({"results": results})

    @app.post("/index")
    async def index(http: Request) -> JSONResponse:
        request = await _parse(http, IndexRequest)
        memories = await run_in_threadpool(provider)  # the first call opens the palace
        if embedder.state in ("loading", "not loaded"):
            ready_model()
        answer = await run_in_threadpool(memories.index, request.id, request.content, request.metadata)
        return JSONResponse(answer)

    @app.post("/remove")
    async def remove(http: Request) -> JSONResponse:
        request = await _parse(http, RemoveRequest)
        memories = await run_in_threadpool(provider)
        removed = await run_in_threadpool(memories.remove, request.id)
        return JSONResponse({"id": request.id, "removed": removed})

    @app.delete("/memories/{memory_id}")
    def delete_memory(memory_id: str) -> JSONResponse:
        return JSONResponse({"id": memory_id, "removed": provider().remove(memory_id)})

    def capture_manager():
        memories = provider()  # opens the palace on first use
        return memories.manager, memories

    add_capture_route(app, capture_manager)
    _add_error_handlers(app)
    _add_host_api(app, provider)
    # Added first = innermost of ours: an unexpected error becomes a 500 answer here,
    # so Starlette's outermost handler never re-raises it and the server keeps the
    # client's keep-alive connection.
    app.add_middleware(CatchAllMiddleware)
    # Added last = runs first: refuse strangers before buffering their bodies.
    app.add_middleware(BodyLimitMiddleware, max_bytes=limits.max_body_bytes)
    app.add_middleware(BearerTokenMiddleware, token=settings.vector_service_token, tokens=tokens)
    return app


# _parse returns the very request class it was given (for the type checker)
BodyT = TypeVar("BodyT", bound=_Body)


class _NoWorkspace(Exception):
    pass


def _add_host_api(app: FastAPI, provider) -> None:
    """Endpoints for agent hosts (bootstrap, context, memories, experiences) and
    routing errors (404, 405) in the {error, message} shape: vector_service/host_api.py."""
    from vector_service.host_api import (
        add_host_endpoints,
        add_http_error_handlers,
        document_core_endpoints,
    )

    add_host_endpoints(app, provider, _parse)
    add_http_error_handlers(app)
    document_core_endpoints(app, {"/embed": EmbedRequest, "/search": SearchRequest,
                                  "/index": IndexRequest, "/remove": RemoveRequest})


# --- capture (palace/capture) ----------------------------------------------------

MAX_CAPTURE_EVENTS = 1000
# A client that timed out may send a batch again (the OpenClaw plugin does): a batch
# that carries an Idempotency-Key already answered gets that answer, not a second run.
IDEMPOTENCY_HEADER = "idempotency-key"
MAX_IDEMPOTENCY_KEY_CHARS = 200
REMEMBERED_CAPTURE_KEYS = 512


class CaptureRequest(_Body):
    source: Literal["claude-code", "openclaw", "palace", "jsonl"] | None = None
    events: list[Any]


def add_capture_route(app: FastAPI, open_manager) -> None:
    """``POST /capture`` ``{source?, events: [payload…]}`` → ``{accepted, stored, skipped,
    errors}``: raw hook payloads or palace events, batched (see docs/capture.md).
    A bad item is reported in ``errors`` ({index, error, message}); the rest go in.
    A batch sent again with the same ``Idempotency-Key`` (a retry after a timeout) gets
    the first answer with ``duplicate: true`` and captures nothing twice."""
    capture_lock = threading.Lock()
    answered: OrderedDict[tuple[int, str], dict[str, Any]] = OrderedDict()

    @app.post("/capture")
    async def capture(http: Request) -> JSONResponse:
        from palace.capture.service import capture_payloads

        key = http.headers.get(IDEMPOTENCY_HEADER)
        if key is not None and not (0 < len(key) <= MAX_IDEMPOTENCY_KEY_CHARS and key.isprintable()):
            raise InvalidInputError(f"the Idempotency-Key header must be 1-{MAX_IDEMPOTENCY_KEY_CHARS} "
                                    "printable characters")
        request = await _parse(http, CaptureRequest)
        if len(request.events) > MAX_CAPTURE_EVENTS:
            raise InvalidInputError(
                f"events holds {len(request.events)} items; at most {MAX_CAPTURE_EVENTS} per call, "
                "so send them in batches")
        manager, memories = await run_in_threadpool(open_manager)
        remembered = (id(memories), key) if key else None  # one palace's keys per sidecar scope

        def run() -> dict[str, Any]:
            # the manager's connection is shared with /search and /index: take the
            # provider's lock so a capture never interleaves with them (and a retry
            # waits for the first attempt to finish, then finds its answer)
            with getattr(memories, "_lock", None) or capture_lock:
                if remembered is not None and remembered in answered:
                    return {**answered[remembered], "duplicate": True}
                result = capture_payloads(manager, request.source, request.events)
                if remembered:
                    answered[remembered] = result
                    while len(answered) > REMEMBERED_CAPTURE_KEYS:
                        answered.popitem(last=False)
                return result

        result = await run_in_threadpool(run)
        return JSONResponse({"accepted": result["accepted"], "stored": result["stored"],
                             "skipped": result["skipped"], "errors": result["errors"],
                             "observations": result["observations"],
                             "sessions": result["sessions"],
                             **({"duplicate": True} if result.get("duplicate") else {})})


async def _parse(request: Request, model: type[BodyT]) -> BodyT:
    """The body as ``model``, whatever Content-Type it came with: fetch() sends a
    string body as text/plain unless told otherwise, and that should still work."""
    raw = await request.body()
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        raise InvalidInputError(_describe(exc.errors())) from None


def _describe(errors) -> str:
    problems = []
    for error in list(errors)[:5]:
        where = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
        problems.append(f"{where or 'body'}: {error.get('msg')}")
    return "; ".join(problems)


def _error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status, headers=headers)


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid_request(request, exc: RequestValidationError):
        return _error(400, "invalid_request", _describe(exc.errors()))

    @app.exception_handler(InvalidInputError)
    async def invalid_input(request, exc):
        return _error(400, "invalid_request", str(exc))

    @app.exception_handler(MemoryNotFoundError)
    async def not_found(request, exc):
        return _error(404, "not_found", str(exc))

    @app.exception_handler(_NoWorkspace)
    async def no_workspace(request, exc):
        return _error(404, "no_workspace",
                      "this sidecar serves /embed only; start it with --workspace DIR (or "
                      "MEMORY_WORKSPACE_DIR) to use /search, /index and /remove")

    @app.exception_handler(_Unavailable)
    async def unavailable(request, exc: _Unavailable):
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
        code = "loading" if exc.retry_after else "model_error"
        return _error(503, code, str(exc), headers)

    @app.exception_handler(EmbedderUnavailableError)
    async def embedder_unavailable(request, exc):
        return _error(503, "embedder_unavailable", str(exc))

    @app.exception_handler(StorageError)
    async def storage(request, exc):
        log.error("palace storage error: %s", exc)
        return _storage_response(exc)

    @app.exception_handler(PalaceError)
    async def palace_error(request, exc):
        log.error("palace error: %s", exc)
        return _error(500, "palace_error", str(exc))

    @app.exception_handler(Exception)
    async def unexpected(request, exc):
        # a disk fault that escaped as a raw OSError / sqlite3 error still says what it is
        translated = storage_error(exc, doing=f"{request.method} {request.url.path}", where="the palace")
        if translated is not None:
            log.error("palace storage error: %s", translated)
            return _storage_response(translated)
        log.exception("unexpected error")
        return _error(500, "internal_error", f"{type(exc).__name__}: {exc}")


def _storage_response(exc: StorageError) -> JSONResponse:
    """507 for a full disk, 503 for a read-only palace (the server's state, not the
    request's fault: the same request works once the disk is fixed), 500 otherwise."""
    if isinstance(exc, DiskFullError):
        return _error(507, "disk_full", str(exc))
    if isinstance(exc, ReadOnlyPalaceError):
        return _error(503, "read_only", str(exc))
    return _error(500, "storage_error", str(exc))


# --- middleware (plain ASGI: they must see a request before any body is read) ---------


class CatchAllMiddleware:
    """Answers 500 (JSON, like every error) for an exception nothing else handled."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = False

        async def watch(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception as exc:  # noqa: BLE001 - the point is to catch what nobody did
            log.exception("unexpected error")
            if started:
                raise  # half an answer was sent: only closing the connection is honest
            await _error(500, "internal_error", f"{type(exc).__name__}: {exc}")(scope, receive, send)


class BearerTokenMiddleware:
    """With a token, every path but /health needs ``Authorization: Bearer <token>``.
    With a tokens file (MEMORY_SIDECAR_TOKENS), the token also says who the client is:
    the request is served as that identity (``identities.CURRENT``)."""

    def __init__(self, app, token: str | None, tokens: TokenMap | None = None):
        self.app = app
        self.expected = f"Bearer {token}".encode() if token else None
        self.tokens = tokens

    async def __call__(self, scope, receive, send):
        if ((self.expected is None and self.tokens is None) or scope["type"] != "http"
                or scope["path"] == "/health"):
            return await self.app(scope, receive, send)
        given = dict(scope["headers"]).get(b"authorization", b"")
        identity = None
        if self.tokens is not None and given.startswith(b"Bearer "):
            identity = self.tokens.identity(given[len(b"Bearer "):])
        own = self.expected is not None and hmac.compare_digest(given, self.expected)
        if identity is None and not own:
            response = _error(401, "unauthorized",
                              "send your token as 'Authorization: Bearer <token>' "
                              "(MEMORY_VECTOR_SERVICE_TOKEN, or one of MEMORY_SIDECAR_TOKENS)",
                              {"WWW-Authenticate": "Bearer"})
            return await response(scope, receive, send)
        marker = CURRENT.set(identity)  # None: the sidecar's own settings
        try:
            return await self.app(scope, receive, send)
        finally:
            CURRENT.reset(marker)


class BodyLimitMiddleware:
    """Reads at most ``max_bytes`` of a body, then hands it on; more is a 413."""

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            return await self._too_large(scope, receive, send)
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                return await self._too_large(scope, receive, send)
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        delivered = False

        async def replay():
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # the app waiting for a disconnect

        return await self.app(scope, replay, send)

    async def _too_large(self, scope, receive, send):
        response = _error(413, "body_too_large",
                          f"request body over {self.max_bytes} bytes; send fewer or shorter texts")
        return await response(scope, receive, send)


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
    from fastapi.responses import RedirectResponse

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
    prefix = "/" + prefix.strip("/")

    class ViewerDispatch:
        def __init__(self, inner):
            self.inner = inner

        async def __call__(self, scope, receive, send):
            route = scope.get("path", "") if scope["type"] == "http" else ""
            if route == prefix:
                response = RedirectResponse(prefix + "/", status_code=307)
                return await response(scope, receive, send)
            if route.startswith(prefix + "/"):
                # path stays whole; routing below strips root_path (ASGI convention)
                child = dict(scope, root_path=scope.get("root_path", "") + prefix)
                return await viewer(child, receive, send)
            return await self.inner(scope, receive, send)

    app.add_middleware(ViewerDispatch)  # added last = runs first, before the Bearer check
