"""Checks on everything a caller can hand palace that ends up in a path or a file.

Ids and locations become file and folder names, so they are the first line of
defence against path traversal; content and tags end up in YAML and Markdown.
"""

from __future__ import annotations

import math
import re
import unicodedata
from datetime import date, datetime, timezone, tzinfo
from typing import Any

from palace import limits
from palace.errors import ConfigError, InvalidInputError
from palace.limits import MAX_LOCATION_DEPTH, MAX_ROOM_NAME_BYTES, MAX_TAG_CHARS, MAX_TAGS

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,%d}$" % (limits.MAX_ID_CHARS - 1))
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_BAD_SEGMENT_CHARS = re.compile(r'[\x00-\x1f\x7f\\:*?"<>|]')
__all__ = ["MAX_LOCATION_DEPTH", "MAX_ROOM_NAME_BYTES", "MAX_TAGS", "MAX_TAG_CHARS"]  # re-exported


def validate_id(memory_id: object, what: str = "memory id") -> str:
    """The one check of an id (a memory's, a review item's…) every entry point takes:
    library, CLI, MCP and sidecar alike. ``what`` names the kind in the message."""
    if not isinstance(memory_id, str) or not ID_PATTERN.match(memory_id) or ".." in memory_id:
        raise InvalidInputError(
            f"invalid {what} {str(memory_id)[:80]!r}: use 1-128 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit (no '/', no '..')"
        )
    if memory_id.lower().endswith(".md"):
        raise InvalidInputError(f"invalid {what} {memory_id!r}: drop the '.md' suffix")
    return memory_id


def normalize_location(location: object) -> str:
    """``"projects/palace"`` style room path; nested rooms allowed, nothing that escapes."""
    if not isinstance(location, str):
        raise InvalidInputError(f"location must be a string, got {type(location).__name__}")
    value = unicodedata.normalize("NFC", location.strip()).replace("\\", "/")
    if value.startswith("/") or re.match(r"^[A-Za-z]:", value):
        raise InvalidInputError(
            f"invalid location {location!r}: use a relative room path like 'projects/palace'"
        )
    segments = [s.strip() for s in value.strip("/").split("/")]
    if not value.strip("/") or any(not s for s in segments):
        raise InvalidInputError(
            f"invalid location {location!r}: empty room name; use e.g. 'general' or 'projects/palace'"
        )
    if len(segments) > MAX_LOCATION_DEPTH:
        raise InvalidInputError(
            f"invalid location {location!r}: nested deeper than {MAX_LOCATION_DEPTH} rooms"
        )
    for segment in segments:
        if segment in (".", "..") or segment.startswith("."):
            raise InvalidInputError(
                f"invalid location {location!r}: room names may not be '.', '..' or start "
                "with '.' (those names are reserved for palace's own folders)"
            )
        if _BAD_SEGMENT_CHARS.search(segment):
            raise InvalidInputError(
                f"invalid location {location!r}: room names may not contain control "
                'characters or any of \\ : * ? " < > |'
            )
        if len(segment) > limits.MAX_ROOM_NAME_CHARS:
            raise InvalidInputError(
                f"invalid location {location[:60]!r}…: room names must be at most "
                f"{limits.MAX_ROOM_NAME_CHARS} characters")
        size = len(segment.encode("utf-8"))
        if size > MAX_ROOM_NAME_BYTES:
            # a room is a folder: file systems allow 255 bytes per name, not characters
            raise InvalidInputError(
                f"invalid location {location[:60]!r}…: the room name {segment[:20]!r}… is {size} "
                f"bytes of UTF-8, over the {MAX_ROOM_NAME_BYTES}-byte limit; use a shorter name"
            )
    return "/".join(segments)


def validate_content(content: object, *, max_bytes: int) -> str:
    if not isinstance(content, str):
        raise InvalidInputError(
            f"content must be text, got {type(content).__name__}; decode bytes first"
        )
    if "\x00" in content:
        raise InvalidInputError("content contains NUL bytes: binary data cannot be stored as a memory")
    # A stray escape or form feed is normal in pasted terminal output; a text full of
    # control characters is binary data in disguise.
    controls = len(_CONTROL.findall(content))
    if controls and controls > max(3, len(content) // 100):
        raise InvalidInputError(
            f"content has {controls} control characters: it looks binary; store a text "
            "description (or the path of the file) instead"
        )
    text = content.replace("\r\n", "\n").strip("\n")
    if not text.strip():
        raise InvalidInputError("content is empty: a memory needs some text")
    size = len(text.encode("utf-8"))
    if size > max_bytes:
        raise InvalidInputError(
            f"content is {size} bytes, over the {max_bytes}-byte limit "
            "(MEMORY_MAX_CONTENT_BYTES); split it into several memories or raise the limit"
        )
    return text


def validate_summary(summary: object, *, max_bytes: int) -> str | None:
    if summary is None:
        return None
    text = validate_content(summary, max_bytes=max_bytes)
    if re.search(r"^#{1,6}[ \t]", text, re.M):
        # the summary is the file's last section: a heading inside it would end it
        raise InvalidInputError("summary may not contain Markdown heading lines ('# …'); "
                                "use plain text or bold for its title")
    return text


def normalize_tags(tags: object) -> tuple[str, ...]:
    if tags is None:
        return ()
    if isinstance(tags, str):
        tags = [t for t in re.split(r"[,，]", tags)]
    if not isinstance(tags, (list, tuple, set, frozenset)):
        raise InvalidInputError(f"tags must be a list of strings, got {type(tags).__name__}")
    seen: dict[str, None] = {}
    for tag in tags:
        if not isinstance(tag, (str, int, float)) or isinstance(tag, bool):
            raise InvalidInputError(f"tag {tag!r} is not a string")
        text = unicodedata.normalize("NFC", str(tag)).strip()
        if not text:
            continue
        if _CONTROL.search(text) or "\n" in text or len(text) > MAX_TAG_CHARS:
            raise InvalidInputError(
                f"invalid tag {text[:80]!r}: one line, no control characters, "
                f"at most {MAX_TAG_CHARS} characters"
            )
        seen.setdefault(text, None)
    if len(seen) > MAX_TAGS:
        raise InvalidInputError(f"{len(seen)} tags is too many (at most {MAX_TAGS})")
    return tuple(seen)


def validate_importance(importance: object) -> float:
    try:
        value = float(importance)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InvalidInputError(f"importance must be a number in [0, 1], got {importance!r}") from None
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise InvalidInputError(f"importance must be in [0, 1], got {importance!r}")
    return value


def validate_word(value: object, what: str) -> str:
    """``type`` and ``source``: short single-line labels."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{what} must be a non-empty string, got {value!r}")
    text = value.strip()
    if _CONTROL.search(text) or "\n" in text or len(text) > 64:
        raise InvalidInputError(f"invalid {what} {text[:80]!r}: one line, at most 64 characters")
    return text


def _refuse_range(what: str, value: object) -> ValueError:
    return ValueError(
        f"{what} {repr(value)[:80]} is outside the range palace accepts "
        f"({limits.EARLIEST_TIME.year}-01-01 to {limits.LATEST_TIME.year - 1}-12-31)")


def parse_time(value: object, *, tz: tzinfo, what: str = "time") -> datetime:
    """A datetime, date, ISO 8601 string or epoch number (seconds, or milliseconds as
    JavaScript writes them) as an aware datetime; naive values are taken in ``tz``.
    Raises ``ValueError`` saying what was wrong.

    Times outside ``limits.EARLIEST_TIME`` .. ``LATEST_TIME`` (and non-finite numbers)
    are refused here, the one door every time goes through: a time at the calendar's
    edge would overflow the first offset or interval computed from it, and once
    stored (in a file or the journal) it would break every later read.
    """
    if isinstance(value, datetime):
        result = value
    elif isinstance(value, date):
        result = datetime(value.year, value.month, value.day)  # a date means its midnight
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            seconds = float(value)
        except OverflowError:  # an int too large for a float
            raise _refuse_range(what, value) from None
        if not math.isfinite(seconds):
            raise ValueError(f"{what} {value!r} is not a finite number")
        if abs(seconds) > 10**11:  # milliseconds, as JavaScript writes them
            seconds /= 1000
        if not limits.EARLIEST_TIME.timestamp() <= seconds < limits.LATEST_TIME.timestamp():
            raise _refuse_range(what, value)
        return datetime.fromtimestamp(seconds, tz)
    elif isinstance(value, str):
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            result = datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(f"{what} {value[:80]!r} is not an ISO 8601 time such as "
                             "2026-03-18T10:00:00+08:00") from None
    else:
        raise ValueError(f"{what} must be a datetime or an ISO 8601 string, got {value!r}"[:300])
    # The local year first: converting 0001-01-01T00:00+23:59 to UTC would overflow.
    if not limits.EARLIEST_TIME.year <= result.year < limits.LATEST_TIME.year:
        raise _refuse_range(what, value)
    if result.tzinfo is None:
        result = result.replace(tzinfo=tz)
    return result


def coerce_datetime(value: object, *, tz: tzinfo, what: str = "time") -> datetime:
    """``parse_time`` for arguments: a bad value is an ``InvalidInputError``."""
    try:
        return parse_time(value, tz=tz, what=what)
    except (ValueError, OverflowError, OSError) as exc:
        raise InvalidInputError(str(exc)) from None


def check_day(day: date, what: str = "date") -> date:
    """A calendar day inside the range every time must lie in (``parse_time``): the
    period around 9999-12-31 would overflow the calendar."""
    if not limits.EARLIEST_TIME.year <= day.year < limits.LATEST_TIME.year:
        raise InvalidInputError(str(_refuse_range(what, day.isoformat())))
    return day


# SQLite's INTEGER is 64 bits: a count past it is no count at all
MAX_COUNT = 2**63 - 1


def validate_count(value: object, what: str) -> int:
    """A limit or offset: a non-negative integer SQLite can hold."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_COUNT:
        raise InvalidInputError(f"{what} must be an integer from 0 to {MAX_COUNT}, got {value!r}"[:200])
    return value


def coerce_days(value: object, *, what: str = "older_than_days") -> float:
    """A finite, non-negative number of days, at most ``limits.MAX_DAYS``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInputError(f"{what} must be a number of days, got {value!r}"[:200])
    try:
        days = float(value)
    except OverflowError:
        days = math.inf
    if not math.isfinite(days) or not 0 <= days <= limits.MAX_DAYS:
        raise InvalidInputError(f"{what} must be a number of days from 0 to {limits.MAX_DAYS}, got {value!r}"[:200])
    return days


def validate_query(query: object) -> str:
    """A search / context / bootstrap query: text, at most ``limits.MAX_QUERY_CHARS``."""
    if not isinstance(query, str):
        raise InvalidInputError(f"query must be a string, got {type(query).__name__}")
    if len(query) > limits.MAX_QUERY_CHARS:
        raise InvalidInputError(
            f"query is {len(query)} characters; keep it under {limits.MAX_QUERY_CHARS} "
            "(a query is a question, not a document)")
    return query


def validate_flag(value: object, what: str) -> bool:
    """A yes/no argument: True or False itself (``bool("false")`` is True)."""
    if not isinstance(value, bool):
        raise InvalidInputError(f"{what} must be true or false, got {value!r}"[:200])
    return value


UPDATABLE_FIELDS = frozenset({"content", "summary", "tags", "importance", "location", "type",
                              "source", "status", "pinned", "created_at", "extra"})


def check_updatable(fields: dict[str, Any]) -> None:
    unknown = set(fields) - UPDATABLE_FIELDS
    if unknown:
        raise InvalidInputError(
            f"cannot update {', '.join(sorted(unknown))}; updatable fields: "
            f"{', '.join(sorted(UPDATABLE_FIELDS))}")


def validate_changes(fields: dict[str, Any], *, extra: dict[str, Any], max_bytes: int,
                     tz: tzinfo) -> dict[str, Any]:
    """The checked, normalised form of an update's ``fields``; ``extra`` is the
    memory's current extra frontmatter, into which an ``extra`` change is merged
    (a value of None removes that key)."""
    check_updatable(fields)
    checks: dict[str, Any] = {
        "content": lambda v: validate_content(v, max_bytes=max_bytes),
        "summary": lambda v: validate_summary(v, max_bytes=max_bytes),
        "tags": normalize_tags, "importance": validate_importance, "location": normalize_location,
        "type": lambda v: validate_word(v, "type"), "source": lambda v: validate_word(v, "source"),
        "pinned": lambda v: validate_flag(v, "pinned"), "created_at": lambda v: coerce_datetime(v, tz=tz, what="created_at"),
    }
    changes = {name: check(fields[name]) for name, check in checks.items() if name in fields}
    if "status" in fields:
        status = fields["status"]
        if status not in ("active", "archived"):
            raise InvalidInputError(
                f"status {status!r} cannot be set by update: use 'active' or 'archived' "
                "(`palace delete` moves a memory to the trash)")
        changes["status"] = status
    if "extra" in fields:
        if not isinstance(fields["extra"], dict):
            raise InvalidInputError("extra must be a mapping of frontmatter keys to values")
        merged = dict(extra)
        for key, value in fields["extra"].items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[str(key)] = value
        changes["extra"] = merged
    return changes


def resolve_timezone(name: str | None) -> tzinfo:
    """The IANA zone ``name`` (MEMORY_TIMEZONE), or the system's local zone."""
    if name:
        try:
            from zoneinfo import ZoneInfo

            return ZoneInfo(name)
        except Exception:
            raise ConfigError(f"MEMORY_TIMEZONE={name!r} is not a known time zone "
                              "(use an IANA name like Asia/Shanghai)") from None
    return datetime.now().astimezone().tzinfo or timezone.utc


def list_statuses(status: str | None) -> tuple[str, ...]:
    """The statuses a listing with ``status`` covers (None or "all": active and archived)."""
    if status in (None, "all"):
        return ("active", "archived")
    if status in ("active", "archived"):
        return (status,)
    raise InvalidInputError(f"status must be one of active, archived, deleted, all; got {status!r}")
