"""Who may look and who may change: the viewer's token, Host and CSRF rules.

The viewer shows every memory and can delete them, so it follows the sidecar's
rule: it listens on loopback unless a token is set, and with a token every request
needs it (a cookie set by the login form or by ``?token=``, or an
``Authorization: Bearer`` header). Two attacks a loopback server still faces from
the user's own browser are closed as well:

* DNS rebinding (a web page whose host name re-resolves to 127.0.0.1): without a
  token only loopback Host headers are served.
* Cross-site form posts: every edit carries a form token only our pages know, and a
  request whose Origin (or Referer) is another site is refused.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from urllib.parse import urlsplit

from palace.network import is_loopback

COOKIE_NAME = "palace_viewer_token"
CSRF_FIELD = "csrf"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})


def host_name(host_header: str) -> str:
    """The name part of a Host header ("127.0.0.1:8770" → "127.0.0.1", "[::1]:80" → "::1")."""
    host_header = host_header.strip().lower()
    if host_header.startswith("["):
        return host_header[1:].split("]", 1)[0]
    return host_header.rsplit(":", 1)[0] if host_header.count(":") == 1 else host_header


class Guard:
    """The checks for one viewer instance (its token and its form secret)."""

    def __init__(self, token: str | None):
        self.token = token or None
        # Per process: a restart invalidates open forms, which only means a reload.
        self._secret = secrets.token_bytes(32)

    # -- the token ---------------------------------------------------------------

    def token_ok(self, given: str | None) -> bool:
        if self.token is None:
            return True
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def request_token(self, cookies: dict[str, str], headers, query: dict[str, str]) -> str | None:
        auth = headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            return auth[7:].strip()
        return query.get("token") or cookies.get(COOKIE_NAME)

    def host_ok(self, host_header: str | None) -> bool:
        """Without a token only loopback names are served (DNS rebinding)."""
        if self.token is not None:
            return True
        return host_header is not None and is_loopback(host_name(host_header))

    # -- forms -------------------------------------------------------------------

    def csrf_token(self) -> str:
        # Bound to the viewer token too, so a token change invalidates old forms.
        return hmac.new(self._secret, (self.token or "").encode(), hashlib.sha256).hexdigest()

    def csrf_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given, self.csrf_token())

    @staticmethod
    def same_origin(headers) -> bool:
        """A browser names the page a POST came from; it must be this server.
        No Origin and no Referer (curl, old clients) is left to the form token."""
        host = headers.get("host", "")
        origin = headers.get("origin")
        if origin and origin != "null":
            parts = urlsplit(origin)
            return parts.netloc.lower() == host.lower() and parts.scheme in ("http", "https")
        if origin == "null":
            return False
        referer = headers.get("referer")
        if referer:
            return urlsplit(referer).netloc.lower() == host.lower()
        return True
