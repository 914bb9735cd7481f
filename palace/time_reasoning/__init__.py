"""Time reasoning layer: find the time expression in a query and turn it into a datetime range.

    >>> tr = TimeReasoner().parse("上周讨论的数据库选型", now=datetime(2026, 3, 18, 10))
    >>> tr.start, tr.end, tr.text, tr.remainder
    (datetime(2026, 3, 9, 0, 0), datetime(2026, 3, 16, 0, 0), '上周', '讨论的数据库选型')

A self-contained rule engine (no dateparser, no jionlp: the CLI must start fast),
for Chinese, English and both mixed.  It works in three steps:

1. **Lex** (``lexicon``): every rule is a regular expression that recognises
   one *token*: a time word ("上周四", "March 18", "下午", "三天前") or an operator
   ("到", "since", "以来").  A time token carries *parts*: an ``Anchor`` (a range
   fixed by ``now`` alone: 昨天, last week, 2025年) and/or ``Piece``s (a calendar
   slot that needs a container: 12月 within a year, 周三 within a week, 下午 within
   a day).  Names, holidays and the lunar calendar are in ``tables``.
2. **Group** (here): neighbouring tokens separated only by glue (spaces, 的, "of",
   "at"…) form one point: "去年" + "12月" + "18日" + "下午".  Operators around
   points make ranges ("3月1日到3月10日", "since Monday", "3月1日至今", "春节前").
3. **Resolve** (``calendar``): parts are sorted coarse to fine, so
   "March 18, 2025" and "2025年3月18日" resolve the same way; an anchor is narrowed
   by the pieces after it, and pieces with no anchor take their most recent
   occurrence (see below).

The first expression found wins; ``remainder`` is the query without it.

Choices for ambiguous cases (each is what a memory query most likely means):

* Ranges are ``[start, end)``; weeks start on Monday.
* A bare calendar slot (12月, 18号, 春节, 下午, the weekend, "in February") is the
  most recent one that has *started*: "12月" on 2026-03-18 is December 2025, "3月"
  is this March, "下午" at 10:00 is yesterday afternoon.
* A bare weekday (周三, "on Monday") is the most recent one *before today*: whoever
  means today says 今天.  "上周三"/"last Wednesday" is the Wednesday of the previous
  calendar week, "这周三"/"this Wednesday" the one of this week (maybe ahead).
* "N units ago" is a point, ``now - N units``, widened by a tolerance that grows
  with the unit (``POINT_TOLERANCE_DAYS``): 三天前 is that day, 两周前/"2 weeks ago"
  that day ±3 days, 一个月前/"a month ago" ±5 days, 一年前 ±7 days; a half unit
  (半个月前, 半年前) takes the next finer unit's tolerance.  ``TimeRange.point`` is
  the instant, so search can rank by closeness to it.  Calendar words keep their
  unit: 上周/last week, 上个月/last month, 去年/last year.  With a slot after it
  ("两周前的周三") the calendar unit that holds the point is searched for the slot.
  Hours and minutes ago are a window of ±N/2 around the instant (两小时前 at
  10:00 = 07:00–09:00).
* Rolling windows (最近三天, 过去7天, "the past week") are whole days and include
  today: the N units that end at midnight tonight.  Hour/minute windows end now.
* Vague counts (几, 前几天, "a few", "several") stand for 1–7 units; 前两天 for 1–3
  days ago, "a couple of days ago" and 两三天前 for 2–3 days ago, 十几天前 for 11–19.
  Words with no extent at all (最近, 之前, recently, a while ago) are not time
  expressions, nor are durations (三天, 两周时间, "3 days of training") and "三天内"
  alone (as often a deadline ahead as a window behind).
* Parts of the day: 凌晨 00–06, 早上/上午/morning 06–12, 中午/noon 11–14,
  下午/afternoon 12–18, 傍晚 17–19, English "evening" 18–24, and night (晚上, 夜里,
  昨晚, tonight, last night) 18:00 to 06:00 the next morning: people say 昨晚 about
  1 a.m. too.  A clock time ("下午3点", "3pm") is that hour: [15:00, 16:00); without
  上午/下午/am/pm, 1–6 o'clock is the afternoon.  A bare clock time ("3点") is not a
  time expression at all: "三点建议" is three suggestions.
* Parts of a period are one operator (``portion_piece``) on any month, year or week:
  初/中/底 and early/mid/late split it in thirds: days 1–10/11–20/21–end of a month
  (the Chinese 上中下旬), Jan–Apr/May–Aug/Sep–Dec of a year; "the first/second half of",
  上半月/下半月 in halves (days 1–15/16–end); "the first…fourth week of", 3月第一周 in
  seven-day blocks (1–7, 8–14…), "the last week of"/最后一周 the last seven days.
* Two-digit years ('24, 24年3月, 3/5/24) are 20YY, or 19YY when that would be over 20
  years ahead; "24年" alone counts only with a month, a part of the year, a holiday or
  的时候 after it, or 在/从 before it ("工作了24年" is a duration).  Dotted dates: Y.M.D
  (2024.3.5) and, with the year last, D.M.Y (5.3.2024, the European order; M.D.Y when
  the second number is over 12); dotted numbers without a four-digit year (3.12.1,
  24.3.0) and Y.M (2024.1) are versions.
* Multi-day holidays are the public holiday: 春节 = 除夕 to 初七, 国庆 = 1–7 Oct,
  劳动节 = 1–5 May; other holidays are their day.  Lunar dates come from a table
  for 2015–2035.  "去年春节" is the one whose first day falls in last year.  元宵,
  清明, 五一, 六一, 重阳 alone are too ambiguous (a dumpling, "clean", a square, a
  name): with 节 or a year (元宵节, 去年元宵) they count.
* "X开始的Y" is Y begun at X, the point X ("八个月前开始的副业"); "从X开始(的)" is since X.
  "3月以来" is since March (a count of months takes 个: 三个月以来 is the rolling window).
* "Since X"/X以来/X至今 and "after X" end at midnight tonight (an "after X" still
  ahead runs to ``OPEN_END``, 9000-01-01); "before X"/X之前 start at ``OPEN_START``,
  1970-01-01, as does "until X"/截至X/到X为止.  "Around X"/X前后/
  X左右 adds three days on each side of a date or holiday, half an hour around a
  clock time.  Windows next to a day or holiday: "the week before X"/X前一周/"two days
  after X"/X后三天 are the N units just before X starts or after it ends; "X week",
  "the week of X", X那周 the Monday–Sunday week of X's first day; "X weekend" X joined to
  its weekend (Thanksgiving Thu–Sun, Memorial Day Sat–Mon, Easter Sat–Sun).  Easter and
  the feasts it moves (Good Friday, Easter Monday, Ash Wednesday, Pentecost…) are
  computed; lunar festivals (and 腊八) come from the table.  "去年的今天"/"a year ago today" is that date, "去年这个时候"/"this time
  last year" the week around it.  In a range the second end borrows what it leaves
  out from the first ("3月1日到10日", "上周二到周四").
* Greetings and things are not times: 周末愉快, 圣诞快乐, Merry Christmas,
  Christmas tree, 下午茶, 晚上好, 每周一 (recurring), "on Mondays", 五月天 (a band);
  nor are words that only look like dates: 周报, 一周年, 18号楼, 3号线, "May's",
  "March of Dimes", "Spring Boot", "Monday.com", version numbers.  Titles and
  quotations (《春天的故事》, “Last Week Tonight”, "Wednesday") hold no time of the query,
  and a capitalised month or season starting a name is a name ("May Chen", "Summer of
  Code").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Iterator, NamedTuple

from palace.time_reasoning.calendar import (DAY, GRAIN_ORDER, HOUR, OPEN_END, OPEN_START, Anchor, Part, Span,
                             day_start, move, resolve_after, resolve_point)
from palace.time_reasoning.lexicon import Token, lex

__all__ = ["TimeRange", "TimeReasoner", "parse_time", "OPEN_START", "OPEN_END"]


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
    # "N units ago": the instant meant (now − N units); search ranks by closeness to it
    point: datetime | None = None

    def to_dict(self) -> dict:
        return {"start": self.start.isoformat(), "end": self.end.isoformat(),
                "text": self.text, "remainder": self.remainder,
                "granularity": self.granularity, "span": list(self.span),
                "point": self.point.isoformat() if self.point else None}


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
        start, end, point = found.span.start, found.span.end, found.span.point
        if tz is not None:
            start, end = start.replace(tzinfo=tz), end.replace(tzinfo=tz)
            point = point.replace(tzinfo=tz) if point else None
        return TimeRange(start=start, end=end, text=text[found.start:found.end].strip(),
                         remainder=_remainder(text, scanned, found),
                         granularity=_GRANULARITY_NAMES.get(found.span.grain, found.span.grain),
                         span=(found.start, found.end), point=point)
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

# --- parsing tokens into expressions ---------------------------------------------------------

# What may sit between the tokens of one expression.
_GLUE = re.compile(r"(?:\s|[,，、的()（）]|['’]s\b|\b(?:of|in\s+the|on\s+the|on|at|in|the)\b|"
                   r"(?<=\d)T)*", re.I | re.A)  # the T of 2026-03-18T14:30


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


# A title or a quotation (《春天的故事》, “Last Week Tonight”, "Wednesday") names a thing:
# the time words inside it are not the query's time.
_QUOTED = re.compile(r"《[^》]*》|「[^」]*」|『[^』]*』|“[^”]*”|\"[^\"]*\"")


def _unquoted(tokens: list[Token], text: str) -> list[Token]:
    if not any(mark in text for mark in "《「『“\""):
        return tokens
    quoted = [m.span() for m in _QUOTED.finditer(text)]
    return [t for t in tokens if not any(start < t.end and t.start < end for start, end in quoted)]


def _expressions(text: str, now: datetime) -> Iterator[Found]:
    for group in _groups(_unquoted(lex(text), text), text):
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
                        r"\b(?:every|each|happy|merry)\s+(?:other\s+)?)\s*$", re.I | re.A)


def _is_recurring_or_greeting(text: str, start: int) -> bool:
    return bool(_RECURRING.search(text[max(0, start - 12):start]))


# Windows next to a point carry (count, unit): "the week before X" before it, X前一周 after it.
_SUFFIXES = ("since_suffix", "began_suffix", "before_suffix", "after_suffix", "around_suffix",
             "until_suffix", "window_before_suffix", "window_after_suffix")
_PREFIXES = ("from", "since", "between", "until", "until_or_to", "before", "after", "around", "to",
             "window_before", "window_after")
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
    operator, window = None, None
    if after < len(tokens) and (tokens[after].kind in _CONNECTORS or
                                (tokens[after].kind == "and" and prefix and prefix.kind == "between")):
        second = _take_point(tokens, after + 1, now, (span, parts))
        if second is not None:
            span = Span(span.start, second[1].end, "range")
            end, after = tokens[second[2] - 1].end, second[2]
            operator = "range"
    if operator is None and after < len(tokens) and tokens[after].kind in _SUFFIXES:
        if tokens[after].kind != "began_suffix":
            window = tokens[after].parts
            operator, end, after = tokens[after].kind, tokens[after].end, after + 1
        elif prefix is not None and prefix.kind in ("from", "since"):
            operator, end, after = "since_suffix", tokens[after].end, after + 1
        # else "X开始的Y": Y begun at X, the point X itself ("开始的" stays in the remainder)
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
            window = prefix.parts
    if operator is not None:
        span = _apply(operator, span, now, window)
        if span is None or span.start >= span.end:
            return None, index + 1
    return Found(span, start, end, cut_start), after


def _apply(operator: str, span: Span, now: datetime, window: tuple = ()) -> Span | None:
    tonight = day_start(now) + DAY
    if operator == "range":
        return span
    if operator.startswith("window_before"):  # the N units just before X starts
        return Span(move(span.start, -window[0], window[1]), span.start, "range")
    if operator.startswith("window_after"):  # the N units just after X ends
        return Span(span.end, move(span.end, window[0], window[1]), "range")
    if operator in ("since", "since_suffix"):
        return Span(span.start, tonight, "range") if span.start < tonight else None
    if operator in ("before", "before_suffix"):
        return Span(OPEN_START, span.start, "range")
    if operator in ("until", "until_suffix"):
        return Span(OPEN_START, span.end, "range")
    if operator in ("after", "after_suffix"):
        return Span(span.end, tonight if span.end < tonight else OPEN_END, "range")
    if operator in ("around", "around_suffix"):
        if GRAIN_ORDER.get(span.grain, 9) < GRAIN_ORDER["day"]:
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
                           r"里(?![程面子])|内(?![容部存网地心外涵]))?(?:\s*的(?![确话]))?")
_PREPOSITION_BEFORE = re.compile(r"(?:(?<![存现实正好所自内])在|(?<![由关对至等属基鉴])于|"
                                 r"\b(?:in|on|at|during|over|for|within|by))\s*$", re.I | re.A)


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
