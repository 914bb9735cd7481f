"""The viewer's edits and its login: HTML form posts that go through the manager.

Each answers with a redirect (post/redirect/get), so a reload never posts twice. Every
form but the login carries the CSRF token (``CheckedForm``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from palace.errors import InvalidInputError, MemoryNotFoundError
from palace.models import Memory
from palace.viewer.deps import CheckedForm, ReaderDep, ViewerDep, back_to, set_cookie
from palace.viewer.reading import parse_tags
from palace.viewer.security import COOKIE_NAME

edits = APIRouter()
login = APIRouter()


@edits.post("/memories/{memory_id}/edit")
async def edit_memory(request: Request, memory_id: str, form: CheckedForm, reader: ReaderDep):
    memory, _history, _trashed = await run_in_threadpool(reader.memory, memory_id)
    if memory is None:
        raise MemoryNotFoundError(memory_id)
    changes = _changes(form, memory)
    if changes:
        await run_in_threadpool(reader.update, memory_id, **changes)
    return back_to(request, f"/memories/{memory_id}", done="saved")


def _changes(form: dict[str, str], memory: Memory) -> dict[str, Any]:
    """What the edit form changes (a field left as it was is no change)."""
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
    return changes


@edits.post("/memories/{memory_id}/delete")
async def delete_memory(request: Request, memory_id: str, form: CheckedForm, reader: ReaderDep):
    await run_in_threadpool(reader.delete, memory_id)
    return back_to(request, form.get("next") or "/trash", done="deleted", undo=memory_id)


@edits.post("/memories/{memory_id}/restore")
async def restore_memory(request: Request, memory_id: str, form: CheckedForm, reader: ReaderDep):
    await run_in_threadpool(reader.restore, memory_id)
    return back_to(request, form.get("next") or f"/memories/{memory_id}", done="restored")


@edits.post("/review/{item_id}/{verdict}")
async def resolve_review(request: Request, item_id: str, verdict: str, _form: CheckedForm,
                         reader: ReaderDep):
    if verdict not in ("accept", "reject"):
        raise InvalidInputError(f"a review item is accepted or rejected, not {verdict!r}")
    await run_in_threadpool(reader.resolve_review, item_id, accept=verdict == "accept")
    return back_to(request, "/review", done="accepted" if verdict == "accept" else "kept")


@edits.post("/trash/empty")
async def empty_trash(request: Request, form: CheckedForm, reader: ReaderDep):
    if form.get("confirm") != "yes":
        raise InvalidInputError("tick the box to confirm: emptying the trash deletes those files for good")
    await run_in_threadpool(reader.empty_trash)
    return back_to(request, "/trash", done="emptied")


@login.get("/login", response_class=HTMLResponse)
def login_page(request: Request, viewer: ViewerDep, next: str = "/", failed: str = ""):
    return viewer.page(request, "login.html", public=True, next=next, failed=bool(failed))


@login.post("/login")
async def log_in(request: Request, viewer: ViewerDep):
    form = await request.form()  # no CSRF token yet: the token itself is the proof
    given, target = str(form.get("token", "")), str(form.get("next", "/")) or "/"
    if not viewer.guard.token_ok(given):
        return back_to(request, "/login", next=target, failed="1")
    response = back_to(request, target)
    set_cookie(response, request, given)
    return response


@login.post("/logout")
async def log_out(request: Request, _form: CheckedForm):
    response = back_to(request, "/login")
    response.delete_cookie(COOKIE_NAME, path=(request.scope.get("root_path") or "/"))
    return response
