"""``POST /capture`` on the sidecar: agent events and hook payloads into the palace
(palace/capture; see docs/capture.md).

``{source?, events: [payload…]}`` → ``{accepted, stored, skipped, errors, observations,
sessions}``. A bad item is reported in ``errors`` ({index, error, message}); the rest go
in. A batch sent again with the same ``Idempotency-Key`` (a retry after a timeout) gets
the first answer with ``duplicate: true`` and captures nothing twice.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict
from starlette.concurrency import run_in_threadpool

from palace.errors import InvalidInputError
from vector_service.bodies import json_body
from vector_service.sidecar import Sidecar, SidecarDep

MAX_CAPTURE_EVENTS = 1000
# A client that timed out may send a batch again (the OpenClaw plugin does): a batch
# that carries an Idempotency-Key already answered gets that answer, not a second run.
IDEMPOTENCY_HEADER = "idempotency-key"
MAX_IDEMPOTENCY_KEY_CHARS = 200
REMEMBERED_CAPTURE_KEYS = 512


class CaptureRequest(BaseModel):
    # strict: a number is not a string; forbid: a misspelt key is an error, not ignored.
    model_config = ConfigDict(extra="forbid", strict=True)

    source: Literal["claude-code", "openclaw", "palace", "jsonl"] | None = None
    events: list[Any]


async def idempotency_key(http: Request) -> str | None:
    """The batch's Idempotency-Key header, checked before its body is read."""
    key = http.headers.get(IDEMPOTENCY_HEADER)
    if key is not None and not (0 < len(key) <= MAX_IDEMPOTENCY_KEY_CHARS and key.isprintable()):
        raise InvalidInputError(f"the Idempotency-Key header must be 1-{MAX_IDEMPOTENCY_KEY_CHARS} "
                                "printable characters")
    return key


capture_routes = APIRouter()


@capture_routes.post("/capture")
async def capture(key: Annotated[str | None, Depends(idempotency_key)],
                         request: Annotated[CaptureRequest, Depends(json_body(CaptureRequest))],
                         sidecar: SidecarDep) -> JSONResponse:
    if len(request.events) > MAX_CAPTURE_EVENTS:
        raise InvalidInputError(
            f"events holds {len(request.events)} items; at most {MAX_CAPTURE_EVENTS} per call, "
            "so send them in batches")
    result = await run_in_threadpool(_capture_once, sidecar, key, request)
    return JSONResponse({"accepted": result["accepted"], "stored": result["stored"],
                         "skipped": result["skipped"], "errors": result["errors"],
                         "observations": result["observations"],
                         "sessions": result["sessions"],
                         **({"duplicate": True} if result.get("duplicate") else {})})


def _capture_once(sidecar: Sidecar, key: str | None, request: CaptureRequest) -> dict[str, Any]:
    from palace.capture.service import capture_payloads

    memories = sidecar.provider()  # opens the palace on first use
    remembered = (id(memories), key) if key else None  # one palace's keys per sidecar scope
    answered = sidecar.captured
    # the manager's connection is shared with /search and /index: take the provider's
    # lock so a capture never interleaves with them (and a retry waits for the first
    # attempt to finish, then finds its answer)
    with getattr(memories, "_lock", None) or sidecar.capture_lock:
        if remembered is not None and remembered in answered:
            return {**answered[remembered], "duplicate": True}
        result = capture_payloads(memories.manager, request.source, request.events)
        if remembered:
            answered[remembered] = result
            while len(answered) > REMEMBERED_CAPTURE_KEYS:
                answered.popitem(last=False)
        return result
