"""Which addresses stay on this machine: the rule the sidecar and the viewer share
before they listen anywhere without a token."""

from __future__ import annotations

import ipaddress

from palace.errors import ConfigError


def is_loopback(host: str) -> bool:
    """True for localhost (and *.localhost) and loopback IPs; a host name other than
    localhost may resolve to anything, so it counts as reachable from elsewhere."""
    host = host.strip().lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind_address(host: str, token: object, *, serving: str, how_to_set_token: str) -> None:
    """Refuse to listen beyond this machine without a token (the one rule of every
    server palace runs). ``serving``: what is refused ("serve the viewer", "listen");
    ``how_to_set_token``: where this server takes its token, for the fix."""
    if not is_loopback(host) and not token:
        raise ConfigError(
            f"refusing to {serving} on {host}: it is reachable from other machines and anyone "
            f"there could read, change and delete your memories. Set a token ({how_to_set_token}), "
            "or listen on loopback only (--host 127.0.0.1)")
