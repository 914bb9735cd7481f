"""One entry point for batches of raw payloads, shared by ``palace capture``, the
sidecar's ``POST /capture`` and the MCP server: adapt each payload, capture the
events, report per item. A bad item is reported and the rest still go in; no
message quotes the payload (it may hold a secret)."""

from __future__ import annotations

from typing import Any, Iterable

from palace.errors import InvalidInputError, PalaceError
from palace.capture.events import Event, adapt
from palace.capture.pipeline import Capturer
from palace.features.palace_api import Palace


def capture_payloads(pm: Palace, source: str | None, items: Iterable[Any], *,
                     defer: bool = False) -> dict[str, Any]:
    """``{accepted, stored, skipped, errors}``: payloads understood, memories written
    (created or updated), payloads or events that left nothing to keep (informational
    hooks, exclusions, trivial turns), and ``{index, error, message}`` per bad item.
    ``defer``: the events only join their session's spool (``Capturer.capture``)."""
    events: list[Event] = []
    errors: list[dict[str, Any]] = []
    accepted = skipped = 0
    for index, item in enumerate(items):
        if isinstance(item, Exception):
            errors.append({"index": index, "error": "invalid_json", "message": str(item)})
            continue
        try:
            adapted = adapt(source, item)
        except InvalidInputError as exc:
            errors.append({"index": index, "error": "invalid_event", "message": str(exc)})
            continue
        except Exception as exc:  # a shape we did not foresee: say which item, not what it held
            errors.append({"index": index, "error": "invalid_event",
                           "message": f"could not read this payload ({type(exc).__name__})"})
            continue
        accepted += 1
        if not adapted:
            skipped += 1
        events.extend(adapted)
    capturer = Capturer(pm)
    try:
        with pm.writes_batched():
            report = capturer.capture(events, defer=defer)
    except PalaceError as exc:
        errors.append({"index": None, "error": "capture_failed", "message": str(exc)})
        report = capturer.report
    data = report.to_dict()
    return {"accepted": accepted, "stored": data["stored"], "skipped": skipped + data["skipped"],
            "errors": errors, "observations": data["observations"], "sessions": data["sessions"],
            "tasks": data["tasks"], "redacted": data["redacted"]}


def drain_sessions(pm: Palace, sessions: Iterable[str]) -> dict[str, Any]:
    """Store the turns that deferred captures (``defer=True``) ended in these sessions."""
    with pm.writes_batched():
        report = Capturer(pm).drain(sessions)
    data = report.to_dict()
    return {"stored": data["stored"], "observations": data["observations"],
            "sessions": data["sessions"], "tasks": data["tasks"]}
