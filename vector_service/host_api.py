"""What agent hosts (the OpenClaw plugin, Claude Code hooks) need from the sidecar.

The router ``hosts`` (its routes reach the palace through the ``HostPalace`` on
``app.state.host_palace``) serves, over the sidecar's workspace:

* ``POST /bootstrap`` and ``POST /context``: palace.features.context's start-of-session and
  per-prompt context within a token budget (ready-to-read text plus its pieces);
* ``POST /memories/search``: search with the MCP server's result shape (plus each
  memory's ``path`` relative to the workspace, for hosts that cite files);
* ``POST /memories`` (store), ``GET /memories/{id}``, ``POST /memories/{id}/restore``
  (``DELETE /memories/{id}`` is the provider's remove, in app.py);
* ``POST /experiences``, ``POST /experiences/{id}/verify``, ``POST /experiences/search``.

Bodies are checked strictly (unknown keys are a 400, as in the rest of the sidecar);
keys may be camelCase or snake_case. The models below are the OpenAPI schemas
(``GET /openapi.json``). ``add_http_error_handlers`` makes routing errors (404 for
an unknown path, 405 for a wrong method) use the sidecar's ``{error, message}`` shape.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Annotated, Any, Callable

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import AliasChoices, BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from palace.features import context as ctx
from palace.errors import MemoryNotFoundError
from palace.responses import memory_view
from vector_service.bodies import json_body

# Another process (the CLI, Claude Code's hooks) may have written since the last call.
SYNC_INTERVAL_S = 2.0
MAX_RESULTS = 100


def _alias(*names: str) -> AliasChoices:
    return AliasChoices(*names)


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)


# --------------------------------------------------------------------------- requests

class BootstrapRequest(_Body):
    query: str | None = Field(None, description="The task at hand; adds the memories relevant to it.")
    max_tokens: int = Field(4000, ge=50, le=100_000, validation_alias=_alias("maxTokens", "max_tokens"),
                            description="Token budget for the whole text.")
    now: str | None = Field(None, description="ISO 8601 time to read time words against (tests, replay).")


class PersonaRequest(_Body):
    refresh: bool = Field(False, description="Rebuild the generated lines from the user's current facts first.")
    max_tokens: int = Field(4000, ge=50, le=100_000, validation_alias=_alias("maxTokens", "max_tokens"),
                            description="Token budget for the text.")


class ContextRequest(_Body):
    query: str = Field(..., min_length=1, description="What the agent needs to know about.")
    max_tokens: int = Field(2000, ge=50, le=100_000, validation_alias=_alias("maxTokens", "max_tokens"))
    tags: list[str] | None = Field(None, description="Only memories with all these tags.")
    location: str | None = Field(None, description="Only this room and the rooms inside it.")
    type: str | None = None
    now: str | None = None


class MemorySearchRequest(_Body):
    query: str = Field(..., min_length=1, description="Any language; time words become a time filter.")
    top_k: int = Field(10, ge=1, le=MAX_RESULTS, validation_alias=_alias("topK", "top_k"))
    tags: list[str] | None = None
    location: str | None = None
    type: str | None = None
    include_archived: bool = Field(False, validation_alias=_alias("includeArchived", "include_archived"))
    include_weak: bool = Field(True, validation_alias=_alias("includeWeak", "include_weak"),
                               description="Also return weak matches, listed after the strong ones "
                                           "with confidence 'weak' and their reason (false: strong "
                                           "results only, the evidence for the query; an empty "
                                           "answer's notes say why).")
    now: str | None = None


class StoreRequest(_Body):
    content: str = Field(..., description="The memory text (Markdown). One idea per memory.")
    tags: list[str] | None = None
    importance: float = Field(0.5, ge=0, le=1)
    location: str = Field("general", description="Room (folder), e.g. 'projects/palace'.")
    type: str = Field("fact", description="fact | decision | preference | event | task | session | …")
    summary: str | None = None
    created_at: str | None = Field(None, validation_alias=_alias("createdAt", "created_at"),
                                   description="When it happened (ISO 8601), if not now.")
    pinned: bool = False
    source: str = Field("api", description="Who wrote it, e.g. 'openclaw'.")


class ExperienceRecordRequest(_Body):
    what_happened: str = Field(..., validation_alias=_alias("whatHappened", "what_happened"))
    what_worked: str = Field(..., validation_alias=_alias("whatWorked", "what_worked"))
    context: str | None = None
    tags: list[str] | None = None
    location: str = "experiences"
    importance: float = Field(0.6, ge=0, le=1)


class ExperienceVerifyRequest(_Body):
    effective: bool
    note: str | None = None


class ExperienceSearchRequest(_Body):
    query: str = Field(..., min_length=1)
    top_k: int = Field(5, ge=1, le=MAX_RESULTS, validation_alias=_alias("topK", "top_k"))
    tags: list[str] | None = None
    verified_only: bool = Field(False, validation_alias=_alias("verifiedOnly", "verified_only"))


# --------------------------------------------------------------------------- responses (docs)

class ErrorResponse(BaseModel):
    error: str = Field(..., description="Machine-readable code, e.g. invalid_request, not_found.")
    message: str = Field(..., description="What went wrong and how to fix it.")


class MemoryView(BaseModel):
    """A memory as the MCP server shows it (search hits leave out some fields)."""

    id: str
    content: str
    content_truncated: bool | None = None
    summary: str | None = None
    tags: list[str]
    location: str
    type: str
    created_at: str | None
    importance: float
    status: str | None = None
    pinned: bool | None = None
    updated_at: str | None = None
    source: str | None = None
    decay_score: float | None = None
    access_count: int | None = None
    path: str | None = Field(None, description="Absolute file path (get) or relative to the "
                                               "workspace (search hits).")
    extra: dict[str, Any] | None = None
    lines: list[int] | None = Field(None, description="[first, last] line of the text in the "
                                                      "memory's file, 1-based, below the frontmatter "
                                                      "(file-backed palaces), for citations.")


class SearchHit(MemoryView):
    score: float
    why: str = Field(..., description="One line: which retrievers matched, expansions, time words.")
    confidence: str = Field("strong", description="'strong': evidence for the query (what "
                                                  "injection uses); 'weak': listed after the strong ones.")
    reason: str = Field("", description="Why the result is strong or weak.")
    superseded_by: str | None = Field(None, description="The later memory that retired this fact.")


class SearchResponse(BaseModel):
    count: int
    time_range: dict[str, Any] | None = Field(None, description="The period a time word named.")
    notes: list[str]
    results: list[SearchHit]


class ContextPieceView(BaseModel):
    id: str
    location: str
    date: str
    type: str
    form: str = Field(..., description="full | summary | excerpt")
    section: str = Field(..., description="essence | session | task | relevant")
    tokens: int
    full_tokens: int
    score: float | None
    text: str


class ContextResponse(BaseModel):
    query: str | None
    max_tokens: int
    tokens_used: int
    text: str = Field(..., description="Ready to put into a prompt; each piece labelled "
                                       "[id] room · date · type.")
    pieces: list[ContextPieceView]
    omitted_ids: list[str]
    notes: list[str]
    time_range: dict[str, Any] | None


class RestoreResponse(MemoryView):
    pass


class ExperienceStatsView(BaseModel):
    verified_count: int
    failed_count: int
    usage_count: int
    effectiveness: float
    verified: bool
    last_verified_at: str | None


class VerifyResponse(BaseModel):
    id: str
    stats: ExperienceStatsView


class ExperienceHit(MemoryView):
    lesson: dict[str, str | None]
    score: float
    stats: ExperienceStatsView


class ExperienceSearchResponse(BaseModel):
    count: int
    results: list[ExperienceHit]


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse, "description": "invalid_request: a wrong, missing or unknown key"},
    401: {"model": ErrorResponse, "description": "unauthorized: token missing or wrong"},
    404: {"model": ErrorResponse, "description": "not_found (no such memory) or no_workspace"},
    413: {"model": ErrorResponse, "description": "body_too_large"},
    500: {"model": ErrorResponse, "description": "palace_error or internal_error"},
}


def _body_doc(model: type[BaseModel]) -> dict[str, Any]:
    """The request body's schema for OpenAPI. Bodies are parsed by hand (any
    Content-Type, strict), so FastAPI cannot infer it from the signature."""
    return {"requestBody": {"required": True,
                            "description": "JSON (any Content-Type). Keys in camelCase as shown, or in "
                                           "snake_case; an unknown key is a 400.",
                            "content": {"application/json": {"schema": model.model_json_schema()}}}}


# --------------------------------------------------------------------------- views

def search_view(pm, results) -> dict[str, Any]:
    """The MCP server's ``search_memory`` result (``palace.responses.search_response``:
    an empty answer carries its notes too), with each hit's ``path`` its file, relative
    to the workspace."""
    from palace.responses import search_response

    view = search_response(results)
    for item, result in zip(view["results"], results):
        item["path"] = _relative_path(pm, result.memory.path)
        _add_text_lines(pm, item, result.memory)
    return view


def _add_text_lines(pm, view: dict[str, Any], memory: Any) -> dict[str, Any]:
    """``view["lines"]``: where the memory's text lies in its file, when it has one."""
    lines = pm.text_lines(memory)
    if lines is not None:
        view["lines"] = list(lines)
    return view


def _relative_path(pm, path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        return Path(path).resolve().relative_to(Path(pm.settings.workspace).resolve()).as_posix()
    except ValueError:
        return str(path)


# --------------------------------------------------------------------------- endpoints

class HostPalace:
    """The sidecar's palace as host routes reach it: every call runs in a worker thread
    under the provider's lock, after picking up what other processes wrote (at most
    every SYNC_INTERVAL_S). ``open_provider`` opens the palace on first use (raising
    the sidecar's no-workspace error without one)."""

    def __init__(self, open_provider: Callable[[], Any]):
        self.open_provider = open_provider
        self.last_sync = 0.0
        self.sync_lock = threading.Lock()

    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        provider = self.open_provider()
        with provider._lock:
            pm = provider.manager
            with self.sync_lock:
                if time.monotonic() - self.last_sync >= SYNC_INTERVAL_S:
                    pm.sync(full=None)  # files written by other processes since
                    self.last_sync = time.monotonic()
            return fn(pm, *args, **kwargs)

    async def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return await run_in_threadpool(self.call, fn, *args, **kwargs)


async def get_palace(request: Request) -> HostPalace:
    return request.app.state.host_palace


Palace = Annotated[HostPalace, Depends(get_palace)]
hosts = APIRouter(tags=["hosts"], responses=ERROR_RESPONSES)


def _route(method: str, path: str, model: type[BaseModel] | None, response, summary: str,
           status_code: int = 200):
    """Declare a host route with its OpenAPI request and response schemas."""
    extra = _body_doc(model) if model is not None else None
    return hosts.api_route(path, methods=[method], response_model=response, summary=summary,
                           openapi_extra=extra, status_code=status_code)


@_route("POST", "/bootstrap", BootstrapRequest, ContextResponse,
        "Start-of-session context: essence, recent sessions, open tasks, relevant memories")
async def bootstrap(body: Annotated[BootstrapRequest, Depends(json_body(BootstrapRequest))],
                    palace: Palace):
    result = await palace.run(lambda pm: ctx.bootstrap(pm, body.query, body.max_tokens, now=body.now))
    return JSONResponse(result.to_dict())


@_route("POST", "/persona", PersonaRequest, ContextResponse,
        "The user's persona as bootstrap shows it (refresh: rebuild it from the current facts first)")
async def persona(body: Annotated[PersonaRequest, Depends(json_body(PersonaRequest))], palace: Palace):
    result = await palace.run(lambda pm: ctx.persona_context(pm, body.max_tokens, refresh=body.refresh))
    return JSONResponse(result.to_dict())


@_route("POST", "/context", ContextRequest, ContextResponse,
        "The memories most relevant to a query, packed into a token budget")
async def context(body: Annotated[ContextRequest, Depends(json_body(ContextRequest))], palace: Palace):
    result = await palace.run(lambda pm: ctx.get_context(
        pm, body.query, body.max_tokens, now=body.now, tags=body.tags,
        location=body.location, type=body.type))
    return JSONResponse(result.to_dict())


@_route("POST", "/memories/search", MemorySearchRequest, SearchResponse,
        "Search with time words, concepts and decay (the MCP search_memory shape)")
async def search_memories(body: Annotated[MemorySearchRequest, Depends(json_body(MemorySearchRequest))],
                          palace: Palace):
    def search(pm):
        results = pm.search(body.query, top_k=body.top_k, now=body.now, tags=body.tags,
                            location=body.location, type=body.type,
                            include_archived=body.include_archived, include_weak=body.include_weak)
        return search_view(pm, results)
    return JSONResponse(await palace.run(search))


@_route("POST", "/memories", StoreRequest, MemoryView, "Store a memory", status_code=201)
async def store_memory(body: Annotated[StoreRequest, Depends(json_body(StoreRequest))], palace: Palace):
    memory = await palace.run(lambda pm: pm.store(
        body.content, tags=body.tags or (), importance=body.importance, location=body.location,
        type=body.type, source=body.source, summary=body.summary, created_at=body.created_at,
        pinned=body.pinned))
    return JSONResponse(memory_view(memory), status_code=201)


@_route("GET", "/memories/{memory_id}", None, MemoryView, "One memory in full")
async def get_memory(memory_id: str, palace: Palace):
    def get(pm):
        memory = pm.get(memory_id)
        if memory is None:
            hint = (f"it is in the trash: POST /memories/{memory_id}/restore brings it back"
                    if pm.in_trash(memory_id) else
                    "search (POST /memories/search) shows the ids")
            raise MemoryNotFoundError(memory_id, hint)
        return _add_text_lines(pm, memory_view(memory), memory)
    return JSONResponse(await palace.run(get))


@_route("POST", "/memories/{memory_id}/restore", None, RestoreResponse,
        "Bring a memory back from the trash or the archive")
async def restore_memory(memory_id: str, palace: Palace):
    memory = await palace.run(lambda pm: pm.restore(memory_id))
    return JSONResponse(memory_view(memory))


@_route("POST", "/experiences", ExperienceRecordRequest, MemoryView,
        "Record a lesson learned", status_code=201)
async def record_experience(body: Annotated[ExperienceRecordRequest, Depends(json_body(ExperienceRecordRequest))],
                            palace: Palace):
    memory = await palace.run(lambda pm: pm.experiences.record(
        body.what_happened, body.what_worked, tags=body.tags or (), context=body.context,
        location=body.location, importance=body.importance))
    return JSONResponse(memory_view(memory), status_code=201)


@_route("POST", "/experiences/{experience_id}/verify", ExperienceVerifyRequest, VerifyResponse,
        "Say whether applying a lesson worked")
async def verify_experience(experience_id: str,
                            body: Annotated[ExperienceVerifyRequest, Depends(json_body(ExperienceVerifyRequest))],
                            palace: Palace):
    stats = await palace.run(lambda pm: pm.experiences.verify(experience_id, body.effective, body.note))
    return JSONResponse({"id": experience_id, "stats": stats.to_dict()})


@_route("POST", "/experiences/search", ExperienceSearchRequest, ExperienceSearchResponse,
        "Lessons for a problem, best first by relevance and proven effectiveness")
async def search_experiences(body: Annotated[ExperienceSearchRequest, Depends(json_body(ExperienceSearchRequest))],
                             palace: Palace):
    def search(pm):
        results = pm.experiences.search(body.query, top_k=body.top_k, tags=body.tags,
                                        verified_only=body.verified_only)
        return {"count": len(results), "results": [
            memory_view(r.memory, preview=True) | {"lesson": r.lesson, "score": round(r.score, 4),
                                                   "stats": r.stats.to_dict()}
            for r in results]}
    return JSONResponse(await palace.run(search))


def add_http_error_handlers(app: FastAPI) -> None:
    """Routing errors in the sidecar's ``{error, message}`` shape; and no 422 in the
    OpenAPI document, since validation errors are answered as 400 ``invalid_request``."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = generate()
            for operations in spec.get("paths", {}).values():
                for operation in operations.values():
                    operation.get("responses", {}).pop("422", None)
            for name in ("HTTPValidationError", "ValidationError"):
                spec.get("components", {}).get("schemas", {}).pop(name, None)
        return app.openapi_schema or {}

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to edit the schema
    codes = {404: "not_found", 405: "method_not_allowed"}

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        code = codes.get(exc.status_code, "http_error")
        if exc.status_code == 404:
            message = (f"no endpoint {request.method} {request.url.path}; the endpoints are listed "
                       "in GET /openapi.json")
        elif exc.status_code == 405:
            allowed = (exc.headers or {}).get("allow") or (exc.headers or {}).get("Allow")
            message = (f"{request.url.path} does not take {request.method}"
                       + (f"; use {allowed}" if allowed else ""))
        else:
            message = str(exc.detail)
        return JSONResponse({"error": code, "message": message}, status_code=exc.status_code,
                            headers=exc.headers)



# --------------------------------------------------------------------------- the original endpoints' docs

class HealthResponse(BaseModel):
    status: str = Field(..., description="loading | ready | error")
    model: str | None
    dimension: int | None
    max_chars: int | None = Field(..., description="Chunk size that fits the model's window.")
    backend: str | None
    load_seconds: float | None
    workspace: str | None
    error: str | None = Field(None, description="Why the model failed to load, and the fix.")


class EmbedResponse(BaseModel):
    model: str
    dimension: int
    vectors: list[list[float]] = Field(..., description="L2-normalised, one per text.")


class ProviderSearchResponse(BaseModel):
    results: list[dict[str, Any]] = Field(..., description="{id, score, content, metadata} each, "
                                                            "best first (docs/openclaw.md)")


class IndexResponse(BaseModel):
    id: str
    created: bool


class RemoveResponse(BaseModel):
    id: str
    removed: bool


def _response_doc(model: type[BaseModel], description: str = "OK") -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": model.model_json_schema()}}}


def document_core_endpoints(router: APIRouter, bodies: dict[str, type[BaseModel]]) -> None:
    """OpenAPI request and response schemas for the sidecar's first endpoints
    (/health, /embed, /search, /index, /remove, DELETE /memories/{id}), which parse
    their bodies by hand and so cannot be described by FastAPI from their signatures.

    ``bodies`` maps a path to its request model (app.py's)."""
    from fastapi.routing import APIRoute

    errors = {str(status): _response_doc(ErrorResponse, spec["description"])
              for status, spec in ERROR_RESPONSES.items()}
    answers: dict[tuple[str, str], type[BaseModel]] = {
        ("GET", "/health"): HealthResponse, ("POST", "/embed"): EmbedResponse,
        ("POST", "/search"): ProviderSearchResponse, ("POST", "/index"): IndexResponse,
        ("POST", "/remove"): RemoveResponse, ("DELETE", "/memories/{memory_id}"): RemoveResponse,
    }
    for route in router.routes:
        if not isinstance(route, APIRoute):
            continue
        for method in route.methods or ():
            answer = answers.get((method, route.path))
            if answer is None:
                continue
            extra: dict[str, Any] = {"responses": {"200": _response_doc(answer),
                                                   **({} if route.path == "/health" else errors)}}
            if route.path in bodies and method == "POST":
                extra.update(_body_doc(bodies[route.path]))
            if route.path in ("/embed", "/search", "/index"):
                extra["responses"]["503"] = _response_doc(
                    ErrorResponse, "loading (with Retry-After) or model_error")
            route.openapi_extra = extra
