"""Find the time expression in a query and turn it into a datetime range.

    >>> tr = TimeReasoner().parse("上周讨论的数据库选型", now=datetime(2026, 3, 18, 10))
    >>> tr.start, tr.end, tr.text, tr.remainder
    (datetime(2026, 3, 9, 0, 0), datetime(2026, 3, 16, 0, 0), '上周', '讨论的数据库选型')

A self-contained rule engine (no dateparser, no jionlp: the CLI must start fast),
for Chinese, English and both mixed.  It works in three steps:

1. **Lex**: every rule is a regular expression that recognises one *token*: a time
   word ("上周四", "March 18", "下午", "三天前") or an operator ("到", "since",
   "以来").  A time token carries *parts*: an ``Anchor`` (a range fixed by ``now``
   alone: 昨天, last week, 2025年) and/or ``Piece``s (a calendar slot that needs a
   container: 12月 within a year, 周三 within a week, 下午 within a day).
2. **Group**: neighbouring tokens separated only by glue (spaces, 的, "of", "at"…)
   form one point: "去年" + "12月" + "18日" + "下午".  Parts are sorted coarse to
   fine, so "March 18, 2025" and "2025年3月18日" resolve the same way.
3. **Resolve**: an anchor is narrowed by the pieces after it; pieces with no anchor
   take their most recent occurrence (see below).  Operators build ranges
   ("3月1日到3月10日", "since Monday", "3月1日至今", "春节前").

The first expression found wins; ``remainder`` is the query without it.

Choices for ambiguous cases (each is what a memory query most likely means):

* Ranges are ``[start, end)``; weeks start on Monday.
* A bare calendar slot (12月, 18号, 春节, 下午, the weekend, "in February") is the
  most recent one that has *started*: "12月" on 2026-03-18 is December 2025, "3月"
  is this March, "下午" at 10:00 is yesterday afternoon.
* A bare weekday (周三, "on Monday") is the most recent one *before today*: whoever
  means today says 今天.  "上周三"/"last Wednesday" is the Wednesday of the previous
  calendar week, "这周三"/"this Wednesday" the one of this week (maybe ahead).
* "N units ago" is the calendar unit that holds ``now - N units``: 三天前 is that
  day, 两周前 that Monday-to-Sunday week, 一个月前 that month.  With half units
  (半个月前, 半年前) the next finer unit is used (that week, that month).  Hours and
  minutes ago are a window of ±N/2 around the instant (两小时前 at 10:00 = 07:00–09:00).
* Rolling windows (最近三天, 过去7天, "the past week") are whole days and include
  today: the N units that end at midnight tonight.  Hour/minute windows end now.
* Vague counts (几, 前几天, "a few", "several") stand for 1–7 units; 前两天 for 1–3
  days ago, "a couple of days ago" and 两三天前 for 2–3 days ago.  Words with no
  extent at all (最近, 之前, recently, a while ago) are not time expressions.
* Parts of the day: 凌晨 00–06, 早上/上午/morning 06–12, 中午/noon 11–14,
  下午/afternoon 12–18, 傍晚 17–19, English "evening" 18–24, and night (晚上, 夜里,
  昨晚, tonight, last night) 18:00 to 06:00 the next morning: people say 昨晚 about
  1 a.m. too.  A clock time ("下午3点", "3pm") is that hour: [15:00, 16:00).
* 初/中/底 and early/mid/late split a period in thirds: days 1–10/11–20/21–end of a
  month (the Chinese 上中下旬), Jan–Apr/May–Aug/Sep–Dec of a year.
* Multi-day holidays are the public holiday: 春节 = 除夕 to 初七, 国庆 = 1–7 Oct,
  劳动节 = 1–5 May; other holidays are their day.  Lunar dates come from a table
  for 2015–2035.  "去年春节" is the one whose first day falls in last year.
* "Since X"/X以来/X至今 and "after X" end at midnight tonight; "before X"/X之前
  start at 1970-01-01 (open), as does "until X".  "Around X"/X前后/X左右 adds three
  days on each side of a date or holiday.
* Greetings and things are not times: 周末愉快, 圣诞快乐, Merry Christmas,
  Christmas tree, 下午茶, 晚上好, 每周一 (recurring), "on Mondays".
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Callable, Iterator, NamedTuple, Union

from . import _time_tables as T

__all__ = ["TimeRange", "TimeReasoner", "parse_time"]

OPEN_START = datetime(1970, 1, 1)
OPEN_END = datetime(9999, 12, 31)


# --- public API ------------------------------------------------------------------


@dataclass(frozen=True)
class TimeRange:
    """A time range found in a query: ``[start, end)`` plus what was matched."""

    start: datetime
    end: datetime
    text: str  # the time expression as written in the query
    remainder: str  # the query without it, tidied
    granularity: str = "day"  # year/quarter/month/week/day/days/part_of_day/hour/range…
    span: tuple[int, int] = (0, 0)  # character offsets of ``text`` in the query

    def to_dict(self) -> dict:
        return {"start": self.start.isoformat(), "end": self.end.isoformat(),
                "text": self.text, "remainder": self.remainder,
                "granularity": self.granularity, "span": list(self.span)}


class TimeReasoner:
    """Stateless; one instance can be shared.  ``parse`` is the whole contract."""

    def parse(self, text: str, now: datetime | date | None = None) -> TimeRange | None:
        """The first time expression in ``text`` as a range, or None if it holds none.

        ``now`` defaults to the local clock; an aware ``now`` gives aware results in
        its time zone, a naive one naive results, a ``date`` means its midnight.
        """
        return parse_time(text, now)


def parse_time(text: str, now: datetime | date | None = None) -> TimeRange | None:
    if not isinstance(text, str) or not text.strip():
        return None
    clock, tz = _naive_clock(now)
    scanned = text.translate(_FULLWIDTH)
    for found in _expressions(scanned, clock):
        start, end = found.span.start, found.span.end
        if tz is not None:
            start, end = start.replace(tzinfo=tz), end.replace(tzinfo=tz)
        return TimeRange(start=start, end=end, text=text[found.start:found.end].strip(),
                         remainder=_remainder(text, scanned, found),
                         granularity=_GRANULARITY_NAMES.get(found.span.grain, found.span.grain),
                         span=(found.start, found.end))
    return None


def _naive_clock(now) -> tuple[datetime, object]:
    if now is None:
        return datetime.now(), None
    if isinstance(now, datetime):
        return now.replace(tzinfo=None), now.tzinfo
    if isinstance(now, date):
        return datetime.combine(now, time()), None
    raise TypeError(f"now must be a datetime or a date, not {type(now).__name__}")


# Full-width digits and punctuation count as their ASCII twins (one char for one,
# so offsets stay valid).
_FULLWIDTH = str.maketrans("０１２３４５６７８９：／－．", "0123456789:/-.")
_GRANULARITY_NAMES = {"part": "part_of_day", "half": "half_year"}


# --- calendar arithmetic ------------------------------------------------------------


class Span(NamedTuple):
    start: datetime
    end: datetime
    grain: str  # what kind of slot this is: year, month, week, day, part, range…


DAY = timedelta(days=1)
HOUR = timedelta(hours=1)


def day_start(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def add_months(moment: datetime, months: int) -> datetime:
    years, month0 = divmod(moment.month - 1 + months, 12)
    year, month = moment.year + years, month0 + 1
    return moment.replace(year=year, month=month, day=min(moment.day, _days_in_month(year, month)))


def _days_in_month(year: int, month: int) -> int:
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
_ANCHOR_ORDER = {"year": 0, "season": 1, "half": 1, "quarter": 2, "month": 3, "week": 4,
                 "day": 5, "days": 5, "part": 6, "hour": 7, "range": 9}
_PIECE_ORDER = {"year_slot": 0.5, "mday": 3.5, "third": 5.2, "weekday": 5.5, "week_of": 5.8,
                "part": 6.5, "hour": 7.5}


def _order(part: Part) -> float:
    if isinstance(part, Anchor):
        return _ANCHOR_ORDER[part.grain]
    return _PIECE_ORDER.get(part.kind, 0.5)


def unit_anchor(unit: str, count: int) -> Anchor:
    return Anchor(unit, lambda now: shifted(unit, now, count))


def year_anchor(year: int) -> Anchor:
    return Anchor("year", lambda now: Span(datetime(year, 1, 1), datetime(year + 1, 1, 1), "year"))


def month_anchor(year: int, month: int) -> Anchor:
    start = datetime(year, month, 1)
    return Anchor("month", lambda now: Span(start, add_months(start, 1), "month"))


def date_anchor(day: date) -> Anchor:
    start = datetime.combine(day, time())
    return Anchor("day", lambda now: Span(start, start + DAY, "day"))


def ago_anchor(low: float, high: float, unit: str, direction: int = -1) -> Anchor:
    """低 to 高 units ago (direction -1) or ahead (+1); see the module notes."""
    fuzzy = unit in ("hour", "minute") or (unit == "day" and (low % 1 or high % 1))
    whole = low == int(low) and high == int(high)
    calendar_unit = unit if whole else _FINER[unit]
    grain = "range" if fuzzy or low != high else calendar_unit

    def resolve(now: datetime) -> Span:
        if fuzzy:
            step = {"hour": HOUR, "minute": timedelta(minutes=1), "day": DAY}[unit]
            if direction < 0:
                return Span(now - 1.5 * high * step, now - 0.5 * low * step, "range")
            return Span(now + 0.5 * low * step, now + 1.5 * high * step, "range")
        near = unit_span(calendar_unit, move(now, direction * low, unit))
        far = unit_span(calendar_unit, move(now, direction * high, unit))
        first, last = (far, near) if direction < 0 else (near, far)
        return Span(first.start, last.end, grain)

    return Anchor(grain, resolve)


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
        last = date(year, month, _days_in_month(year, month))
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
        if container.grain != "month" or day > _days_in_month(container.start.year,
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
        if container.grain != "week":
            return None
        return Span(container.start + 5 * DAY, container.end, "days")

    return Piece("weekday", "week", select, rule)


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
    first, last = which if isinstance(which, tuple) else (which, which)

    def select(container: Span) -> Span | None:
        start = container.start
        if container.grain == "month":
            bounds = [start, start.replace(day=11), start.replace(day=21), container.end]
        elif container.grain == "year":
            bounds = [start, start.replace(month=5), start.replace(month=9), container.end]
        elif container.grain == "week":
            bounds = [start, start + 2 * DAY, start + 4 * DAY, container.end]
        else:
            return None
        return Span(bounds[first], bounds[last + 1], "days" if container.grain != "year" else "month")

    return Piece("third", cycle, select)


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
        return narrow(anchors[0].resolve(now), pieces)
    return most_recent(pieces, now)


def narrow(span: Span | None, pieces: list[Piece]) -> Span | None:
    for piece in pieces:
        if span is None:
            return None
        span = piece.select(span)
    return span


def most_recent(pieces: list[Piece], now: datetime) -> Span | None:
    """The occurrence of a bare slot that the rule of its first piece picks."""
    rule = next((p.rule for p in pieces if p.rule != "started"), "started")
    cycle = pieces[0].cycle
    step = 1 if rule == "upcoming" else -1
    for count in range(_LOOKBACK[cycle]):
        found = narrow(shifted(cycle, now, step * count), pieces)
        if found is not None and _accepts(found, rule, now):
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


# --- lexing -------------------------------------------------------------------------------


class Token(NamedTuple):
    start: int
    end: int
    kind: str  # "time", or an operator: to and from since until before after around, *_suffix
    parts: tuple = ()
    standalone: bool = True  # False: counts only next to another time token


# (pattern, flags, build): compiled on first use, so that importing stays cheap for
# the CLI commands that never parse a time.
_RULES: list[tuple[str, int, Callable[[re.Match, str], Union[Token, list, None]]]] = []


def _rule(pattern: str, flags: int = 0):
    def register(build):
        _RULES.append((pattern, flags, build))
        return build

    return register


@functools.cache
def _compiled_rules() -> tuple[tuple[re.Pattern, Callable], ...]:
    return tuple((re.compile(pattern, flags), build) for pattern, flags, build in _RULES)


def _time(match: re.Match, *parts: Part, standalone: bool = True) -> Token:
    return Token(match.start(), match.end(), "time", tuple(parts), standalone)


CN_NUM = "[零〇一二两三四五六七八九十百]"
REL = {"上上": -2, "上": -1, "这": 0, "本": 0, "今": 0, "下": 1, "下下": 2}
THIRDS = {"初": 0, "上旬": 0, "中": 1, "中旬": 1, "底": 2, "末": 2, "下旬": 2, "上中旬": (0, 1),
          "中下旬": (1, 2),
          "beginning": 0, "start": 0, "early": 0, "middle": 1, "mid": 1, "end": 2, "late": 2}


def cn_int(text: str) -> int | None:
    """'18' → 18, '十八' → 18, '二十一' → 21, '两' → 2, '二〇二五' → 2025."""
    if text.isdigit():
        return int(text)
    if len(text) > 1 and all(ch in T.CN_DIGITS for ch in text):  # read digit by digit
        return int("".join(str(T.CN_DIGITS[ch]) for ch in text))
    total = current = 0
    for ch in text:
        if ch in T.CN_DIGITS:
            current = T.CN_DIGITS[ch]
        elif ch in "十百":
            total += (current or 1) * (10 if ch == "十" else 100)
            current = 0
        else:
            return None
    return total + current


def quantity(text: str) -> tuple[float, float] | None:
    """How many units a count stands for, as (low, high)."""
    text = re.sub(r"\s+", " ", text.strip().lower())
    if text in ("几", "好几", "些", "a few", "few", "several", "some"):
        return T.FEW
    if text in ("a couple of", "a couple", "couple of"):
        return (2, 3)
    if re.fullmatch(r"[二三四五六七八九]?十[几多]", text):  # 十几 = 11–19, 二十多 = 21–29
        tens = 10 * (T.CN_DIGITS[text[0]] if text[0] != "十" else 1)
        return (tens + 1, tens + 9)
    if text in ("半", "half a", "half an"):
        return (0.5, 0.5)
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return (float(text), float(text))
    if text in T.EN_NUMBERS:
        return (T.EN_NUMBERS[text],) * 2
    if len(text) == 2 and all(ch in T.CN_DIGITS for ch in text):  # 两三, 三五: a range
        low, high = T.CN_DIGITS[text[0]], T.CN_DIGITS[text[1]]
        if 0 < low < high:
            return (low, high)
    value = cn_int(text)
    return (value, value) if value else None


CN_UNITS = {"天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week", "月": "month",
            "年": "year", "小时": "hour", "钟头": "hour", "分钟": "minute", "季度": "quarter"}


def en_unit(word: str) -> str:
    word = word.lower().rstrip("s")
    return {"min": "minute", "hr": "hour", "fortnight": "week"}.get(word, word)


# Chinese ------------------------------------------------------------------------------

_DAY_WORDS = {"大前天": -3, "前天": -2, "前儿": -2, "前儿个": -2, "昨天": -1, "昨日": -1,
              "昨儿": -1, "昨儿个": -1, "今天": 0, "今日": 0, "今儿": 0, "今儿个": 0, "明天": 1,
              "明日": 1, "明儿": 1, "明儿个": 1, "后天": 2, "大后天": 3}


@_rule(r"大前天|大后天|前儿个?|昨儿个?|今儿个?|明儿个?|前天|昨天|昨日|今天|明天|"
       r"今日(?!头条)|明日(?!方舟|之后)|(?<!先天)后天(?!性|努力|养成|形成|习得|因素)")
def _cn_day(m, text):
    return _time(m, unit_anchor("day", _DAY_WORDS[m.group()]))


@_rule(r"(今|昨|前|明)(早|晨|晚|夜)(?<!前早)(?<!前晨)(?<!前夜)(?<!明夜)")
def _cn_day_and_part(m, text):
    offset = {"今": 0, "昨": -1, "前": -2, "明": 1}[m.group(1)]
    part = "morning" if m.group(2) in "早晨" else "night"
    return _time(m, unit_anchor("day", offset), part_piece(part))


@_rule(r"(凌晨|清晨|早上|早晨|上午|中午|正午|午间|下午|午后|傍晚|黄昏|晚上|晚间|夜里|夜间|夜晚|"
       r"半夜|深夜|白天)(?![好茶饭鹅班])")
def _cn_day_part(m, text):
    return _time(m, part_piece(T.CN_DAY_PARTS[m.group()]))


_CN_COUNT = rf"[二三四五六七八九]?十[几多]|好几|几|\d+(?:\.\d+)?|{CN_NUM}+|半"
_CN_UNIT = r"天|日|周|星期|礼拜|月|年|小时|钟头|分钟|季度"


@_rule(rf"(?<![\d.])({_CN_COUNT})\s*个?(半)?个?\s*({_CN_UNIT})(以前|之前|前|以后|之后|后)"
       r"(?![端台往进面线景提缀续期果者悔盾院门])")
def _cn_ago(m, text):
    count = quantity(m.group(1))
    unit = CN_UNITS[m.group(3)]
    if count is None or count[1] > 5000 or (unit == "year" and count[0] >= 1000):
        return None  # "2025年前" is a year, not 2025 years ago
    if m.group(3) == "日" and text[:m.start()].rstrip().endswith("月"):
        return None  # "3月10日之后" is after the 10th, not ten days later
    low, high = (c + 0.5 if m.group(2) else c for c in count)
    direction = -1 if "前" in m.group(4) else 1
    return _time(m, ago_anchor(low, high, unit, direction))


@_rule(r"前(几|些|两|一两)个?(天|日|周|星期|礼拜|月|年)|前些日子")
def _cn_a_few_ago(m, text):
    if m.group(1) is None:
        return _time(m, ago_anchor(*T.FEW, "day"))
    low, high = T.FEW if m.group(1) in "几些" else (1, 3)
    return _time(m, ago_anchor(low, high, CN_UNITS[m.group(2)]))


@_rule(rf"(?<![接将靠附亲])(最近|近|过去|这)\s*的?\s*这?\s*({_CN_COUNT}|两|些)\s*个?(半)?个?\s*"
       rf"({_CN_UNIT})(?:以来|之内|以内|内|里|来|中)?")
def _cn_rolling(m, text):
    count = quantity(m.group(2))
    if count is None or count[1] > 5000:
        return None
    unit = CN_UNITS[m.group(4)]
    if m.group(1) == "这" and count == (1, 1) and not m.group(3):  # 这一周 = this week
        if unit not in ("week", "month", "year", "quarter"):
            return None
        return _time(m, unit_anchor(unit, 0))
    return _time(m, rolling_anchor(count[1] + (0.5 if m.group(3) else 0), unit))


@_rule(r"(?<![马线网一以地底私楼])(上上|上|这|本|下下|下)\s*一?\s*个?(?:周|星期|礼拜)"
       r"(?:(一(?![起直样般致共定些下切点])|[二三四五六日天1-7])|(末)(?!愉快|快乐)|(?![期刊边围转全岁游长年]))")
def _cn_week(m, text):
    week = unit_anchor("week", REL[m.group(1)])
    if m.group(2):
        return _time(m, week, weekday_piece(T.CN_WEEKDAYS[m.group(2)]))
    if m.group(3):
        return _time(m, week, weekend_piece())
    return _time(m, week)


@_rule(r"(?<![上下这本个每一两三四五六七八九十\d])(?:周|星期|礼拜)"
       r"(一(?![起直样般致共定些下切点])|[二三四五六日天1-7])")
def _cn_weekday(m, text):
    return _time(m, weekday_piece(T.CN_WEEKDAYS[m.group(1)]))


@_rule(r"(?<![上下这本个每])周末(?!愉快|快乐)|(?<![上下这本个每])双休日")
def _cn_weekend(m, text):
    return _time(m, weekend_piece())


_CN_THIRD = r"(初|上中旬|中下旬|中旬|上旬|下旬|中(?![国心文间华央])|底|末)"
_NOT_MONTH = r"(?![饼球光亮台刊薪票嫂子色经]|天(?!气))"


@_rule(rf"(?<![马线网一以地底私楼])(上上|上|这|本|下下|下)\s*一?\s*个?月(?:{_CN_THIRD}|{_NOT_MONTH})")
def _cn_month_relative(m, text):
    month = unit_anchor("month", REL[m.group(1)])
    if m.group(2):
        return _time(m, month, third_piece(THIRDS[m.group(2)]))
    return _time(m, month)


@_rule(rf"(?<![\d零〇一二两三四五六七八九十.])(1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])\s*月份?"
       rf"(?:{_CN_THIRD}|(3[01]|[12]\d|0?[1-9])(?![\d日号:.])|{_NOT_MONTH})")
def _cn_month(m, text):
    parts: list[Part] = [month_piece(cn_int(m.group(1)))]
    if m.group(2):
        parts.append(third_piece(THIRDS[m.group(2)]))
    if m.group(3):  # "3月18" without 日
        parts.append(mday_piece(int(m.group(3))))
    return _time(m, *parts)


# After a bare "18号" these characters make it a number, not a date (18号楼, 3号线).
_NUMBERED_THING = set("楼线房机位门床桌字口院店样码球员箱包件台车厅室栋仓场馆路街巷弄期届种型款版人坑窗柜舱站厂")


@_rule(r"(?<![\d./第])(3[01]|[12]\d|0?[1-9]|三十一?|二十[一二三四五六七八九]?|"
       r"十[一二三四五六七八九]?|[一二三四五六七八九])\s*(日|号)")
def _cn_mday(m, text):
    day = cn_int(m.group(1))
    if not 1 <= day <= 31:
        return None
    standalone = m.group(1).isdigit() and (m.group(2) == "日" or text[m.end():m.end() + 1]
                                           not in _NUMBERED_THING)
    return _time(m, mday_piece(day), standalone=standalone)


@_rule(r"(?<![\d.])((?:19|20)\d{2})\s*(?:[-/.]|年)\s*(1[0-2]|0?[1-9])\s*(?:[-/.]|月)\s*"
       r"(3[01]|[12]\d|0?[1-9])(?:\s*[日号])?(?!\d)")
def _numeric_date(m, text):
    try:
        return _time(m, date_anchor(date(int(m.group(1)), int(m.group(2)), int(m.group(3)))))
    except ValueError:
        return None


@_rule(r"(?<![\d.])((?:19|20)\d{2})[-/](1[0-2]|0?[1-9])(?![\d./-])")  # not "2024.1": a version
def _numeric_month(m, text):
    return _time(m, month_anchor(int(m.group(1)), int(m.group(2))))


@_rule(r"(?<![\d/])(\d{1,2})/(\d{1,2})/((?:19|20)\d{2})(?![\d/])")
def _us_date(m, text):
    first, second, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
    month, day = (second, first) if first > 12 else (first, second)
    try:
        return _time(m, date_anchor(date(year, month, day)))
    except ValueError:
        return None


_YEAR_THIRD = r"(初|中(?!秋|元)|底|末)"


@_rule(rf"(?<![\d.])((?:19|20)\d{{2}}|[一二三四五六七八九零〇]{{4}})\s*年(?:{_YEAR_THIRD}|(?![代级]))")
def _cn_year(m, text):
    year = cn_int(m.group(1))
    if not 1900 <= year <= 2099:
        return None
    return _year_token(m, year_anchor(year), m.group(2))


@_rule(r"(?<![\d.])(\d{2})年(?=\s*(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])\s*月)")
def _cn_short_year(m, text):
    return _time(m, year_anchor(2000 + int(m.group(1))))


@_rule(rf"(大前|前|去|今|明|后|上一|下一)年(?:{_YEAR_THIRD}|(?![级纪龄轻度]))")
def _cn_year_relative(m, text):
    offset = {"大前": -3, "前": -2, "去": -1, "上一": -1, "今": 0, "明": 1, "下一": 1, "后": 2}[m.group(1)]
    return _year_token(m, unit_anchor("year", offset), m.group(2))


def _year_token(m, year: Anchor, third: str | None) -> Token:
    if third:
        return _time(m, year, third_piece(THIRDS[third], "year"))
    return _time(m, year)


@_rule(rf"(?<![\d零〇一二两三四五六七八九十百千几每多去今明前后个半])年{_YEAR_THIRD}")
def _cn_year_third(m, text):
    return _time(m, third_piece(THIRDS[m.group(1)], "year"))


@_rule(rf"(?<![\d零〇一二两三四五六七八九十个每上下这本岁日])月{_CN_THIRD}|(?<!月)(上旬|中旬|下旬)")
def _cn_month_third(m, text):
    return _time(m, third_piece(THIRDS[m.group(1) or m.group(2)], "month"))


@_rule(r"(上|下)半年")
def _cn_half(m, text):
    return _time(m, half_piece(1 if m.group(1) == "上" else 2))


@_rule(r"(?<![马线网一以地底私楼])(上上|上|这|本|下)\s*一?\s*个?季度")
def _cn_quarter_relative(m, text):
    return _time(m, unit_anchor("quarter", REL[m.group(1)]))


@_rule(r"第?([一二三四1-4])季度|(?<![A-Za-z])[Qq]([1-4])(?![\dA-Za-z_])")
def _quarter(m, text):
    return _time(m, quarter_piece(cn_int(m.group(1) or m.group(2))))


@_rule(r"(春|夏|秋|冬)(?:天|季)(?![装款衣鞋])")
def _cn_season(m, text):
    return _time(m, season_piece(T.CN_SEASONS[m.group(1)]))


_CN_HOLIDAY_NAMES = "|".join(sorted(map(re.escape, T.CN_HOLIDAYS), key=len, reverse=True))


@_rule(rf"({_CN_HOLIDAY_NAMES})(?!节?(?:{'|'.join(T.CN_HOLIDAY_NOT_TIME)}))")
def _cn_holiday(m, text):
    entry = T.CN_HOLIDAYS[m.group(1)]
    key, standalone = entry if isinstance(entry, tuple) else (entry, True)
    return _time(m, holiday_piece(key), standalone=standalone)


@_rule(r"(去年|前年)的?(今天|这一?天|这个时候|这时候|同期|此时)|"
       r"\b(?:(a\s+year\s+ago\s+today|(?:on\s+)?this\s+day\s+last\s+year)|(this\s+time\s+last\s+year))\b", re.I)
def _same_day_last_year(m, text):
    """去年的今天 is that date; 去年这个时候 / this time last year a week around it."""
    years = 2 if m.group(1) == "前年" else 1
    exact = m.group(2) in ("今天", "这天", "这一天") or m.group(3)

    def resolve(now: datetime) -> Span:
        day = day_start(add_months(now, -12 * years))
        if exact:
            return Span(day, day + DAY, "day")
        return Span(day - 3 * DAY, day + 4 * DAY, "range")

    return _time(m, Anchor("day" if exact else "range", resolve))


@_rule(r"(今天|本周|这周|这个?月|本月|今年)的?早些时候")
def _cn_earlier(m, text):
    unit = {"今天": "day", "本周": "week", "这周": "week", "这月": "month", "这个月": "month",
            "本月": "month", "今年": "year"}[m.group(1)]
    return _time(m, since_start_of(unit, until_now=True))


@_rule(r"刚才|刚刚(?!好)|方才")
def _cn_just_now(m, text):
    return _time(m, JUST_NOW)


@_rule(r"(?<![\d.:])([01]?\d|2[0-4]|[零〇一二两三四五六七八九十]{1,3})\s*点(?:(半)|(一刻|三刻)|"
       r"([0-5]?\d|[零〇一二三四五六七八九十]{1,3})\s*分?)?钟?|(?<![\d.:])([01]?\d|2[0-4])\s*时")
def _cn_clock(m, text):
    hour = cn_int(m.group(1) or m.group(5))
    minute = 30 if m.group(2) else {"一刻": 15, "三刻": 45}.get(m.group(3) or "", 0)
    if m.group(4):
        minute = cn_int(m.group(4))
    if hour is None or hour > 24 or minute is None or minute > 59:
        return None
    return _time(m, hour_piece(hour, minute), standalone=False)


@_rule(r"(?<![\d:.])([01]?\d|2[0-3]):([0-5]\d)(?::\d\d)?\s*(am|pm|a\.m\.|p\.m\.)?(?![\d:])", re.I)
def _clock(m, text):
    meridiem = (m.group(3) or "").replace(".", "").lower() or None
    return _time(m, hour_piece(int(m.group(1)), int(m.group(2)), meridiem),
                 standalone=meridiem is not None)


@_rule(r"\b(1[0-2]|0?[1-9])(?::([0-5]\d))?\s*(am|pm|a\.m\.|p\.m\.)(?!\w)", re.I)
def _clock_meridiem(m, text):
    meridiem = m.group(3).replace(".", "").lower()
    return _time(m, hour_piece(int(m.group(1)), int(m.group(2) or 0), meridiem))


# Chinese operators
_CN_OPERATORS = [
    (r"以来|至今|迄今|到现在|到目前为止|到目前|到今天为止|开始|起(?![来床飞草码])", "since_suffix"),
    (r"自从", "since"), (r"从|自|打从", "from"), (r"截至|截止到?|直到", "until"),
    (r"到|至|~|～|—|–|-", "to"),
    (r"之前|以前|前(?![天年端面台线后进往景提缀夕])", "before_suffix"),
    (r"之后|以后|后(?![天来面台端续期果者悔盾院门])", "after_suffix"),
    (r"前后|左右", "around_suffix"), (r"为止", "until_suffix"),
]

# English ------------------------------------------------------------------------------

_EN_COUNT = (r"\d+(?:\.\d+)?|a\s+couple\s+of|a\s+couple|couple\s+of|a\s+few|few|several|some|"
             r"half\s+an?|an?|" + "|".join(sorted(T.EN_NUMBERS, key=len, reverse=True)))
_EN_UNITS = r"minutes?|mins?|hours?|hrs?|days?|weeks?|fortnights?|months?|years?|quarters?"
_EN_MONTHS = "|".join(sorted(T.EN_MONTHS, key=len, reverse=True))
_EN_MOD = {"last": -1, "previous": -1, "the previous": -1, "this past": -1, "past": -1,
           "this": 0, "current": 0, "the current": 0, "next": 1, "the following": 1,
           "coming": 1, "this coming": 1, "the next": 1}


def _mod(word: str | None) -> str | None:
    return re.sub(r"\s+", " ", word.lower()) if word else None


@_rule(r"\b(the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|today|tomorrow|"
       r"tonight)\b(?!\s+(?:film|movie|song|album|show)\b)", re.I)
def _en_day(m, text):
    word = _mod(m.group(1))
    offset = {"the day before yesterday": -2, "the day after tomorrow": 2, "yesterday": -1,
              "today": 0, "tomorrow": 1, "tonight": 0}[word]
    if word == "tonight":
        return _time(m, unit_anchor("day", 0), part_piece("night"))
    return _time(m, unit_anchor("day", offset))


@_rule(r"\b(last\s+night|this\s+(?:morning|afternoon|evening))\b", re.I)
def _en_day_and_part(m, text):
    word = _mod(m.group(1))
    if word == "last night":
        return _time(m, unit_anchor("day", -1), part_piece("night"))
    return _time(m, unit_anchor("day", 0), part_piece(T.EN_DAY_PARTS[word.split()[1]]))


@_rule(r"\b(?:in|during)\s+the\s+(morning|afternoon|evening)\b|\bat\s+(night|noon|midday|lunchtime|"
       r"lunch\s+time)\b", re.I)
def _en_part_with_preposition(m, text):
    return _time(m, part_piece(T.EN_DAY_PARTS[_mod(m.group(1) or m.group(2))]))


@_rule(r"\b(morning|afternoon|evening|night|noon|midday|lunchtime|daytime)\b", re.I)
def _en_part(m, text):
    return _time(m, part_piece(T.EN_DAY_PARTS[m.group(1).lower()]), standalone=False)


@_rule(rf"\b({_EN_COUNT})\s+({_EN_UNITS})\s+(ago|back|from\s+now)\b", re.I)
def _en_ago(m, text):
    count = quantity(m.group(1))
    if count is None or count[1] > 5000:
        return None
    direction = 1 if m.group(3).lower().startswith("from") else -1
    unit = en_unit(m.group(2))
    if m.group(2).lower().startswith("fortnight"):
        count = (count[0] * 2, count[1] * 2)
    return _time(m, ago_anchor(count[0], count[1], unit, direction))


@_rule(r"\b(the\s+other\s+day|just\s+now|a\s+moment\s+ago|moments\s+ago)\b", re.I)
def _en_vague_recent(m, text):
    if _mod(m.group(1)) == "the other day":
        return _time(m, ago_anchor(*T.FEW, "day"))
    return _time(m, JUST_NOW)


@_rule(rf"\b(?:the\s+)?(?:past|last|previous|prior)\s+({_EN_COUNT})\s+({_EN_UNITS})\b", re.I)
def _en_rolling_count(m, text):
    count = quantity(m.group(1))
    if count is None or count[1] > 5000:
        return None
    high = count[1] * (2 if m.group(2).lower().startswith("fortnight") else 1)
    return _time(m, rolling_anchor(high, en_unit(m.group(2))))


@_rule(r"\b(?:the\s+)?past\s+(hour|day|week|fortnight|month|year|quarter)\b|"
       r"\bthe\s+last\s+(hour|day|week|fortnight|month|year|quarter)\b(?!\s+of\b)", re.I)
def _en_rolling_one(m, text):
    word = (m.group(1) or m.group(2)).lower()
    return _time(m, rolling_anchor(2 if word == "fortnight" else 1, en_unit(word)))


@_rule(r"\b(last|this|next|previous|the\s+previous|the\s+following|current|the\s+current|"
       r"this\s+past|this\s+coming|coming)\s+(week|month|year|quarter|weekend|spring|summer|fall|"
       r"autumn|winter)\b(?!\s+of\b)", re.I)
def _en_relative_unit(m, text):
    mod, unit = _mod(m.group(1)), m.group(2).lower()
    offset = _EN_MOD[mod]
    if unit == "weekend":
        return _time(m, unit_anchor("week", offset), weekend_piece())
    if unit in T.EN_SEASONS:
        season = T.EN_SEASONS[unit]
        if offset == 0:
            return _time(m, unit_anchor("year", 0), season_piece(season))
        return _time(m, season_piece(season, "ended" if offset < 0 else "upcoming"))
    return _time(m, unit_anchor(unit, offset))


def week_of_piece() -> Piece:
    """"the week of March 9", "3月9日那周": the Monday-to-Sunday week around a day."""

    def select(container: Span) -> Span | None:
        return unit_span("week", container.start) if container.grain == "day" else None

    return Piece("week_of", "day", select)


@_rule(r"\bthe\s+week\s+of\b", re.I)
def _en_week_of(m, text):
    return _time(m, week_of_piece(), standalone=False)


@_rule(r"(?<=[日号天])(?:所在的?)?那一?(?:周|个星期|个礼拜)")
def _cn_week_of(m, text):
    return _time(m, week_of_piece(), standalone=False)


@_rule(r"\bthe\s+weekend\b(?!\s+(?:before|of)\b)", re.I)
def _en_the_weekend(m, text):
    return _time(m, weekend_piece())


@_rule(r"\bthe\s+(week|weekend|month|year)\s+before\s+last\b", re.I)
def _en_before_last(m, text):
    unit = m.group(1).lower()
    if unit == "weekend":
        return _time(m, unit_anchor("week", -2), weekend_piece())
    return _time(m, unit_anchor(unit, -2))


@_rule(r"\bthe\s+(week|month|year)\b", re.I)
def _en_the_unit(m, text):  # "the end of the month", "the first half of the year"
    # Only after "end of"/"half of": "employee of the month" is no time.
    standalone = bool(re.search(r"\b(?:beginning|start|middle|end|half)\s+of\s*$", text[:m.start()], re.I))
    return _time(m, unit_anchor(m.group(1).lower(), 0), standalone=standalone)


@_rule(r"(?<!good )(?<!black )(?<!cyber )\b(?:(last|this|next|previous|the\s+previous|the\s+following|"
       r"this\s+past|past|this\s+coming|coming)\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
       r"(?!\.\w|\s+(?:school|best|roast|papers?|services?|brunch|funday|blues|league|market|times|"
       r"night\s+live|night\s+football)\b)",
       re.I)
def _en_weekday(m, text):
    weekday = T.EN_WEEKDAYS[m.group(2).lower()]
    mod = _mod(m.group(1))
    if mod in ("last", "previous", "the previous", "this", "next", "the following"):
        return _time(m, unit_anchor("week", _EN_MOD[mod]), weekday_piece(weekday))
    if mod in ("this coming", "coming"):
        return _time(m, weekday_piece(weekday, "upcoming"))
    return _time(m, weekday_piece(weekday))


# Words before a bare month name or year that make it a date ("in May", "since 2025").
_DATE_PREPOSITION = re.compile(
    r"(?:\b(?:in|during|since|from|of|by|until|till|before|after|between|and|to|through|throughout|"
    r"for|early|late|mid|around|circa|last|this|next|on|spring|summer|fall|autumn|winter)\s*-?\s*|"
    r"\bQ[1-4]\s+|\bH[12]\s+|\b(?:" + _EN_MONTHS + r")\.?\s+)$", re.I)


def _after_preposition(text: str, start: int) -> bool:
    return bool(_DATE_PREPOSITION.search(text[max(0, start - 24):start]))


_EN_DAY_AFTER_MONTH = (r"(?:\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\b(?!\s*(?::|am\b|pm\b|%|hours?\b|"
                       r"minutes?\b|days?\b|weeks?\b|months?\b|years?\b|people\b|times\b|percent\b)))?")
_EN_YEAR_AFTER = r"(?:,?\s+(?:of\s+)?((?:19|20)\d{2})\b)?"


@_rule(rf"\b(?:(last|this|next|previous|this\s+past|this\s+coming)\s+)?({_EN_MONTHS})\b\.?"
       rf"{_EN_DAY_AFTER_MONTH}{_EN_YEAR_AFTER}", re.I)
def _en_month(m, text):
    name, day, year = m.group(2).lower(), m.group(3), m.group(4)
    mod = _mod(m.group(1))
    full_name = name in ("january", "february", "march", "april", "may", "june", "july",
                         "august", "september", "october", "november", "december")
    if not (day or year or (full_name and mod)):
        if not full_name:
            return None  # "Dec", "mar" alone are too often not months
        if name in T.EN_AMBIGUOUS_MONTHS and not _after_preposition(text, m.start()):
            return None  # "May's gift", "March of Dimes"
    return _month_token(m, T.EN_MONTHS[name], day, year, mod)


@_rule(rf"\b(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_EN_MONTHS})\b\.?{_EN_YEAR_AFTER}", re.I)
def _en_day_month(m, text):
    return _month_token(m, T.EN_MONTHS[m.group(2).lower()], m.group(1), m.group(3), None)


def _month_token(m, month: int, day: str | None, year: str | None, mod: str | None) -> Token | None:
    rule = {"last": "ended", "previous": "ended", "this past": "ended", "next": "upcoming",
            "this coming": "upcoming"}.get(mod or "", "started")
    parts: list[Part] = [month_piece(month, rule)]
    if day:
        if not 1 <= int(day) <= 31:
            return None
        parts.append(mday_piece(int(day)))
    if year:
        parts.append(year_anchor(int(year)))
    elif mod == "this":
        parts.append(unit_anchor("year", 0))
    return _time(m, *parts)


@_rule(r"(?:\s*([-–])\s*|\s+(to|through|until|till|and)\s+(?:the\s+)?)(\d{1,2})(?:st|nd|rd|th)?\b"
       r"(?!\s*(?::|am\b|pm\b|%|hours?\b|minutes?\b|days?\b|weeks?\b|months?\b|years?\b|people\b))", re.I)
def _en_day_after_dash(m, text):
    """"March 1-10", "from March 1st to the 10th": the connector, then a bare day."""
    day = int(m.group(3))
    if not 1 <= day <= 31:
        return None
    connector = m.group(1) or m.group(2)
    kind = "and" if connector.lower() == "and" else "to"
    link = Token(m.start(1) if m.group(1) else m.start(2), m.start(3), kind)
    return [link, Token(m.start(3), m.end(), "time", (mday_piece(day),), False)]


@_rule(r"\bon\s+the\s+(\d{1,2})(?:st|nd|rd|th)\b", re.I)
def _en_mday(m, text):
    day = int(m.group(1))
    return _time(m, mday_piece(day)) if 1 <= day <= 31 else None


@_rule(r"(?<![\w$#.,/])((?:19|20)\d{2})(?![\w%]|[.,/:-]\d)")
def _en_year(m, text):
    if text[m.end():m.end() + 1] == "年" or text[m.end():m.end() + 2].strip() == "年":
        return None  # the Chinese rule reads "2025 年"
    return _time(m, year_anchor(int(m.group(1))), standalone=_after_preposition(text, m.start()))


@_rule(r"\b(?:the\s+)?(first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\b", re.I)
def _en_quarter(m, text):
    order = {"first": 1, "second": 2, "third": 3, "fourth": 4}
    word = m.group(1).lower()
    return _time(m, quarter_piece(order.get(word) or int(word[0])))


@_rule(r"\b(?:the\s+)?(first|second|latter|1st|2nd)\s+half\s+of\b|\bH([12])\b", re.I)
def _en_half(m, text):
    word = (m.group(1) or m.group(2)).lower()
    return _time(m, half_piece(1 if word in ("first", "1st", "1") else 2), standalone=False)


@_rule(r"\b(?:(?:in|during)\s+the\s+)?(spring|summer|fall|autumn|winter)\b"
       r"(?!\s+(?:framework|boot|cloud|data|security|collection|sale|roll)\b)", re.I)
def _en_season(m, text):
    standalone = bool(re.match(r"(?:in|during)\s", m.group(), re.I)) or _after_preposition(text, m.start(1))
    return _time(m, season_piece(T.EN_SEASONS[m.group(1).lower()]), standalone=standalone)


@_rule(r"\b(?:the\s+)?(?:(beginning|start|middle|end)\s+of|(early|mid|late))(?:\s*-\s*|\s+)(?=\w)", re.I)
def _en_third(m, text):
    return _time(m, third_piece(THIRDS[(m.group(1) or m.group(2)).lower()]), standalone=False)


@_rule(r"\bearlier\s+(today|this\s+(?:week|month|year))\b", re.I)
def _en_earlier(m, text):
    unit = m.group(1).lower().split()[-1]
    return _time(m, since_start_of("day" if unit == "today" else unit, until_now=True))


@_rule(r"\b(?:so\s+far\s+this\s+(week|month|year)|this\s+(week|month|year)\s+so\s+far|"
       r"(week|month|year)[\s-]to[\s-]date)\b|\b(YTD)\b", re.I)
def _en_so_far(m, text):
    unit = (m.group(1) or m.group(2) or m.group(3) or "year").lower()
    return _time(m, since_start_of(unit, until_now=False))


def _apostrophes(name: str) -> str:
    return re.escape(name).replace("'", "['’]?").replace(r"\ ", r"\s+").replace(r"\-", r"[-\s]")


_EN_HOLIDAY_NAMES = "|".join(_apostrophes(n) for n in sorted(T.EN_HOLIDAYS, key=len, reverse=True))


@_rule(rf"\b(?:(last|this|next)\s+)?({_EN_HOLIDAY_NAMES})(?![\w'’])"
       rf"(?!\s+(?:{'|'.join(T.EN_HOLIDAY_NOT_TIME)})\b)", re.I)
def _en_holiday(m, text):
    name = re.sub(r"\s+", " ", m.group(2).lower()).replace("’", "'")
    key = T.EN_HOLIDAYS.get(name) or _holiday_without_apostrophe(name)
    if key is None:
        return None
    mod = _mod(m.group(1))
    if mod == "this":
        return _time(m, unit_anchor("year", 0), holiday_piece(key))
    return _time(m, holiday_piece(key, {"last": "ended", "next": "upcoming"}.get(mod or "", "started")))


def _holiday_without_apostrophe(name: str) -> str | None:
    bare = name.replace("'", "").replace("-", " ")
    for known, key in T.EN_HOLIDAYS.items():
        if known.replace("'", "").replace("-", " ") == bare:
            return key
    return None


_EN_OPERATORS = [
    (r"\b(?:(?:up\s+)?(?:until|till|to)\s+(?:now|today|date|the\s+present)|so\s+far|onwards?|"
     r"to\s+date)\b", "since_suffix"),
    (r"\b(?:ever\s+since|since|starting(?:\s+from)?)\b", "since"),
    (r"\bfrom\b", "from"), (r"\bbetween\b", "between"),
    (r"\b(?:up\s+until|up\s+to)\b", "until"), (r"\b(?:until|till|til)\b", "until_or_to"),
    (r"\b(?:to|through|thru)\b", "to"), (r"\band\b", "and"),
    (r"\b(?:before|prior\s+to)\b", "before"), (r"\bafter\b", "after"),
    (r"\b(?:around|circa|approximately|roughly)\b", "around"),
]


def _operator_rule(pattern: str, kind: str, flags: int) -> None:
    _rule(pattern, flags)(lambda m, text: Token(m.start(), m.end(), kind))


for _pattern, _kind in _CN_OPERATORS:
    _operator_rule(_pattern, _kind, 0)
for _pattern, _kind in _EN_OPERATORS:
    _operator_rule(_pattern, _kind, re.I)


def lex(text: str) -> list[Token]:
    """All tokens, keeping the leftmost and then longest where they overlap."""
    candidates = []
    for pattern, build in _compiled_rules():
        for match in pattern.finditer(text):
            built = build(match, text)
            for token in built if isinstance(built, list) else [built] if built else []:
                if token.end > token.start:
                    candidates.append(token)
    candidates.sort(key=lambda t: (t.start, t.start - t.end, t.kind != "time"))
    chosen: list[Token] = []
    for token in candidates:
        if not chosen or token.start >= chosen[-1].end:
            chosen.append(token)
    return chosen


# --- parsing tokens into expressions ---------------------------------------------------------

# What may sit between the tokens of one expression.
_GLUE = re.compile(r"(?:\s|[,，、的()（）]|['’]s\b|\b(?:of|in\s+the|on\s+the|on|at|in)\b)*", re.I)


class Found(NamedTuple):
    span: Span
    start: int  # the interpreted text, as offsets into the query
    end: int
    cut_start: int  # where the remainder cut begins (a "from" that only meant "at")


def _groups(tokens: list[Token], text: str) -> Iterator[list[Token]]:
    group: list[Token] = []
    for token in tokens:
        if group and not _GLUE.fullmatch(text, group[-1].end, token.start):
            yield group
            group = []
        group.append(token)
    if group:
        yield group


def _expressions(text: str, now: datetime) -> Iterator[Found]:
    for group in _groups(lex(text), text):
        index = 0
        while index < len(group):
            found, index_after = _expression_at(group, index, now)
            if found is None:
                index += 1
                continue
            index = index_after
            if not _is_recurring_or_greeting(text, found.cut_start):
                yield found


# Recurring ("每周一", "every Friday"), greetings ("Merry Christmas") and times
# relative to another event ("前一天晚上", "第二天") are no range of their own.
_RECURRING = re.compile(r"(?:每(?:个|一个?)?(?:天|日|周|星期|礼拜|月|年|逢)?|逢|(?:前一|后一|第二|次)[天日]的?|"
                        r"\b(?:every|each|happy|merry)\s+(?:other\s+)?)\s*$", re.I)


def _is_recurring_or_greeting(text: str, start: int) -> bool:
    return bool(_RECURRING.search(text[max(0, start - 12):start]))


_SUFFIXES = ("since_suffix", "before_suffix", "after_suffix", "around_suffix", "until_suffix")
_PREFIXES = ("from", "since", "between", "until", "until_or_to", "before", "after", "around", "to")
_CONNECTORS = ("to", "until_or_to")
# Which prefixes belong to the expression when a range or a suffix follows.
_PREFIX_JOINS = {"range": ("from", "since", "between"), "since_suffix": ("from", "since"),
                 "until_suffix": ("to", "until", "until_or_to")}


def _expression_at(tokens: list[Token], index: int, now: datetime) -> tuple[Found | None, int]:
    prefix = tokens[index] if tokens[index].kind in _PREFIXES else None
    point_index = index + (1 if prefix else 0)
    first = _take_point(tokens, point_index, now)
    if first is None:
        return None, index + 1
    parts, span, after = first
    start, end = tokens[point_index].start, tokens[after - 1].end
    operator = None
    if after < len(tokens) and (tokens[after].kind in _CONNECTORS or
                                (tokens[after].kind == "and" and prefix and prefix.kind == "between")):
        second = _take_point(tokens, after + 1, now, (span, parts))
        if second is not None:
            span = Span(span.start, second[1].end, "range")
            end, after = tokens[second[2] - 1].end, second[2]
            operator = "range"
    if operator is None and after < len(tokens) and tokens[after].kind in _SUFFIXES:
        operator, end, after = tokens[after].kind, tokens[after].end, after + 1
    cut_start = start
    if prefix is not None:
        if operator is not None:
            if prefix.kind in _PREFIX_JOINS.get(operator, ()):
                start = cut_start = prefix.start
        elif prefix.kind in ("from", "between"):
            cut_start = prefix.start  # "notes from last week": "from" only means "at"
        elif prefix.kind == "to" or (prefix.kind == "around" and all(isinstance(p, Anchor) for p in parts)):
            pass  # "提到上周的", "walked around yesterday": not part of the time
        else:
            operator = "until" if prefix.kind == "until_or_to" else prefix.kind
            start = cut_start = prefix.start
    if operator is not None:
        span = _apply(operator, span, now)
        if span is None or span.start >= span.end:
            return None, index + 1
    return Found(span, start, end, cut_start), after


def _apply(operator: str, span: Span, now: datetime) -> Span | None:
    tonight = day_start(now) + DAY
    if operator == "range":
        return span
    if operator in ("since", "since_suffix"):
        return Span(span.start, tonight, "range") if span.start < tonight else None
    if operator in ("before", "before_suffix"):
        return Span(OPEN_START, span.start, "range")
    if operator in ("until", "until_suffix"):
        return Span(OPEN_START, span.end, "range")
    if operator in ("after", "after_suffix"):
        return Span(span.end, tonight if span.end < tonight else OPEN_END, "range")
    if operator in ("around", "around_suffix"):
        if _ANCHOR_ORDER.get(span.grain, 9) < _ANCHOR_ORDER["day"]:
            return span  # "3月左右": a month is already vague enough
        if span.grain == "hour":  # "around 3pm": half an hour either side
            return Span(span.start - HOUR / 2, span.end + HOUR / 2, "range")
        first = day_start(span.start) - 3 * DAY
        last = day_start(span.end - timedelta(microseconds=1)) + 4 * DAY
        return Span(first, last, "range")
    return span


def _take_point(tokens: list[Token], index: int, now: datetime,
                after: tuple[Span, list[Part]] | None = None) -> tuple[list[Part], Span, int] | None:
    """The longest run of time tokens from ``index`` that resolves to one range."""
    best = None
    parts: list[Part] = []
    standalone = after is not None  # the second end of a range leans on the first
    for position in range(index, len(tokens)):
        token = tokens[position]
        if token.kind != "time":
            break
        parts = parts + list(token.parts)
        standalone = standalone or token.standalone
        if not standalone:
            continue
        try:
            if after is None:
                span = resolve_point(parts, now)
            else:
                span = resolve_after(after[0], after[1], parts, now)
        except (ValueError, OverflowError):  # a date outside what datetime can hold
            span = None
        if span is None or span.start >= span.end:
            break
        best = (parts, span, position + 1)
    return best


# --- the remainder ------------------------------------------------------------------------------

_FILLER_AFTER = re.compile(r"(?:['’]s\b|的?(?:时候|那天|那周|那会儿?|那段时间|期间|之间|当天)|之内|以内|当中|"
                           r"里(?![程面子])|内(?![容部存网地心外涵]))?的?")
_PREPOSITION_BEFORE = re.compile(r"(?:(?<![存现实正好所自内])在|(?<![由关对至等属基鉴])于|"
                                 r"\b(?:in|on|at|during|over|for|within|by))\s*$", re.I)


def _remainder(text: str, scanned: str, found: Found) -> str:
    cut_end = _FILLER_AFTER.match(scanned, found.end).end()
    before = _PREPOSITION_BEFORE.search(scanned[:found.cut_start])
    cut_start = before.start() if before else found.cut_start
    left, right = text[:cut_start], text[cut_end:]
    joiner = " " if left[-1:].isalnum() and right[:1].isalnum() and left[-1:].isascii() else ""
    rest = (left + joiner + right)
    rest = re.sub(r"\s+", " ", rest)
    rest = re.sub(r"\s+([?.!,;:，。？！；：])", r"\1", rest)
    return rest.strip(" \t\n,，、;；:：").strip()
