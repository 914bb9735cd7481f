"""What the viewer's routes need, given to them as FastAPI dependencies: the viewer's
state (its reader over the manager, its guard, its templates) and a form whose CSRF
token has been checked. ``create_viewer_app`` puts one ``Viewer`` on ``app.state``.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape

from palace.viewer.reading import PalaceReader
from palace.viewer.security import COOKIE_NAME, CSRF_FIELD, Guard

HERE = Path(__file__).resolve().parent
FEED_POLL_S = 1.0
MESSAGES = {
    "saved": "Saved.",
    "deleted": "Moved to the trash.",
    "restored": "Restored.",
    "emptied": "The trash is empty.",
    "accepted": "Accepted: the old fact is closed and its memory marked as superseded.",
    "kept": "Kept both facts.",
}
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
PAGE_HEADERS = {"Cache-Control": "no-store", "Content-Security-Policy": CSP,
                "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin",
                "X-Frame-Options": "DENY"}


class Forbidden(Exception):
    """A form that did not come from the viewer's own pages (answered 403)."""


class Viewer:
    """One viewer: its reader over the manager, its guard, its templates, and the decay
    histogram last drawn (binning 100k scores costs ~80 ms: drawn once per new set)."""

    def __init__(self, pm_or_workspace: Any, token: str | None = None, *,
                 feed_poll_s: float = FEED_POLL_S):
        # a workspace folder: the viewer opens its own manager (keyword search only unless
        # MEMORY_VECTOR_* says otherwise) and closes it with the app
        self.owns_manager = isinstance(pm_or_workspace, (str, os.PathLike))
        if self.owns_manager:
            from palace.manager import MemoryPalaceManager

            self.pm = MemoryPalaceManager(pm_or_workspace, inprocess_vectors=False)
        else:
            self.pm = pm_or_workspace
        self.reader = PalaceReader(self.pm)
        self.guard = Guard(token)
        self.templates = _templates()
        self.feed_poll_s = feed_poll_s
        self.drawn_scores: Any = None
        self.drawn_svg = ""

    def close(self) -> None:
        if self.owns_manager:
            self.pm.close()

    def page(self, request: Request, template: str, status_code: int = 200, *,
             public: bool = False, **context: Any) -> HTMLResponse:
        """A page from ``template``; ``public`` (the login page) shows nothing of the palace."""
        rooms = None if public else self.reader.rooms()
        html = self.templates.get_template(template).render(
            base=base_path(request), csrf=self.guard.csrf_token(), csrf_field=CSRF_FIELD,
            request=request, path=request.url.path, rooms=rooms,
            message=MESSAGES.get(request.query_params.get("done", "")),
            undo_id=request.query_params.get("undo"), auth=self.guard.token is not None, **context)
        return HTMLResponse(html, status_code=status_code, headers=PAGE_HEADERS)


def base_path(request: Request) -> str:
    """Where the viewer is mounted ("" alone, "/viewer" on the sidecar)."""
    return request.scope.get("root_path", "").rstrip("/")


def back_to(request: Request, target: str, **params: str) -> RedirectResponse:
    """303 to ``target`` on this server (post/redirect/get), with the non-empty ``params``."""
    if not target.startswith("/") or target.startswith(("//", "/\\")):
        target = "/"  # never redirect off this server ("/\\host" is "//host" to browsers)
    query = urlencode({k: v for k, v in params.items() if v})
    sep = "&" if "?" in target else "?"
    return RedirectResponse(base_path(request) + target + (sep + query if query else ""),
                            status_code=303)


def set_cookie(response: Response, request: Request, token: str) -> None:
    response.set_cookie(COOKIE_NAME, token, httponly=True, samesite="strict",
                        secure=request.url.scheme == "https",
                        path=(request.scope.get("root_path") or "/"))


# --- dependencies --------------------------------------------------------------------

async def get_viewer(request: Request) -> Viewer:
    return request.app.state.viewer


async def get_reader(request: Request) -> PalaceReader:
    return request.app.state.viewer.reader


async def checked_form(request: Request, viewer: Annotated[Viewer, Depends(get_viewer)]) -> dict[str, str]:
    """The posted form, once its CSRF token shows it came from one of our pages."""
    form = await request.form()
    data = {key: str(value) for key, value in form.items()}
    if not viewer.guard.csrf_ok(data.get(CSRF_FIELD)):
        raise Forbidden("this form is out of date or did not come from the viewer; reload the page "
                        "and try again")
    return data


ViewerDep = Annotated[Viewer, Depends(get_viewer)]
ReaderDep = Annotated[PalaceReader, Depends(get_reader)]
CheckedForm = Annotated[dict[str, str], Depends(checked_form)]


# --- templates -----------------------------------------------------------------------

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
        parsed = parse_time(value)
        if parsed is None:
            return value
        value = parsed
    return value.strftime("%Y-%m-%d %H:%M")


def _excerpt(text: str, width: int = 200) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def parse_time(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if not value:
        return None
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return None
