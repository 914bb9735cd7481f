"""Which addresses stay on this machine: the rule the sidecar and the viewer share
before they listen anywhere without a token."""

from __future__ import annotations

import ipaddress


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
