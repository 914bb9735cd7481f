"""The sidecar's middleware, plain ASGI: each must see a request before any body is
read (the token check, the body limit), or wrap everything (the catch-all, the viewer's
dispatch under /viewer)."""

from __future__ import annotations

import hmac
import logging

from fastapi.responses import RedirectResponse

from vector_service.bodies import error
from vector_service.identities import CURRENT, TokenMap

log = logging.getLogger("palace.vector_service")


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
            await error(500, "internal_error", f"{type(exc).__name__}: {exc}")(scope, receive, send)


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
            response = error(401, "unauthorized",
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
        response = error(413, "body_too_large",
                          f"request body over {self.max_bytes} bytes; send fewer or shorter texts")
        return await response(scope, receive, send)


class ViewerDispatch:
    """Hands ``prefix`` and what lies under it to the viewer app, the rest to the sidecar
    (so viewer requests reach the viewer before the API's Bearer check)."""

    def __init__(self, app, viewer, prefix: str):
        self.app = app
        self.viewer = viewer
        self.prefix = prefix

    async def __call__(self, scope, receive, send):
        route = scope.get("path", "") if scope["type"] == "http" else ""
        if route == self.prefix:
            response = RedirectResponse(self.prefix + "/", status_code=307)
            return await response(scope, receive, send)
        if route.startswith(self.prefix + "/"):
            # path stays whole; routing below strips root_path (ASGI convention)
            child = dict(scope, root_path=scope.get("root_path", "") + self.prefix)
            return await self.viewer(child, receive, send)
        return await self.app(scope, receive, send)
