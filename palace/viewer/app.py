"""The viewer's web app: server-rendered pages over a ``PalaceReader``.

``create_viewer_app(pm_or_workspace, token=None)`` returns an ASGI app (FastAPI).
Pages: ``/`` rooms and memories, ``/memories/<id>``, ``/search?q=``, ``/trash``,
``/experiences``, ``/review`` (the graph's review queue), ``/feed`` (live feed by server-sent events and the bootstrap
preview), and ``/charts/*.svg``. Edits are HTML form posts that go through the
manager; each answers with a redirect (post/redirect/get), so reload is safe.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import yaml
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.staticfiles import StaticFiles

from palace.errors import InvalidInputError, MemoryNotFoundError, PalaceError, ReviewItemNotFoundError
from palace.models import Memory
from palace.viewer import charts
from palace.viewer.reading import PalaceReader, parse_tags
from palace.viewer.rendering import render_markdown
from palace.viewer.security import COOKIE_NAME, CSRF_FIELD, Guard

HERE = Path(__file__).resolve().parent
FEED_POLL_S = 1.0
FEED_KEEPALIVE_S = 15.0
MESSAGES = {
    "saved": "Saved.",
    "deleted": "Moved to the trash.",
    "restored": "Restored.",
    "emptied": "The trash is empty.",
    "accepted": "Accepted: the old fact is closed and its memory marked as superseded.",
    "kept": "Kept both facts.",
}


def create_viewer_app(pm_or_workspace: Any, token: str | None = None, *,
                      feed_poll_s: float = FEED_POLL_S) -> FastAPI:
    """The viewer over a MemoryPalaceManager, or over a workspace folder (a manager
    is opened on it, with keyword search only unless MEMORY_VECTOR_* says otherwise,
    and closed with the app)."""
    owns_manager = isinstance(pm_or_workspace, (str, os.PathLike))
    if owns_manager:
        from palace.manager import MemoryPalaceManager

        pm = MemoryPalaceManager(pm_or_workspace, inprocess_vectors=False)
    else:
        pm = pm_or_workspace
    reader = PalaceReader(pm)
    guard = Guard(token)
    templates = _templates()

    async def lifespan(app: FastAPI):
        yield
        if owns_manager:
            pm.close()

    app = FastAPI(title="palace viewer", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None)
    app.state.reader = reader
    app.state.guard = guard
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    # -- helpers -----------------------------------------------------------------

    def page(request: Request, template: str, status_code: int = 200, *, public: bool = False,
             **context: Any) -> HTMLResponse:
        base = request.scope.get("root_path", "").rstrip("/")
        rooms = None if public else reader.rooms()  # the login page shows nothing of the palace
        html = templates.get_template(template).render(
            base=base, csrf=guard.csrf_token(), csrf_field=CSRF_FIELD, request=request,
            path=request.url.path, rooms=rooms, message=MESSAGES.get(request.query_params.get("done", "")),
            undo_id=request.query_params.get("undo"), auth=guard.token is not None, **context)
        return HTMLResponse(html, status_code=status_code,
                            headers={"Cache-Control": "no-store", "Content-Security-Policy": CSP,
                                     "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin",
                                     "X-Frame-Options": "DENY"})

    def back_to(request: Request, target: str, **params: str) -> RedirectResponse:
        base = request.scope.get("root_path", "").rstrip("/")
        if not target.startswith("/") or target.startswith(("//", "/\\")):
            target = "/"  # never redirect off this server ("/\\host" is "//host" to browsers)
        query = urlencode({k: v for k, v in params.items() if v})
        sep = "&" if "?" in target else "?"
        return RedirectResponse(base + target + (sep + query if query else ""), status_code=303)

    async def checked_form(request: Request) -> dict[str, str]:
        form = await request.form()
        data = {key: str(value) for key, value in form.items()}
        if not guard.csrf_ok(data.get(CSRF_FIELD)):
            raise _Forbidden("this form is out of date or did not come from the viewer; reload the page "
                             "and try again")
        return data

    # -- pages -------------------------------------------------------------------

    @app.get("/", response_class=HTMLResponse)
    def home(request: Request, room: str = "", status: str = "active"):
        page_number = _page_number(request)
        if status not in ("active", "archived"):
            raise InvalidInputError("status must be active or archived")
        memories, more = reader.page(page=page_number, room=room or None, status=status)
        return page(request, "home.html", memories=memories, more=more, page_number=page_number,
                    tree=reader.tree(status),
                    room=room, status=status, now=reader.now())

    @app.get("/memories/{memory_id}", response_class=HTMLResponse)
    def memory_page(request: Request, memory_id: str):
        memory, history, trashed = reader.memory(memory_id)
        shown = memory if memory is not None else trashed
        if shown is None:
            raise MemoryNotFoundError(memory_id)
        now = reader.now()
        curve = None
        if memory is not None and memory.created_at is not None:
            curve = charts.decay_curve(created_at=memory.created_at, importance=memory.importance,
                                       accesses=history, now=now, params=reader.decay_params,
                                       pinned=memory.pinned)
        experience = None
        if shown.type == "experience" and memory is not None:
            from palace.features.experiences import read_verifications

            stats = reader.call(reader.pm.experiences.stats, memory.id)
            experience = {"stats": stats, "verifications": read_verifications(memory.extra)}
        extra = {k: v for k, v in shown.extra.items()
                 if k not in ("entities", "relations", "verifications")}
        return page(request, "memory.html", memory=shown, in_trash=memory is None, history=history,
                    curve=curve, svg=Markup(curve.svg) if curve else None,
                    body=render_markdown(shown.content),
                    summary=render_markdown(shown.summary) if shown.summary else None,
                    entities=_as_list(shown.extra.get("entities")),
                    relations=[r for r in _as_list(shown.extra.get("relations")) if isinstance(r, dict)],
                    extra_yaml=yaml.safe_dump(extra, allow_unicode=True, sort_keys=True,
                                              default_flow_style=False) if extra else "",
                    experience=experience, now=now, threshold=reader.decay_params.archive_threshold)

    @app.get("/search", response_class=HTMLResponse)
    def search_page(request: Request, q: str = "", room: str = "", archived: str = "", strong: str = ""):
        view, timeline, error = None, None, None
        if q.strip():
            try:
                view = reader.search(q, room=room or None, include_archived=bool(archived),
                                     include_weak=not strong)
            except InvalidInputError as exc:
                error = str(exc)
            if view is not None and view.time_range:
                start = _parse_time(view.time_range.get("start"))
                end = _parse_time(view.time_range.get("end"))
                hits = [(r.memory.created_at, (r.explanation.time_range or {}).get("placement"))
                        for r in view.results if r.memory.created_at is not None]
                timeline = Markup(charts.query_timeline(start=start, end=end, now=view.now, hits=hits,
                                                        label=view.time_range.get("text")))
        return page(request, "search.html", q=q, room=room, archived=bool(archived), strong=bool(strong), view=view,
                    timeline=timeline, error=error)

    @app.get("/trash", response_class=HTMLResponse)
    def trash_page(request: Request):
        return page(request, "trash.html", memories=reader.trash())

    @app.get("/experiences", response_class=HTMLResponse)
    def experiences_page(request: Request):
        from palace.features.experiences import read_verifications

        items = [(result, read_verifications(result.memory.extra)) for result in reader.experiences()]
        return page(request, "experiences.html", items=items)

    @app.get("/review", response_class=HTMLResponse)
    def review_page(request: Request):
        return page(request, "review.html", items=reader.review())

    @app.get("/feed", response_class=HTMLResponse)
    def feed_page(request: Request, q: str = ""):
        memories = reader.newest()
        preview, preview_error = None, None
        try:
            preview = reader.bootstrap_preview(q)
        except PalaceError as exc:
            preview_error = str(exc)
        return page(request, "feed.html", memories=memories, seen=",".join(m.id for m in memories),
                    preview=preview, preview_error=preview_error, q=q)

    @app.get("/feed/events")
    async def feed_events(request: Request, seen: str = ""):
        known = {part for part in seen.split(",") if part}
        base = request.scope.get("root_path", "").rstrip("/")

        async def stream():
            yield "retry: 2000\n\n"
            beat = time.monotonic()
            while True:
                newest = await run_in_threadpool(reader.newest)
                for memory in reversed([m for m in newest if m.id not in known]):
                    known.add(memory.id)
                    data = json.dumps(feed_item(memory, base), ensure_ascii=False)
                    yield f"event: memory\nid: {memory.id}\ndata: {data}\n\n"
                if time.monotonic() - beat > FEED_KEEPALIVE_S:
                    beat = time.monotonic()
                    yield ": keep-alive\n\n"
                if await request.is_disconnected():
                    return
                await asyncio.sleep(feed_poll_s)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    drawn: dict[str, Any] = {"scores": None, "svg": ""}

    @app.get("/charts/decay.svg")
    def decay_chart():
        snapshot = reader.decay_scores()
        if drawn["scores"] is not snapshot:  # binning 100k scores costs ~80 ms: once per new set
            scores, computed_at = snapshot
            drawn["svg"] = charts.decay_histogram(scores, reader.decay_params.archive_threshold,
                                                  as_of=computed_at)
            drawn["scores"] = snapshot
        return _svg(drawn["svg"])

    @app.get("/charts/rooms.svg")
    def rooms_chart():
        return _svg(charts.rooms_over_time(reader.created_per_month()))

    # -- edits -------------------------------------------------------------------

    @app.post("/memories/{memory_id}/edit")
    async def edit_memory(request: Request, memory_id: str):
        form = await checked_form(request)
        memory, _history, _trashed = await run_in_threadpool(reader.memory, memory_id)
        if memory is None:
            raise MemoryNotFoundError(memory_id)
        changes: dict[str, Any] = {}
        if "tags" in form:
            tags = parse_tags(form["tags"])
            if tuple(tags) != memory.tags:
                changes["tags"] = tags
        if form.get("importance", "").strip():
            try:
                importance = float(form["importance"])
            except ValueError:
                raise InvalidInputError(f"importance must be a number from 0 to 1, got {form['importance']!r}") from None
            if importance != memory.importance:
                changes["importance"] = importance
        if form.get("location", "").strip() and form["location"].strip() != memory.location:
            changes["location"] = form["location"].strip()
        pinned = form.get("pinned") == "on"
        if "pinned_shown" in form and pinned != memory.pinned:
            changes["pinned"] = pinned
        if changes:
            await run_in_threadpool(reader.update, memory_id, **changes)
        return back_to(request, f"/memories/{memory_id}", done="saved")

    @app.post("/memories/{memory_id}/delete")
    async def delete_memory(request: Request, memory_id: str):
        form = await checked_form(request)
        await run_in_threadpool(reader.delete, memory_id)
        return back_to(request, form.get("next") or "/trash", done="deleted", undo=memory_id)

    @app.post("/memories/{memory_id}/restore")
    async def restore_memory(request: Request, memory_id: str):
        form = await checked_form(request)
        await run_in_threadpool(reader.restore, memory_id)
        return back_to(request, form.get("next") or f"/memories/{memory_id}", done="restored")

    @app.post("/review/{item_id}/{verdict}")
    async def resolve_review(request: Request, item_id: str, verdict: str):
        await checked_form(request)
        if verdict not in ("accept", "reject"):
            raise InvalidInputError(f"a review item is accepted or rejected, not {verdict!r}")
        await run_in_threadpool(reader.resolve_review, item_id, accept=verdict == "accept")
        return back_to(request, "/review", done="accepted" if verdict == "accept" else "kept")

    @app.post("/trash/empty")
    async def empty_trash(request: Request):
        form = await checked_form(request)
        if form.get("confirm") != "yes":
            raise InvalidInputError("tick the box to confirm: emptying the trash deletes those files for good")
        await run_in_threadpool(reader.empty_trash)
        return back_to(request, "/trash", done="emptied")

    # -- login -------------------------------------------------------------------

    @app.get("/login", response_class=HTMLResponse)
    def login_page(request: Request, next: str = "/", failed: str = ""):
        return page(request, "login.html", public=True, next=next, failed=bool(failed))

    @app.post("/login")
    async def login(request: Request):
        form = await request.form()
        given, target = str(form.get("token", "")), str(form.get("next", "/")) or "/"
        if not guard.token_ok(given):
            return back_to(request, "/login", next=target, failed="1")
        response = back_to(request, target)
        _set_cookie(response, request, given)
        return response

    @app.post("/logout")
    async def logout(request: Request):
        await checked_form(request)
        response = back_to(request, "/login")
        response.delete_cookie(COOKIE_NAME, path=(request.scope.get("root_path") or "/"))
        return response

    _add_error_pages(app, page)
    app.add_middleware(GuardMiddleware, guard=guard)
    return app


# --- pieces -------------------------------------------------------------------------

CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")


class _Forbidden(Exception):
    pass


def feed_item(memory: Memory, base: str = "") -> dict[str, Any]:
    text = " ".join(memory.content.split())
    return {"id": memory.id, "url": f"{base}/memories/{memory.id}", "type": memory.type,
            "location": memory.location, "tags": list(memory.tags),
            "created_at": memory.created_at.isoformat() if memory.created_at else None,
            "excerpt": text[:240] + ("…" if len(text) > 240 else "")}


def _templates() -> Environment:
    env = Environment(loader=FileSystemLoader(str(HERE / "templates")),
                      autoescape=select_autoescape(["html"], default=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["when"] = _when
    env.filters["score"] = lambda value: f"{value:.2f}" if value is not None else "–"
    env.filters["excerpt"] = _excerpt
    return env


def _when(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, str):
        parsed = _parse_time(value)
        if parsed is None:
            return value
        value = parsed
    return value.strftime("%Y-%m-%d %H:%M")


def _excerpt(text: str, width: int = 200) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _parse_time(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if not value:
        return None
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return None


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _page_number(request: Request) -> int:
    raw = request.query_params.get("page", "1")
    if not raw.isdigit() or int(raw) < 1:
        raise InvalidInputError(f"page must be a positive whole number, got {raw!r}")
    return int(raw)


def _svg(markup: str) -> Response:
    return Response(markup, media_type="image/svg+xml",
                    headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"})


def _set_cookie(response: Response, request: Request, token: str) -> None:
    response.set_cookie(COOKIE_NAME, token, httponly=True, samesite="strict",
                        secure=request.url.scheme == "https",
                        path=(request.scope.get("root_path") or "/"))


def _add_error_pages(app: FastAPI, page) -> None:
    def error_page(request: Request, status: int, title: str, message: str) -> HTMLResponse:
        if request.url.path.endswith(".svg") or request.url.path.endswith("/events"):
            return HTMLResponse(message, status_code=status)
        return page(request, "error.html", status_code=status, title=title, detail=message)

    @app.exception_handler(MemoryNotFoundError)
    @app.exception_handler(ReviewItemNotFoundError)
    async def not_found(request, exc):
        return error_page(request, 404, "Not found", str(exc))

    @app.exception_handler(InvalidInputError)
    async def bad_input(request, exc):
        return error_page(request, 400, "That did not work", str(exc))

    @app.exception_handler(_Forbidden)
    async def forbidden(request, exc):
        return error_page(request, 403, "Refused", str(exc))

    @app.exception_handler(PalaceError)
    async def palace_error(request, exc):
        return error_page(request, 500, "palace could not do that", str(exc))


class GuardMiddleware:
    """Host, token and origin checks before any route runs (plain ASGI, so that
    the event stream is not buffered)."""

    def __init__(self, app, guard: Guard):
        self.app = app
        self.guard = guard

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        request = Request(scope)
        guard = self.guard
        base = scope.get("root_path", "").rstrip("/")
        route = request.url.path[len(base):] if request.url.path.startswith(base) else request.url.path
        if not guard.host_ok(request.headers.get("host")):
            return await _plain(403, "the viewer answers only to localhost / 127.0.0.1 (this Host "
                                "header looks like another site); open it at http://127.0.0.1:PORT/",
                                scope, receive, send)
        if request.method not in ("GET", "HEAD") and not guard.same_origin(request.headers):
            return await _plain(403, "refused: this request came from another site", scope, receive, send)
        public = route.startswith("/static/") or route == "/login"
        if guard.token is not None and not public:
            given = guard.request_token(request.cookies, request.headers, dict(request.query_params))
            if not guard.token_ok(given):
                if request.method == "GET" and not route.startswith(("/feed/events", "/charts/")):
                    target = route + ("?" + request.url.query if request.url.query else "")
                    response = RedirectResponse(f"{base}/login?{urlencode({'next': target})}", status_code=303)
                else:
                    response = Response("the viewer needs its token (log in at /login, or send "
                                        "'Authorization: Bearer <token>')", status_code=401,
                                        media_type="text/plain")
                return await response(scope, receive, send)
            if "token" in request.query_params and request.method == "GET":
                # a link with ?token=: keep it in a cookie, drop it from the address bar
                rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
                response = RedirectResponse(base + route + ("?" + urlencode(rest) if rest else ""),
                                            status_code=303)
                _set_cookie(response, request, given or "")
                return await response(scope, receive, send)
        return await self.app(scope, receive, send)


async def _plain(status: int, text: str, scope, receive, send) -> None:
    response = Response(text, status_code=status, media_type="text/plain")
    await response(scope, receive, send)
