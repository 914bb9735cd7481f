"""Calendar semantics for ``palace.time_reasoning``: spans, anchors, pieces, resolution.

A *span* is a ``[start, end)`` slot of naive wall-clock time with a grain (year,
month, week, day, part of day…).  An ``Anchor`` is a span fixed by ``now`` alone
(昨天, last week, 2025年, 三天前); a ``Piece`` is a slot chosen inside a container
(12月 in a year, 周三 in a week, 下午 in a day).  ``resolve_point`` turns the parts of
one expression into a span: the anchor narrowed by the pieces, or, with no anchor,
the most recent occurrence of the pieces that their rule accepts.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Optional, Callable, NamedTuple, Union

from palace.time_reasoning import tables as T

OPEN_START = datetime(1970, 1, 1)  # the start of "before X": open, but a datetime
# The end of "after X" when X is still ahead: far, but with room left for the
# arithmetic and time-zone shifts callers do (datetime stops at year 9999).
OPEN_END = datetime(9000, 1, 1)

# --- arithmetic ------------------------------------------------------------


class Span(NamedTuple):
    start: datetime
    end: datetime
    grain: str  # what kind of slot this is: year, month, week, day, part, range…
    point: Optional[datetime] = None  # "N units ago": the instant meant, to rank by closeness


DAY = timedelta(days=1)
HOUR = timedelta(hours=1)


def day_start(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def add_months(moment: datetime, months: int) -> datetime:
    years, month0 = divmod(moment.month - 1 + months, 12)
    year, month = moment.year + years, month0 + 1
    return moment.replace(year=year, month=month, day=min(moment.day, days_in_month(year, month)))


def days_in_month(year: int, month: int) -> int:
    if month == 12:
        return 31
    return (date(year, month + 1, 1) - date(year, month, 1)).days


def unit_span(unit: str, moment: datetime) -> Span:
    """The calendar year/quarter/month/week/day/hour holding ``moment``."""
    d = day_start(moment)
    if unit == "day":
        return Span(d, d + DAY, "day")
    if unit == "week":
        start = d - timedelta(days=d.weekday())
        return Span(start, start + 7 * DAY, "week")
    if unit == "month":
        start = d.replace(day=1)
        return Span(start, add_months(start, 1), "month")
    if unit == "quarter":
        start = d.replace(month=3 * ((d.month - 1) // 3) + 1, day=1)
        return Span(start, add_months(start, 3), "quarter")
    if unit == "year":
        start = d.replace(month=1, day=1)
        return Span(start, start.replace(year=start.year + 1), "year")
    if unit == "hour":
        start = moment.replace(minute=0, second=0, microsecond=0)
        return Span(start, start + HOUR, "hour")
    raise ValueError(unit)


def move(moment: datetime, amount: float, unit: str) -> datetime:
    """``moment`` moved by ``amount`` units; fractions of months/years go by days."""
    if unit in ("year", "quarter", "month"):
        months = amount * {"year": 12, "quarter": 3, "month": 1}[unit]
        whole = int(months)
        return add_months(moment, whole) + timedelta(days=round((months - whole) * 30))
    return moment + amount * {"week": 7 * DAY, "day": DAY, "hour": HOUR,
                              "minute": timedelta(minutes=1)}[unit]


def shifted(unit: str, moment: datetime, count: int) -> Span:
    return unit_span(unit, move(day_start(moment), count, unit))


# --- parts: anchors and pieces ---------------------------------------------------------


class Anchor(NamedTuple):
    """A range fixed by ``now`` alone (昨天, last week, 2025年, 三天前)."""

    grain: str
    resolve: Callable[[datetime], Span]
    # the calendar unit to look inside when pieces follow ("两周前的周三": the Wednesday
    # of that calendar week), for anchors whose own span is a window around a point
    calendar: Optional[Callable[[datetime], Span]] = None


class Piece(NamedTuple):
    """A calendar slot chosen inside a container (12月 in a year, 下午 in a day).

    ``cycle`` is the container it repeats in, used when no anchor is given; ``rule``
    says which occurrence a bare piece means (see ``_accepts``).
    """

    kind: str
    cycle: str
    select: Callable[[Span], Union[Span, None]]
    rule: str = "started"


Part = Union[Anchor, Piece]

# Sort order inside a point: coarse to fine, anchors before the pieces they contain.
GRAIN_ORDER = {"year": 0, "season": 1, "half": 1, "quarter": 2, "month": 3, "week": 4, "point": 4,
               "day": 5, "days": 5, "part": 6, "hour": 7, "range": 9}
_PIECE_ORDER = {"year_slot": 0.5, "mday": 3.5, "third": 5.2, "weekday": 5.5, "week_of": 5.8,
                "part": 6.5, "hour": 7.5}


def _order(part: Part) -> float:
    if isinstance(part, Anchor):
        return GRAIN_ORDER[part.grain]
    return _PIECE_ORDER.get(part.kind, 0.5)


def unit_anchor(unit: str, count: int) -> Anchor:
    return Anchor(unit, lambda now: shifted(unit, now, count))


def year_anchor(year: int) -> Anchor:
    return Anchor("year", lambda now: Span(datetime(year, 1, 1), datetime(year + 1, 1, 1), "year"))


def short_year(two_digits: int, now: datetime) -> int:
    """'24, 24年, 3/5/24: 20YY, or 19YY when 20YY would lie more than 20 years ahead."""
    year = 2000 + two_digits
    return year if year <= now.year + 20 else year - 100


def short_year_anchor(two_digits: int) -> Anchor:
    def resolve(now: datetime) -> Span:
        year = short_year(two_digits, now)
        return Span(datetime(year, 1, 1), datetime(year + 1, 1, 1), "year")

    return Anchor("year", resolve)


def month_anchor(year: int, month: int) -> Anchor:
    start = datetime(year, month, 1)
    return Anchor("month", lambda now: Span(start, add_months(start, 1), "month"))


def date_anchor(day: date) -> Anchor:
    start = datetime.combine(day, time())
    return Anchor("day", lambda now: Span(start, start + DAY, "day"))


# "N units ago" is a point (now − N units) widened by a tolerance that grows with the
# unit: people say 一个月前 of anything from about 25 to 35 days back, 一年前 of about a
# week either side of that date. A half unit (半个月, 半年) takes the next finer unit's.
POINT_TOLERANCE_DAYS = {"day": 0, "week": 3, "month": 5, "quarter": 5, "year": 7}


def ago_anchor(low: float, high: float, unit: str, direction: int = -1) -> Anchor:
    """低 to 高 units ago (direction -1) or ahead (+1); see the module notes."""
    fuzzy = unit in ("hour", "minute") or (unit == "day" and (low % 1 or high % 1))
    whole = low == int(low) and high == int(high)
    calendar_unit = unit if whole else _FINER[unit]
    point = not fuzzy and low == high and calendar_unit in POINT_TOLERANCE_DAYS
    grain = "range" if fuzzy or low != high else ("day" if point and calendar_unit == "day" else
                                                   "point" if point else calendar_unit)

    def resolve(now: datetime) -> Span:
        if fuzzy:
            step = {"hour": HOUR, "minute": timedelta(minutes=1), "day": DAY}[unit]
            if direction < 0:
                return Span(now - 1.5 * high * step, now - 0.5 * low * step, "range")
            return Span(now + 0.5 * low * step, now + 1.5 * high * step, "range")
        if point:
            instant = move(now, direction * low, unit)
            tolerance = POINT_TOLERANCE_DAYS[calendar_unit] * DAY
            day = day_start(instant)
            return Span(day - tolerance, day + DAY + tolerance, grain, instant)
        return calendar(now)

    def calendar(now: datetime) -> Span:
        near = unit_span(calendar_unit, move(now, direction * low, unit))
        far = unit_span(calendar_unit, move(now, direction * high, unit))
        first, last = (far, near) if direction < 0 else (near, far)
        return Span(first.start, last.end, "range" if low != high else calendar_unit)

    return Anchor(grain, resolve, calendar if point else None)


_FINER = {"year": "month", "quarter": "month", "month": "week", "week": "day", "day": "day",
          "hour": "hour", "minute": "minute"}


def rolling_anchor(count: float, unit: str) -> Anchor:
    """The last ``count`` units up to now: whole days ending tonight, or exact hours."""

    def resolve(now: datetime) -> Span:
        if unit in ("hour", "minute"):
            return Span(move(now, -count, unit), now, "range")
        tonight = day_start(now) + DAY
        return Span(move(tonight, -count, unit), tonight, "range")

    return Anchor("range", resolve)


def since_start_of(unit: str, until_now: bool) -> Anchor:
    """"earlier this week" (up to the instant) or "this week so far" (up to tonight)."""

    def resolve(now: datetime) -> Span:
        end = now if until_now else day_start(now) + DAY
        return Span(unit_span(unit, now).start, end, "range")

    return Anchor("range", resolve)


JUST_NOW = Anchor("range", lambda now: Span(now - HOUR, now, "range"))


def _in_year(kind: str, select_in_year: Callable[[datetime], Union[Span, None]],
             rule: str = "started") -> Piece:
    """A piece that lives in a year (a month, a quarter, a holiday…)."""

    def select(container: Span) -> Span | None:
        if container.grain != "year":
            return None
        return select_in_year(container.start)

    return Piece(kind, "year", select, rule)


def month_piece(month: int, rule: str = "started") -> Piece:
    def in_year(year_start: datetime) -> Span:
        start = year_start.replace(month=month)
        return Span(start, add_months(start, 1), "month")

    return _in_year("year_slot", in_year, rule)


def half_piece(half: int) -> Piece:
    def in_year(year_start: datetime) -> Span:
        start = year_start.replace(month=1 + 6 * (half - 1))
        return Span(start, add_months(start, 6), "half")

    return _in_year("year_slot", in_year)


def quarter_piece(quarter: int) -> Piece:
    def in_year(year_start: datetime) -> Span:
        start = year_start.replace(month=1 + 3 * (quarter - 1))
        return Span(start, add_months(start, 3), "quarter")

    return _in_year("year_slot", in_year)


def season_piece(season: str, rule: str = "started") -> Piece:
    first_month, months = T.SEASONS[season]

    def in_year(year_start: datetime) -> Span:
        start = year_start.replace(month=first_month)
        return Span(start, add_months(start, months), "season")

    return _in_year("year_slot", in_year, rule)


def holiday_piece(key: str, rule: str = "started") -> Piece:
    length = T.HOLIDAYS[key][1]

    def in_year(year_start: datetime) -> Span | None:
        first = holiday_date(key, year_start.year)
        if first is None:
            return None
        start = datetime.combine(first, time())
        return Span(start, start + length * DAY, "day" if length == 1 else "days")

    return _in_year("year_slot", in_year, rule)


def holiday_date(key: str, year: int) -> date | None:
    how = T.HOLIDAYS[key][0]
    if how[0] == "fixed":
        return date(year, how[1], how[2])
    if how[0] == "lunar":
        return T.lunar_date(how[1], year)
    if how[0] == "nth":
        _, month, weekday, n = how
        if n > 0:
            first = date(year, month, 1)
            return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
        last = date(year, month, days_in_month(year, month))
        return last - timedelta(days=(last.weekday() - weekday) % 7)
    if how[0] == "easter":
        return _easter(year) + timedelta(days=how[1])
    if how[0] == "after":
        base = holiday_date(how[1], year)
        return base + timedelta(days=how[2]) if base else None
    raise ValueError(how)


def _easter(year: int) -> date:
    """Western Easter Sunday (the anonymous Gregorian algorithm)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (b - (b + 8) // 25 + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    el = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * el) // 451
    month, day = divmod(h + el - 7 * m + 114, 31)
    return date(year, month, day + 1)


def mday_piece(day: int) -> Piece:
    def select(container: Span) -> Span | None:
        if container.grain != "month" or day > days_in_month(container.start.year,
                                                              container.start.month):
            return None
        start = container.start.replace(day=day)
        return Span(start, start + DAY, "day")

    return Piece("mday", "month", select)


def weekday_piece(weekday: int, rule: str = "before_today") -> Piece:
    def select(container: Span) -> Span | None:
        if container.grain == "day":  # "3月18日周三": the weekday only repeats the date
            return container
        if container.grain != "week":
            return None
        start = container.start + weekday * DAY
        return Span(start, start + DAY, "day")

    return Piece("weekday", "week", select, rule)


def weekend_piece(rule: str = "started") -> Piece:
    def select(container: Span) -> Span | None:
        if container.grain in ("day", "days"):  # "Thanksgiving weekend": the day and its weekend
            return adjoining_weekend(container)
        if container.grain != "week":
            return None
        return Span(container.start + 5 * DAY, container.end, "days")

    return Piece("weekday", "week", select, rule)


def adjoining_weekend(span: Span) -> Span:
    """A day joined to the weekend next to it: a Thursday to Sunday runs on to the
    weekend after (Thanksgiving weekend Thu-Sun, Easter weekend Sat-Sun), a Monday to
    Wednesday reaches back to the Saturday before (Memorial Day weekend Sat-Mon)."""
    first = day_start(span.start)
    weekday = first.weekday()
    if weekday <= 2:
        return Span(first - (weekday + 2) * DAY, max(span.end, first + DAY), "days")
    start = first - DAY if weekday == 6 else first
    return Span(start, max(span.end, first + (7 - weekday) * DAY), "days")


def part_piece(name: str) -> Piece:
    first_hour, last_hour = T.DAY_PARTS[name]

    def select(container: Span) -> Span | None:
        if container.grain != "day":
            return None
        return Span(container.start + first_hour * HOUR, container.start + last_hour * HOUR, "part")

    return Piece("part", "day", select)


def hour_piece(hour: int, minute: int = 0, meridiem: str | None = None) -> Piece:
    """A clock time, as the hour that starts there.  Without 上午/下午/am/pm, 1–6
    o'clock is taken as the afternoon (people meet at 3, not at 3 a.m.)."""
    if meridiem == "pm":
        candidates = [hour % 12 + 12]
    elif meridiem == "am":
        candidates = [hour % 12]
    else:
        candidates = [hour, hour + 12, hour + 24] if hour <= 12 else [hour]

    def select(container: Span) -> Span | None:
        midnight = day_start(container.start)
        if container.grain == "part":
            for candidate in candidates:
                start = midnight + candidate * HOUR + minute * timedelta(minutes=1)
                if container.start <= start < container.end:
                    return Span(start, start + HOUR, "hour")
            return None
        if container.grain != "day":
            return None
        chosen = hour + 12 if meridiem is None and 1 <= hour <= 6 else candidates[0]
        start = midnight + chosen * HOUR + minute * timedelta(minutes=1)
        return Span(start, start + HOUR, "hour")

    return Piece("hour", "day", select)


def third_piece(which: int | tuple[int, int], cycle: str = "month") -> Piece:
    """初/中/底, early/mid/late: the first, middle or last third of the container
    (or a run of them: 中下旬 is the middle and last thirds)."""
    return portion_piece("third", which, cycle)


def portion_piece(division: str, which: int | tuple[int, int], cycle: str = "month") -> Piece:
    """One part of whatever period holds it: a ``third`` (early/mid/late, 上中下旬), a
    ``half`` ("the first half of June", 上半月) or a ``week`` ("the first week of March",
    3月第一周: days 1-7, 8-14…; -1 is the last seven days) of a month, a year or a week.
    ``which`` counts from 0; a pair is a run of parts (中下旬)."""
    first, last = which if isinstance(which, tuple) else (which, which)

    def select(container: Span) -> Span | None:
        bounds = _division_bounds(division, container)
        if bounds is None:
            return None
        count = len(bounds) - 1
        low, high = (n if n >= 0 else count + n for n in (first, last))
        if not 0 <= low <= high < count:
            return None
        start, end = bounds[low], bounds[high + 1]
        if division == "week" and first == -1:  # the last week: the last seven days
            start = end - 7 * DAY
        grain = "month" if container.grain == "year" and division != "week" else "days"
        return Span(start, end, grain)

    return Piece("third", cycle, select)


def _division_bounds(division: str, container: Span) -> list[datetime] | None:
    start, end, grain = container.start, container.end, container.grain
    if division == "week" and grain in ("month", "year"):
        return [start + 7 * k * DAY for k in range(5 if grain == "month" else 53)
                if start + 7 * k * DAY < end] + [end]
    if division == "half" and grain in ("month", "year"):
        return [start, start.replace(day=16) if grain == "month" else start.replace(month=7), end]
    if division == "third" and grain == "month":
        return [start, start.replace(day=11), start.replace(day=21), end]
    if division == "third" and grain == "year":
        return [start, start.replace(month=5), start.replace(month=9), end]
    if division == "third" and grain == "week":
        return [start, start + 2 * DAY, start + 4 * DAY, end]
    return None


# --- resolving a point --------------------------------------------------------------------

_LOOKBACK = {"year": 12, "month": 14, "week": 3, "day": 3}


def resolve_point(parts: list[Part], now: datetime) -> Span | None:
    parts = sorted(parts, key=_order)
    anchors = [p for p in parts if isinstance(p, Anchor)]
    pieces = [p for p in parts if isinstance(p, Piece)]
    if len(anchors) > 1 or (anchors and parts[0] is not anchors[0]):
        return None
    if len({p.kind for p in pieces}) != len(pieces):
        return None  # two months, two weekdays…: not one point
    if anchors:
        anchor = anchors[0]
        resolve = anchor.calendar if pieces and anchor.calendar is not None else anchor.resolve
        return narrow(resolve(now), pieces)
    return most_recent(pieces, now)


def narrow(span: Span | None, pieces: list[Piece]) -> Span | None:
    for piece in pieces:
        if span is None:
            return None
        span = piece.select(span)
    return span


def most_recent(pieces: list[Piece], now: datetime) -> Span | None:
    """The occurrence of a bare slot that the rule of its first piece picks.

    The rule judges the date the pieces name, not the hour: "3月18日下午" said on the
    morning of 18 March is this afternoon, while a bare "下午" is yesterday's.
    """
    rule = next((p.rule for p in pieces if p.rule != "started"), "started")
    cycle = pieces[0].cycle
    step = 1 if rule == "upcoming" else -1
    dated = [p for p in pieces if p.kind not in ("part", "hour")] or pieces
    for count in range(_LOOKBACK[cycle]):
        container = shifted(cycle, now, step * count)
        judged = narrow(container, dated)
        if judged is not None and _accepts(judged, rule, now):
            found = narrow(container, pieces) if dated is not pieces else judged
            if found is not None:
                return found
    return None


def _accepts(span: Span, rule: str, now: datetime) -> bool:
    if rule == "before_today":  # bare weekdays
        return span.start < day_start(now)
    if rule == "ended":  # "last March", "last Christmas"
        return span.end <= now
    if rule == "upcoming":  # "next March", "this coming Friday"
        return span.start > now
    return span.start <= now  # "started": the most recent one that has begun


def resolve_after(first: Span, first_parts: list[Part], parts: list[Part], now: datetime) -> Span | None:
    """The second end of a range; what it leaves out comes from the first end
    ("3月1日到10日", "上周二到周四", "晚上8点到10点")."""
    if any(isinstance(p, Anchor) for p in parts):
        return resolve_point(parts, now)
    coarsest = min(_order(p) for p in parts)
    inherited = [p for p in first_parts if _order(p) < coarsest]
    if any(isinstance(p, Anchor) for p in inherited):
        return resolve_point(inherited + parts, now)
    pieces = sorted(inherited + parts, key=_order)
    cycle = pieces[0].cycle
    for count in range(2):
        found = narrow(shifted(cycle, first.start, count), pieces)
        if found is not None and found.end > first.start:
            return found
    return None


def nth_weekday_piece(weekday: int, nth: int) -> Piece:
    """"the first Monday of March", "3月的第一个周一"; ``nth`` -1 is the last one."""

    def select(container: Span) -> Span | None:
        if container.grain != "month":
            return None
        first = container.start + ((weekday - container.start.weekday()) % 7) * DAY
        if nth > 0:
            start = first + 7 * (nth - 1) * DAY
        else:  # the last one
            start = first + 7 * (((container.end - first).days - 1) // 7) * DAY
        if not container.start <= start < container.end:
            return None
        return Span(start, start + DAY, "day")

    return Piece("mday", "month", select)


def week_of_piece() -> Piece:
    """"the week of March 9", "3月9日那周": the Monday-to-Sunday week around a day."""

    def select(container: Span) -> Span | None:  # a day, or a holiday's days: their first day's week
        return unit_span("week", container.start) if container.grain in ("day", "days") else None

    return Piece("week_of", "day", select)
