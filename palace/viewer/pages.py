"""The viewer's read-only routes: pages, the live feed's event stream and the charts."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import yaml
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response, StreamingResponse
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from palace.errors import InvalidInputError, MemoryNotFoundError, PalaceError
from palace.models import Memory
from palace.viewer import charts
from palace.viewer.deps import ReaderDep, ViewerDep, base_path, parse_time
from palace.viewer.rendering import render_markdown

FEED_KEEPALIVE_S = 15.0

pages = APIRouter()


@pages.get("/", response_class=HTMLResponse)
def home(request: Request, viewer: ViewerDep, room: str = "", status: str = "active"):
    page_number = _page_number(request)
    if status not in ("active", "archived"):
        raise InvalidInputError("status must be active or archived")
    reader = viewer.reader
    memories, more = reader.page(page=page_number, room=room or None, status=status)
    return viewer.page(request, "home.html", memories=memories, more=more, page_number=page_number,
                       tree=reader.tree(status), room=room, status=status, now=reader.now())


@pages.get("/memories/{memory_id}", response_class=HTMLResponse)
def memory_page(request: Request, viewer: ViewerDep, memory_id: str):
    reader = viewer.reader
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
    extra = {k: v for k, v in shown.extra.items() if k not in ("entities", "relations", "verifications")}
    return viewer.page(
        request, "memory.html", memory=shown, in_trash=memory is None, history=history,
        curve=curve, svg=Markup(curve.svg) if curve else None, body=render_markdown(shown.content),
        summary=render_markdown(shown.summary) if shown.summary else None,
        entities=_as_list(shown.extra.get("entities")),
        relations=[r for r in _as_list(shown.extra.get("relations")) if isinstance(r, dict)],
        extra_yaml=yaml.safe_dump(extra, allow_unicode=True, sort_keys=True,
                                  default_flow_style=False) if extra else "",
        experience=_experience(reader, shown, memory), now=now,
        threshold=reader.decay_params.archive_threshold)


def _experience(reader, shown: Memory, memory: Memory | None) -> dict[str, Any] | None:
    """A lesson's effectiveness and its verifications (live experiences only)."""
    if shown.type != "experience" or memory is None:
        return None
    from palace.features.experiences import read_verifications

    stats = reader.call(reader.pm.experiences.stats, memory.id)
    return {"stats": stats, "verifications": read_verifications(memory.extra)}


@pages.get("/search", response_class=HTMLResponse)
def search_page(request: Request, viewer: ViewerDep, q: str = "", room: str = "",
                archived: str = "", strong: str = ""):
    view, timeline, error = None, None, None
    if q.strip():
        try:
            view = viewer.reader.search(q, room=room or None, include_archived=bool(archived),
                                        include_weak=not strong)
        except InvalidInputError as exc:
            error = str(exc)
        if view is not None and view.time_range:
            timeline = _timeline(view)
    return viewer.page(request, "search.html", q=q, room=room, archived=bool(archived),
                       strong=bool(strong), view=view, timeline=timeline, error=error)


def _timeline(view) -> Markup:
    """The period a query's time words named, with where each result falls."""
    start = parse_time(view.time_range.get("start"))
    end = parse_time(view.time_range.get("end"))
    hits = [(r.memory.created_at, (r.explanation.time_range or {}).get("placement"))
            for r in view.results if r.memory.created_at is not None]
    return Markup(charts.query_timeline(start=start, end=end, now=view.now, hits=hits,
                                        label=view.time_range.get("text")))


@pages.get("/trash", response_class=HTMLResponse)
def trash_page(request: Request, viewer: ViewerDep):
    return viewer.page(request, "trash.html", memories=viewer.reader.trash())


@pages.get("/experiences", response_class=HTMLResponse)
def experiences_page(request: Request, viewer: ViewerDep):
    from palace.features.experiences import read_verifications

    items = [(result, read_verifications(result.memory.extra)) for result in viewer.reader.experiences()]
    return viewer.page(request, "experiences.html", items=items)


@pages.get("/review", response_class=HTMLResponse)
def review_page(request: Request, viewer: ViewerDep):
    return viewer.page(request, "review.html", items=viewer.reader.review())


@pages.get("/feed", response_class=HTMLResponse)
def feed_page(request: Request, viewer: ViewerDep, q: str = ""):
    memories = viewer.reader.newest()
    preview, preview_error = None, None
    try:
        preview = viewer.reader.bootstrap_preview(q)
    except PalaceError as exc:
        preview_error = str(exc)
    return viewer.page(request, "feed.html", memories=memories, seen=",".join(m.id for m in memories),
                       preview=preview, preview_error=preview_error, q=q)


@pages.get("/feed/events")
async def feed_events(request: Request, viewer: ViewerDep, seen: str = ""):
    known = {part for part in seen.split(",") if part}
    base = base_path(request)

    async def stream():
        yield "retry: 2000\n\n"
        beat = time.monotonic()
        while True:
            newest = await run_in_threadpool(viewer.reader.newest)
            for memory in reversed([m for m in newest if m.id not in known]):
                known.add(memory.id)
                data = json.dumps(feed_item(memory, base), ensure_ascii=False)
                yield f"event: memory\nid: {memory.id}\ndata: {data}\n\n"
            if time.monotonic() - beat > FEED_KEEPALIVE_S:
                beat = time.monotonic()
                yield ": keep-alive\n\n"
            if await request.is_disconnected():
                return
            await asyncio.sleep(viewer.feed_poll_s)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def feed_item(memory: Memory, base: str = "") -> dict[str, Any]:
    text = " ".join(memory.content.split())
    return {"id": memory.id, "url": f"{base}/memories/{memory.id}", "type": memory.type,
            "location": memory.location, "tags": list(memory.tags),
            "created_at": memory.created_at.isoformat() if memory.created_at else None,
            "excerpt": text[:240] + ("…" if len(text) > 240 else "")}


@pages.get("/charts/decay.svg")
def decay_chart(viewer: ViewerDep):
    snapshot = viewer.reader.decay_scores()
    if viewer.drawn_scores is not snapshot:  # binning 100k scores costs ~80 ms: once per new set
        scores, computed_at = snapshot
        viewer.drawn_svg = charts.decay_histogram(scores, viewer.reader.decay_params.archive_threshold,
                                                  as_of=computed_at)
        viewer.drawn_scores = snapshot
    return _svg(viewer.drawn_svg)


@pages.get("/charts/rooms.svg")
def rooms_chart(reader: ReaderDep):
    return _svg(charts.rooms_over_time(reader.created_per_month()))


def _svg(markup: str) -> Response:
    return Response(markup, media_type="image/svg+xml",
                    headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"})


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _page_number(request: Request) -> int:
    raw = request.query_params.get("page", "1")
    if not raw.isdigit() or int(raw) < 1:
        raise InvalidInputError(f"page must be a positive whole number, got {raw!r}")
    return int(raw)
