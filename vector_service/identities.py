"""Who a sidecar client is: its Bearer token, mapped to an agent, a user and a scope.

``MEMORY_SIDECAR_TOKENS`` names a JSON file::

    {"tokens": [
        {"token": "s3cret-alice", "agent": "alice", "scope": "agent:alice"},
        {"sha256": "<hex digest of bob's token>", "agent": "bob", "user": "zhang"}
    ]}

``agent`` and ``user`` are what ``MEMORY_AGENT_ID`` / ``MEMORY_USER_ID`` would be for
that client, ``scope`` what ``MEMORY_SCOPE`` would be (the scope of what it stores;
default ``team``). A token may be written as its SHA-256 digest, so the file need not
hold secrets. ``MEMORY_VECTOR_SERVICE_TOKEN``, when set, stays the token of the
sidecar's own identity (its MEMORY_* settings). Each identity gets its own manager, so
the database's row-level security sees that agent on every query; scopes are kept apart
only by the postgres backend, so a tokens file with the local backend is refused.
"""

from __future__ import annotations

import contextvars
import hashlib
import hmac
import json
from dataclasses import dataclass
from pathlib import Path

from palace.errors import ConfigError
from palace.settings import Settings


@dataclass(frozen=True)
class Identity:
    agent_id: str | None = None
    user_id: str | None = None
    scope: str = "team"

    def settings_for(self, base: Settings) -> Settings:
        return base.replace(agent_id=self.agent_id, user_id=self.user_id, scope=self.scope)


# the identity of the request being served (set by the token check, read by provider())
CURRENT: contextvars.ContextVar[Identity | None] = contextvars.ContextVar("palace_sidecar_identity",
                                                                           default=None)


def _digest(token: bytes) -> bytes:
    return hashlib.sha256(token).digest()


class TokenMap:
    """Tokens (as SHA-256 digests, compared in constant time) → identities."""

    def __init__(self, entries: list[tuple[bytes, Identity]]):
        self.entries = entries

    def identity(self, token: bytes) -> Identity | None:
        given = _digest(token)
        found = None
        for digest, identity in self.entries:  # every entry, so timing says nothing of position
            if hmac.compare_digest(given, digest):
                found = identity
        return found

    @classmethod
    def load(cls, path: str | Path) -> "TokenMap":
        source = Path(path).expanduser()
        try:
            data = json.loads(source.read_text("utf-8"))
        except OSError as exc:
            raise ConfigError(f"MEMORY_SIDECAR_TOKENS: cannot read {source} ({exc.strerror})") from None
        except json.JSONDecodeError as exc:
            raise ConfigError(f"MEMORY_SIDECAR_TOKENS: {source} is not JSON ({exc})") from None
        items = data.get("tokens") if isinstance(data, dict) else None
        if not isinstance(items, list) or not items:
            raise ConfigError(f'MEMORY_SIDECAR_TOKENS: {source} needs {{"tokens": [{{"token": …, "agent": …}}]}}')
        entries = []
        for number, item in enumerate(items):
            where = f"MEMORY_SIDECAR_TOKENS: {source}, tokens[{number}]"
            if not isinstance(item, dict) or set(item) - {"token", "sha256", "agent", "user", "scope"}:
                raise ConfigError(f"{where}: an object with token (or sha256), agent, user, scope")
            entries.append((_entry_digest(item, where), _identity(item, where)))
        if len({digest for digest, _ in entries}) != len(entries):
            raise ConfigError(f"MEMORY_SIDECAR_TOKENS: {source} lists one token twice")
        return cls(entries)


def _entry_digest(item: dict, where: str) -> bytes:
    if isinstance(item.get("token"), str) and len(item["token"]) >= 16 and "sha256" not in item:
        return _digest(item["token"].encode("utf-8"))
    if isinstance(item.get("sha256"), str) and "token" not in item:
        try:
            digest = bytes.fromhex(item["sha256"])
        except ValueError:
            digest = b""
        if len(digest) == 32:
            return digest
    raise ConfigError(f"{where}: give token (16 characters or more) or sha256 (its 64 hex digits), one of them")


def _identity(item: dict, where: str) -> Identity:
    env = {"MEMORY_AGENT_ID": str(item.get("agent") or ""), "MEMORY_USER_ID": str(item.get("user") or ""),
           "MEMORY_SCOPE": str(item.get("scope") or "team")}
    try:  # the same rules as the settings they stand for
        parsed = Settings.from_env(env)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    if not parsed.agent_id and not parsed.user_id:
        raise ConfigError(f"{where}: say who the token is (agent, and/or user)")
    return Identity(parsed.agent_id, parsed.user_id, parsed.scope)


def load_for(settings: Settings) -> TokenMap | None:
    """The tokens file of ``settings``, checked; None without one."""
    if not settings.sidecar_tokens:
        return None
    if settings.backend != "postgres":
        raise ConfigError("MEMORY_SIDECAR_TOKENS gives each client its own scope, and only the postgres "
                          "backend keeps scopes apart: set MEMORY_BACKEND=postgres, or use one "
                          "MEMORY_VECTOR_SERVICE_TOKEN for a local palace")
    return TokenMap.load(settings.sidecar_tokens)
