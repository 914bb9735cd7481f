"""The viewer's web app: server-rendered pages over a ``PalaceReader``.

``create_viewer_app(pm_or_workspace, token=None)`` returns an ASGI app (FastAPI).
Pages: ``/`` rooms and memories, ``/memories/<id>``, ``/search?q=``, ``/trash``,
``/experiences``, ``/review`` (the graph's review queue), ``/feed`` (live feed by server-sent events and the bootstrap
preview), and ``/charts/*.svg`` (routes: palace/viewer/pages.py). Edits are HTML form
posts that go through the manager; each answers with a redirect (post/redirect/get), so
reload is safe (routes: palace/viewer/edits.py). What routes need comes to them as
dependencies (palace/viewer/deps.py).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.staticfiles import StaticFiles

from palace.errors import InvalidInputError, MemoryNotFoundError, PalaceError, ReviewItemNotFoundError
from palace.viewer.deps import FEED_POLL_S, HERE, Forbidden, Viewer, base_path, set_cookie
from palace.viewer.edits import edits, login
from palace.viewer.pages import feed_item, pages
from palace.viewer.security import Guard

__all__ = ["create_viewer_app", "feed_item", "GuardMiddleware"]


def create_viewer_app(pm_or_workspace: Any, token: str | None = None, *,
                      feed_poll_s: float = FEED_POLL_S) -> FastAPI:
    """The viewer over a MemoryPalaceManager, or over a workspace folder (a manager
    is opened on it, with keyword search only unless MEMORY_VECTOR_* says otherwise,
    and closed with the app)."""
    viewer = Viewer(pm_or_workspace, token, feed_poll_s=feed_poll_s)
    app = FastAPI(title="palace viewer", lifespan=_lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None)
    app.state.viewer = viewer
    app.state.reader = viewer.reader
    app.state.guard = viewer.guard
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    for router in (pages, edits, login):
        app.include_router(router)
    for error, handler in ERROR_PAGES.items():
        app.add_exception_handler(error, handler)
    app.add_middleware(GuardMiddleware, guard=viewer.guard)
    return app


async def _lifespan(app: FastAPI):
    yield
    app.state.viewer.close()  # the manager, if the viewer opened it


# --- error pages ----------------------------------------------------------------------

def _error_page(request: Request, status: int, title: str, message: str) -> HTMLResponse:
    if request.url.path.endswith(".svg") or request.url.path.endswith("/events"):
        return HTMLResponse(message, status_code=status)
    viewer: Viewer = request.app.state.viewer
    return viewer.page(request, "error.html", status_code=status, title=title, detail=message)


async def _not_found(request: Request, exc: Exception) -> Response:
    return _error_page(request, 404, "Not found", str(exc))


async def _bad_input(request: Request, exc: Exception) -> Response:
    return _error_page(request, 400, "That did not work", str(exc))


async def _forbidden(request: Request, exc: Exception) -> Response:
    return _error_page(request, 403, "Refused", str(exc))


async def _palace_error(request: Request, exc: Exception) -> Response:
    return _error_page(request, 500, "palace could not do that", str(exc))


ERROR_PAGES = {MemoryNotFoundError: _not_found, ReviewItemNotFoundError: _not_found,
               InvalidInputError: _bad_input, Forbidden: _forbidden, PalaceError: _palace_error}


# --- the guard ------------------------------------------------------------------------

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
        if not guard.host_ok(request.headers.get("host")):
            return await _plain(403, "the viewer answers only to localhost / 127.0.0.1 (this Host "
                                "header looks like another site); open it at http://127.0.0.1:PORT/",
                                scope, receive, send)
        if request.method not in ("GET", "HEAD") and not guard.same_origin(request.headers):
            return await _plain(403, "refused: this request came from another site", scope, receive, send)
        refusal = self._token_refusal(request)
        if refusal is not None:
            return await refusal(scope, receive, send)
        return await self.app(scope, receive, send)

    def _token_refusal(self, request: Request) -> Response | None:
        """With a token: a login redirect or a 401 when it is missing, a redirect that keeps
        a ``?token=`` in a cookie; None when the request may go on."""
        guard = self.guard
        base = base_path(request)
        path = request.url.path
        route = path[len(base):] if path.startswith(base) else path
        if guard.token is None or route.startswith("/static/") or route == "/login":
            return None
        given = guard.request_token(request.cookies, request.headers, dict(request.query_params))
        if not guard.token_ok(given):
            if request.method == "GET" and not route.startswith(("/feed/events", "/charts/")):
                target = route + ("?" + request.url.query if request.url.query else "")
                return RedirectResponse(f"{base}/login?{urlencode({'next': target})}", status_code=303)
            return Response("the viewer needs its token (log in at /login, or send "
                            "'Authorization: Bearer <token>')", status_code=401, media_type="text/plain")
        if "token" in request.query_params and request.method == "GET":
            # a link with ?token=: keep it in a cookie, drop it from the address bar
            rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
            response = RedirectResponse(base + route + ("?" + urlencode(rest) if rest else ""),
                                        status_code=303)
            set_cookie(response, request, given or "")
            return response
        return None


async def _plain(status: int, text: str, scope, receive, send) -> None:
    response = Response(text, status_code=status, media_type="text/plain")
    await response(scope, receive, send)
