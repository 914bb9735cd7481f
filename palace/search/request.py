"""Stage 1, the request: what was asked, checked once (the query, ``top_k``, the
period its time words name or ``start``/``end`` give, and the filters)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta, tzinfo
from typing import Any, Sequence

from palace import limits
from palace.errors import InvalidInputError
from palace.index import Filters
from palace.validation import coerce_datetime, normalize_location, normalize_tags, validate_query, validate_word

# Things get written down after they happen ("went camping last week", noted on
# Monday): a period parsed from the query also admits memories written shortly after
# it (one period, at most LATE_GRACE), ranked lower (palace.search.ranking).
LATE_GRACE = timedelta(days=30)


@dataclass(frozen=True)
class TimeScope:
    """The period a search is about. ``parsed`` is the time expression found in the
    query (None without one); ``explicit`` says ``start``/``end`` were given;
    ``window_end`` admits memories written shortly after a parsed period."""

    remainder: str
    parsed: Any = None
    start: datetime | None = None
    end: datetime | None = None
    window_end: datetime | None = None
    explicit: bool = False

    @property
    def bounded(self) -> bool:
        return self.start is not None or self.end is not None

    def info(self) -> dict[str, Any] | None:
        """The period as results and responses show it (None: no period)."""
        if self.parsed is not None:
            return {"text": self.parsed.text, "start": self.parsed.start.isoformat(),
                    "end": self.parsed.end.isoformat()}
        if self.bounded:
            return {"text": None, "start": self.start.isoformat() if self.start else None,
                    "end": self.end.isoformat() if self.end else None}
        return None


@dataclass(frozen=True)
class Request:
    """A checked search request."""

    top_k: int
    now: datetime
    scope: TimeScope
    base: Filters       # tags, room, type, statuses
    timed: Filters      # the same and the period (with its late window)
    soft: bool          # the period ranks memories instead of excluding the rest
    include_weak: bool


def check_request(query: object, top_k: object) -> None:
    validate_query(query)  # the same check as get_context and bootstrap
    top = limits.MAX_API_TOP_K
    if not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1 or top_k > top:
        raise InvalidInputError(f"top_k must be an integer from 1 to {top}, got {top_k!r}")


def parse_time(query: str, *, start: Any, end: Any, now: datetime, tz: tzinfo,
               reasoner: Any = None) -> TimeScope:
    """The period: the query's time words (``reasoner``; None when time reasoning is
    off) narrowed by an explicit ``start``/``end`` (end exclusive)."""
    remainder = query.strip()
    parsed = None
    start_dt = coerce_datetime(start, tz=tz, what="start") if start is not None else None
    end_dt = coerce_datetime(end, tz=tz, what="end") if end is not None else None
    if start_dt and end_dt and start_dt >= end_dt:
        raise InvalidInputError("start must be before end")
    if reasoner is not None and remainder:
        found = reasoner.parse(remainder, now=now)
        if found is not None and found.end > found.start:
            parsed = found
            remainder = found.remainder
            start_dt = max(start_dt, found.start) if start_dt else found.start
            end_dt = min(end_dt, found.end) if end_dt else found.end
    if not remainder.strip() and start_dt is None and end_dt is None:
        raise InvalidInputError("query is empty: give words to search for or a time range")
    window_end = end_dt
    if parsed is not None and end_dt is not None and end is None and start_dt is not None:
        window_end = end_dt + min(end_dt - start_dt, LATE_GRACE)  # nothing before, explicit stays exact
    return TimeScope(remainder=remainder, parsed=parsed, start=start_dt, end=end_dt,
                     window_end=window_end, explicit=start is not None or end is not None)


def make_request(query: str, *, top_k: int, now: datetime, tz: tzinfo, reasoner: Any,
                 time_filter: str, tags: Sequence[str] | None, location: str | None,
                 type: str | None, include_archived: bool, start: Any, end: Any,
                 include_weak: bool) -> Request:
    check_request(query, top_k)
    scope = parse_time(query, start=start, end=end, now=now, tz=tz, reasoner=reasoner)
    statuses = ("active", "archived") if include_archived else ("active",)
    base = Filters(statuses=statuses, tags=normalize_tags(tags),
                   location=normalize_location(location) if location else None,
                   type=validate_word(type, "type") if type else None)
    timed = replace(base, start_ts=scope.start.timestamp() if scope.start else None,
                    end_ts=scope.window_end.timestamp() if scope.window_end else None)
    # soft: a question about *when something happened* often finds its answer in a
    # memory written at another time ("on Sunday the rota changes", said Wednesday)
    soft = time_filter == "soft" and scope.parsed is not None and not scope.explicit
    return Request(top_k=top_k, now=now, scope=scope, base=base, timed=timed, soft=soft,
                   include_weak=include_weak)
