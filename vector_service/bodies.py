"""Request bodies, read strictly whatever their Content-Type, and the sidecar's error
shape (``{"error": code, "message": text}``): shared by app.py and host_api.py.

``json_body(Model)`` is the FastAPI dependency a route declares for its body:
``request: Annotated[EmbedRequest, Depends(json_body(EmbedRequest))]``.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Awaitable, Callable, TypeVar

from fastapi import Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError

from palace.errors import InvalidInputError

# parse returns the very request class it was given (for the type checker)
BodyT = TypeVar("BodyT", bound=BaseModel)


async def parse(request: Request, model: type[BodyT]) -> BodyT:
    """The body as ``model``, whatever Content-Type it came with: fetch() sends a
    string body as text/plain unless told otherwise, and that should still work."""
    raw = await request.body()
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        raise InvalidInputError(describe(exc.errors())) from None


@cache  # one dependency per model, so FastAPI sees the same callable on every route
def json_body(model: type[BodyT]) -> Callable[[Request], Awaitable[BodyT]]:
    """The dependency that parses a route's body as ``model`` (a 400 when it does not fit)."""
    async def parsed(request: Request) -> BodyT:
        return await parse(request, model)

    parsed.__name__ = f"body_{model.__name__}"
    return parsed


def describe(errors: Any) -> str:
    problems = []
    for error in list(errors)[:5]:
        where = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
        problems.append(f"{where or 'body'}: {error.get('msg')}")
    return "; ".join(problems)


def error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status, headers=headers)
