"""The lexicon of ``palace.time_reasoning``: one regular expression per kind of token.

Each rule recognises a time word ("上周四", "March 18", "下午", "三天前") and builds a
``Token`` carrying its calendar parts, or an operator ("到", "since", "以来").  Rules
are compiled on first use, so that importing stays cheap for the CLI commands that
never parse a time.  ``lex`` keeps, where tokens overlap, the leftmost and then the
longest.
"""

from __future__ import annotations

import functools
import re
from datetime import date, datetime
from typing import Callable, NamedTuple, Union

from palace.time_reasoning import tables as T
from palace.time_reasoning.calendar import (DAY, JUST_NOW, Anchor, Part, Span, add_months, ago_anchor, date_anchor,
                             day_start, half_piece, holiday_piece, hour_piece, mday_piece, month_anchor,
                             month_piece, nth_weekday_piece, part_piece, portion_piece, quarter_piece,
                             rolling_anchor, season_piece, short_year_anchor,
                             since_start_of, third_piece, unit_anchor, week_of_piece, weekday_piece,
                             weekend_piece, year_anchor)

# --- tokens -------------------------------------------------------------------------------


class Token(NamedTuple):
    start: int
    end: int
    kind: str  # "time", or an operator: to and from since until before after around, *_suffix
    parts: tuple = ()
    standalone: bool = True  # False: counts only next to another time token


# (pattern, flags, build), in the order they are declared.
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
# English rules match case-insensitively with ASCII word boundaries, so that a word
# glued to Chinese ("查一下last week的") still starts and ends a word.
EN = re.I | re.A
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


# 前端/后台/前往… after "N units 前/后" are other words ("三年前端经验" is experience);
# 面 is one only as 前面/后面 (in front, behind): "四周前面试的" is an interview 4 weeks ago
@_rule(rf"(?<![\d.])({_CN_COUNT})\s*个?(半)?个?\s*({_CN_UNIT})(以前|之前|前|以后|之后|后)"
       r"(?![端台往进线景提缀续期果者悔盾院门]|面(?![试谈临对见聊]))")
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


@_rule(rf"(?<![\d.这近])({_CN_COUNT})\s*个?(半)?个?\s*({_CN_UNIT})(?:以来|来)(?![自说看到])")
def _cn_units_since(m, text):  # 三个月以来, 两年来: the rolling window
    if m.group(3) == "月" and "个" not in m.group() and m.group(1) != "半":
        return None  # 3月以来 is since March (a month counted takes 个: 三个月以来)
    count = quantity(m.group(1))
    if count is None or count[1] > 5000 or (CN_UNITS[m.group(3)] == "year" and count[1] >= 1000):
        return None
    return _time(m, rolling_anchor(count[1] + (0.5 if m.group(2) else 0), CN_UNITS[m.group(3)]))


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


@_rule(r"(?<![个每一两三四五六七八九十\d])(?:周|星期|礼拜)"
       r"(一(?![起直样般致共定些下切点])|[二三四五六日天1-7])")
def _cn_weekday(m, text):
    return _time(m, weekday_piece(T.CN_WEEKDAYS[m.group(1)]))


@_rule(r"(?<![每])周末(?!愉快|快乐)|(?<![每])双休日")
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


_YEAR_THIRD = r"(初|中(?!秋|元)|底|末)"


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


@_rule(r"(?<![\d/.\w])(\d{1,2})(/|\.)(\d{1,2})\2((?:19|20)\d{2}|(?<=/)\d{2})(?![\d/.]|\.\d)")
def _date_year_last(m, text):
    """3/5/2024 and 3/5/24 are month first (day first when the first is > 12);
    5.3.2024 is day first, the European dotted order (month first when the second
    is > 12).  Dotted dates need the four-digit year: 3.5.24 is a version."""
    first, second = int(m.group(1)), int(m.group(3))
    month_first = second > 12 if m.group(2) == "." else first <= 12
    month, day = (first, second) if month_first else (second, first)
    year = m.group(4)
    try:
        if len(year) == 2:
            return _time(m, short_year_anchor(int(year)), month_piece(month), mday_piece(day))
        return _time(m, date_anchor(date(int(year), month, day)))
    except ValueError:
        return None


@_rule(r"(?<![\w'’])['’](\d{2})(?!['’\w]|\.\d)")
def _en_short_year(m, text):  # "in '24", "summer '23", "Q3 '25"
    return _time(m, short_year_anchor(int(m.group(1))))


@_rule(rf"(?<![\d.])((?:19|20)\d{{2}}|[一二三四五六七八九零〇]{{4}})\s*年(?:{_YEAR_THIRD}|(?![代级]))")
def _cn_year(m, text):
    year = cn_int(m.group(1))
    if not 1900 <= year <= 2099:
        return None
    return _year_token(m, year_anchor(year), m.group(2))


# After "24年" these make it a year, not 24 years: a month, a part or a season of the year,
# a holiday, 的时候/那会 ("24年的时候"); so does a preposition before it ("在24年").
_CN_SHORT_YEAR_AFTER = re.compile(r"\s*(?:(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])\s*月|[上下]半年|"
                                  r"第?[一二三四1-4]季度|[Qq][1-4]|[春夏秋冬](?:天|季|节)|的?(?:时候|那会|那阵)|"
                                  r"(?:" + "|".join(sorted(map(re.escape, T.CN_HOLIDAYS), key=len, reverse=True))
                                  + r"))")
_CN_SHORT_YEAR_BEFORE = re.compile(r"(?:在|从|于|自|到|至|截至|是)\s*$")


@_rule(rf"(?<![\d.])(\d{{2}})\s*年(?:{_YEAR_THIRD})?(?![代级龄纪])")
def _cn_short_year(m, text):
    third = m.group(2)
    if not (third or _CN_SHORT_YEAR_AFTER.match(text, m.end())
            or _CN_SHORT_YEAR_BEFORE.search(text, 0, m.start())):
        return None  # "工作了24年": a duration
    return _year_token(m, short_year_anchor(int(m.group(1))), third)


@_rule(rf"(大前|前|去|今|明|后|(?<![马线网一以地底私楼])(?:上一|下一))年(?:{_YEAR_THIRD}|(?![级纪龄轻度]))")
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


@_rule(rf"(?<![\d零〇一二两三四五六七八九十个每岁日])月{_CN_THIRD}|(?<!月)(上旬|中旬|下旬)")
def _cn_month_third(m, text):
    return _time(m, third_piece(THIRDS[m.group(1) or m.group(2)], "month"))


@_rule(r"(?:的)?(?:第([一二三四五1-5])个?|(最后)一个?)(?:周|星期|礼拜)(?![一二三四五六日天1-7])")
def _cn_week_of_month(m, text):  # "3月第一周", "5月的最后一周": needs the month before it
    return _time(m, portion_piece("week", -1 if m.group(2) else cn_int(m.group(1)) - 1), standalone=False)


@_rule(r"(?<![马线网一以地底私楼])(上|下)半个?月")
def _cn_half_month(m, text):  # 上半月 / 下半月: days 1-15 / 16-end
    return _time(m, portion_piece("half", 0 if m.group(1) == "上" else 1))


@_rule(r"(?<![马线网一以地底私楼])(上|下)半年")
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


@_rule(r"(去年|前年|上上个?(?:周|星期|礼拜|月)|上个?(?:周|星期|礼拜|月))的?(今天|这一?天|这个时候|这时候|同期|此时)|"
       r"\b(?:an?\s+(week|month|year)\s+ago\s+today|(?:on\s+)?this\s+day\s+last\s+(week|month|year)|"
       r"this\s+time\s+last\s+(week|month|year))\b", EN)
def _same_day_back(m, text):
    """去年的今天, 上周的今天, "a year ago today": that date; 去年这个时候 and "this
    time last year": the week around it."""
    if m.group(1):
        back = m.group(1)
        unit = "year" if "年" in back else "month" if "月" in back else "week"
        count = 2 if back.startswith(("前", "上上")) else 1
        exact = m.group(2) in ("今天", "这天", "这一天")
    else:
        unit = (m.group(3) or m.group(4) or m.group(5)).lower()
        count, exact = 1, m.group(5) is None

    def resolve(now: datetime) -> Span:
        if unit == "week":
            day = day_start(now) - 7 * count * DAY
        else:
            day = day_start(add_months(now, -count * (12 if unit == "year" else 1)))
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


@_rule(r"(?<![\d:.])([01]?\d|2[0-3]):([0-5]\d)(?::\d\d)?\s*(am|pm|a\.m\.|p\.m\.)?(?![\d:])", EN)
def _clock(m, text):
    meridiem = (m.group(3) or "").replace(".", "").lower() or None
    return _time(m, hour_piece(int(m.group(1)), int(m.group(2)), meridiem),
                 standalone=meridiem is not None)


@_rule(r"\b(1[0-2]|0?[1-9])(?::([0-5]\d))?\s*(am|pm|a\.m\.|p\.m\.)(?!\w)", EN)
def _clock_meridiem(m, text):
    meridiem = m.group(3).replace(".", "").lower()
    return _time(m, hour_piece(int(m.group(1)), int(m.group(2) or 0), meridiem))


_WINDOW_UNITS = {"天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week", "月": "month",
                 "day": "day", "week": "week", "month": "month"}


@_rule(rf"(前|后)\s*({_CN_COUNT})\s*个?(天|日|周|星期|礼拜|月)(?!前|后)")
def _cn_window(m, text):  # "端午节前一周", "国庆后三天": the window next to a point
    count = quantity(m.group(2))
    if count is None or count[1] > 366:
        return None
    kind = "window_before_suffix" if m.group(1) == "前" else "window_after_suffix"
    return Token(m.start(), m.end(), kind, (count[1], _WINDOW_UNITS[m.group(3)]))


# Chinese operators
_CN_OPERATORS = [
    (r"以来|至今|迄今|到现在|到目前为止|到目前|到今天为止|开始(?!的)|起(?![来床飞草码])", "since_suffix"),
    # "八个月前开始的副业" is the side job begun then (a point); "从上周开始的变化" is since
    (r"开始(?=的)", "began_suffix"),
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
       r"tonight)\b(?!\s+(?:film|movie|song|album|show)\b)", EN)
def _en_day(m, text):
    word = _mod(m.group(1))
    offset = {"the day before yesterday": -2, "the day after tomorrow": 2, "yesterday": -1,
              "today": 0, "tomorrow": 1, "tonight": 0}[word]
    if word == "tonight":
        return _time(m, unit_anchor("day", 0), part_piece("night"))
    return _time(m, unit_anchor("day", offset))


@_rule(r"\b(last\s+night|this\s+(?:morning|afternoon|evening))\b", EN)
def _en_day_and_part(m, text):
    word = _mod(m.group(1))
    if word == "last night":
        return _time(m, unit_anchor("day", -1), part_piece("night"))
    return _time(m, unit_anchor("day", 0), part_piece(T.EN_DAY_PARTS[word.split()[1]]))


@_rule(r"\b(?:in|during)\s+the\s+(morning|afternoon|evening)\b|\bat\s+(night|noon|midday|lunchtime|"
       r"lunch\s+time)\b", EN)
def _en_part_with_preposition(m, text):
    return _time(m, part_piece(T.EN_DAY_PARTS[_mod(m.group(1) or m.group(2))]))


@_rule(r"\b(morning|afternoon|evening|night|noon|midday|lunchtime|daytime)\b", EN)
def _en_part(m, text):
    return _time(m, part_piece(T.EN_DAY_PARTS[m.group(1).lower()]), standalone=False)


@_rule(rf"\b({_EN_COUNT})\s+({_EN_UNITS})\s+(ago|back|from\s+now)\b", EN)
def _en_ago(m, text):
    count = quantity(m.group(1))
    if count is None or count[1] > 5000:
        return None
    direction = 1 if m.group(3).lower().startswith("from") else -1
    unit = en_unit(m.group(2))
    if m.group(2).lower().startswith("fortnight"):
        count = (count[0] * 2, count[1] * 2)
    return _time(m, ago_anchor(count[0], count[1], unit, direction))


@_rule(r"\b(the\s+other\s+day|just\s+now|a\s+moment\s+ago|moments\s+ago)\b", EN)
def _en_vague_recent(m, text):
    if _mod(m.group(1)) == "the other day":
        return _time(m, ago_anchor(*T.FEW, "day"))
    return _time(m, JUST_NOW)


@_rule(rf"\b(?:the\s+)?(?:past|last|previous|prior)\s+({_EN_COUNT})\s+({_EN_UNITS})\b", EN)
def _en_rolling_count(m, text):
    count = quantity(m.group(1))
    if count is None or count[1] > 5000:
        return None
    high = count[1] * (2 if m.group(2).lower().startswith("fortnight") else 1)
    return _time(m, rolling_anchor(high, en_unit(m.group(2))))


@_rule(r"\b(?:the\s+)?past\s+(hour|day|week|fortnight|month|year|quarter)\b|"
       r"\bthe\s+last\s+(hour|day|week|fortnight|month|year|quarter)\b(?!\s+of\b)", EN)
def _en_rolling_one(m, text):
    word = (m.group(1) or m.group(2)).lower()
    return _time(m, rolling_anchor(2 if word == "fortnight" else 1, en_unit(word)))


@_rule(r"\b(last|this|next|previous|the\s+previous|the\s+following|current|the\s+current|"
       r"this\s+past|this\s+coming|coming)\s+(week|month|year|quarter|weekend|spring|summer|fall|"
       r"autumn|winter)\b(?!\s+of\b)", EN)
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


@_rule(r"\bthe\s+week\s+of\b", EN)
def _en_week_of(m, text):
    return _time(m, week_of_piece(), standalone=False)


@_rule(r"(?:所在的?)?那一?(?:周|个星期|个礼拜)")
def _cn_week_of(m, text):
    return _time(m, week_of_piece(), standalone=False)


@_rule(r"\bthe\s+weekend\b(?!\s+(?:before|of)\b)", EN)
def _en_the_weekend(m, text):
    return _time(m, weekend_piece())


@_rule(r"\bthe\s+(week|weekend|month|year)\s+before\s+last\b", EN)
def _en_before_last(m, text):
    unit = m.group(1).lower()
    if unit == "weekend":
        return _time(m, unit_anchor("week", -2), weekend_piece())
    return _time(m, unit_anchor(unit, -2))


@_rule(r"\bthe\s+(week|month|year)\b", EN)
def _en_the_unit(m, text):  # "the end of the month", "the first half of the year"
    # Only after "end of"/"half of": "employee of the month" is no time.
    standalone = bool(re.search(r"\b(?:beginning|start|middle|end|half)\s+of\s*$", text[:m.start()], EN))
    return _time(m, unit_anchor(m.group(1).lower(), 0), standalone=standalone)


_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
             "last": -1, "一": 1, "二": 2, "三": 3, "四": 4, "1": 1, "2": 2, "3": 3, "4": 4}


@_rule(r"\b(?:the\s+)?(first|second|third|fourth|last|1st|2nd|3rd|4th)\s+"
       r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\s+(?:of|in)\b", EN)
def _en_nth_weekday(m, text):  # "the first Monday of March": needs the month after it
    weekday = T.EN_WEEKDAYS[m.group(2).lower()]
    return _time(m, nth_weekday_piece(weekday, _ORDINALS[m.group(1).lower()]), standalone=False)


@_rule(r"(?:第([一二三四1-4])|最后一)个(?:周|星期|礼拜)([一二三四五六日天1-7])")
def _cn_nth_weekday(m, text):  # "3月的第一个周一"
    nth = _ORDINALS[m.group(1)] if m.group(1) else -1
    return _time(m, nth_weekday_piece(T.CN_WEEKDAYS[m.group(2)], nth), standalone=False)


@_rule(r"(?<!good )(?<!black )(?<!cyber )\b(?:(last|this|next|previous|the\s+previous|the\s+following|"
       r"this\s+past|past|this\s+coming|coming)\s+)?"
       r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
       r"(?!\.\w|\s+(?:school|best|roast|papers?|services?|brunch|funday|blues|league|market|times|"
       r"night\s+live|night\s+football)\b)",
       EN)
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
    r"\bQ[1-4]\s+|\bH[12]\s+|\b(?:" + _EN_MONTHS + r")\.?\s+)$", EN)


def _after_preposition(text: str, start: int) -> bool:
    return bool(_DATE_PREPOSITION.search(text[max(0, start - 24):start]))


# A capitalised word, maybe after "of", that is no time word: with a capitalised month
# or season before it, the two are a name ("May Chen", "June Park", "Summer of Code").
_NAME_AFTER = re.compile(r"\s+(?:of\s+)?([A-Z][a-z]+)\b")
_TIME_WORDS = frozenset(T.EN_MONTHS) | frozenset(T.EN_WEEKDAYS) | frozenset(T.EN_SEASONS)


def _starts_a_name(text: str, word_start: int, word_end: int) -> bool:
    if not text[word_start].isupper():
        return False
    after = _NAME_AFTER.match(text, word_end)
    return bool(after) and after.group(1).lower() not in _TIME_WORDS


_EN_DAY_AFTER_MONTH = (r"(?:\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\b(?!\s*(?::|am\b|pm\b|%|hours?\b|"
                       r"minutes?\b|days?\b|weeks?\b|months?\b|years?\b|people\b|times\b|percent\b)))?")
_EN_YEAR_AFTER = r"(?:,?\s+(?:of\s+)?((?:19|20)\d{2}\b|['’]\d{2}(?![\w'’])))?"


@_rule(rf"\b(?:(last|this|next|previous|this\s+past|this\s+coming)\s+)?({_EN_MONTHS})\b\.?"
       rf"{_EN_DAY_AFTER_MONTH}{_EN_YEAR_AFTER}", EN)
def _en_month(m, text):
    name, day, year = m.group(2).lower(), m.group(3), m.group(4)
    mod = _mod(m.group(1))
    full_name = name in ("january", "february", "march", "april", "may", "june", "july",
                         "august", "september", "october", "november", "december")
    if not (day or year or (full_name and mod)):
        if not full_name:
            return None  # "Dec", "mar" alone are too often not months
        if name in T.EN_AMBIGUOUS_MONTHS and (not _after_preposition(text, m.start())
                                              or _starts_a_name(text, m.start(2), m.end(2))):
            return None  # "May's gift", "March of Dimes", "from May Chen"
    return _month_token(m, T.EN_MONTHS[name], day, year, mod)


@_rule(rf"\b(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_EN_MONTHS})\b\.?{_EN_YEAR_AFTER}", EN)
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
        parts.append(short_year_anchor(int(year[1:])) if len(year) == 3 else year_anchor(int(year)))
    elif mod == "this":
        parts.append(unit_anchor("year", 0))
    return _time(m, *parts)


@_rule(r"(?<!\s)(?:\s*([-–])\s*|\s+(to|through|until|till|and)\s+(?:the\s+)?)(\d{1,2})(?:st|nd|rd|th)?\b"
       r"(?!\s*(?::|am\b|pm\b|%|hours?\b|minutes?\b|days?\b|weeks?\b|months?\b|years?\b|people\b))", EN)
def _en_day_after_dash(m, text):
    """"March 1-10", "from March 1st to the 10th": the connector, then a bare day."""
    day = int(m.group(3))
    if not 1 <= day <= 31:
        return None
    connector = m.group(1) or m.group(2)
    kind = "and" if connector.lower() == "and" else "to"
    link = Token(m.start(1) if m.group(1) else m.start(2), m.start(3), kind)
    return [link, Token(m.start(3), m.end(), "time", (mday_piece(day),), False)]


@_rule(r"\bon\s+the\s+(\d{1,2})(?:st|nd|rd|th)\b", EN)
def _en_mday(m, text):
    day = int(m.group(1))
    return _time(m, mday_piece(day)) if 1 <= day <= 31 else None


@_rule(r"(?<![\w$#.,/])((?:19|20)\d{2})(?![\w%]|[.,/:-]\d)", re.A)
def _en_year(m, text):
    if text[m.end():m.end() + 1] == "年" or text[m.end():m.end() + 2].strip() == "年":
        return None  # the Chinese rule reads "2025 年"
    return _time(m, year_anchor(int(m.group(1))), standalone=_after_preposition(text, m.start()))


@_rule(r"\b(?:the\s+)?(first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\b", EN)
def _en_quarter(m, text):
    order = {"first": 1, "second": 2, "third": 3, "fourth": 4}
    word = m.group(1).lower()
    return _time(m, quarter_piece(order.get(word) or int(word[0])))


@_rule(r"\b(?:the\s+)?(first|second|latter|1st|2nd)\s+half\s+of\b|\bH([12])\b", EN)
def _en_half(m, text):  # of a year or a month: "the first half of June", "H1 2025"
    word = (m.group(1) or m.group(2)).lower()
    return _time(m, portion_piece("half", 0 if word in ("first", "1st", "1") else 1, "year"),
                 standalone=False)


@_rule(r"\b(?:the\s+)?(first|second|third|fourth|fifth|last|final|1st|2nd|3rd|4th|5th)\s+week\s+(?:of|in)\b", EN)
def _en_week_of_month(m, text):  # "the first week of March": days 1-7; the last: the last seven
    word = m.group(1).lower()
    nth = -1 if word in ("last", "final") else _ORDINALS.get(word) or {"fifth": 5, "5th": 5}[word]
    return _time(m, portion_piece("week", nth - 1 if nth > 0 else -1), standalone=False)


@_rule(r"\b(?:the\s+)?(?:(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|few|several)\s+)?"
       r"(day|week|month)s?\s+(before|after|leading\s+up\s+to)\b", EN)
def _en_window(m, text):  # "the week before Christmas", "two days after Easter"
    count = quantity(m.group(1)) if m.group(1) else (1, 1)
    if count is None or count[1] > 366:
        return None
    kind = "window_after" if m.group(3).lower() == "after" else "window_before"
    return Token(m.start(), m.end(), kind, (count[1], _WINDOW_UNITS[m.group(2).lower()]))


@_rule(r"(?<=[\w'’])\s+(week|weekend)\b(?!\s+(?:of|before|after|ago|earlier|later)\b)", EN)
def _en_holiday_week(m, text):  # "Thanksgiving week", "Easter weekend": only after a day
    piece = week_of_piece() if m.group(1).lower() == "week" else weekend_piece()
    return Token(m.start(1), m.end(), "time", (piece,), False)


@_rule(r"\b(?:(?:in|during)\s+the\s+)?(spring|summer|fall|autumn|winter)\b"
       r"(?!\s+(?:framework|boot|cloud|data|security|collection|sale|roll)\b)", EN)
def _en_season(m, text):
    if _starts_a_name(text, m.start(1), m.end(1)):
        return None  # "Summer of Code", "Fall Guys"
    standalone = bool(re.match(r"(?:in|during)\s", m.group(), EN)) or _after_preposition(text, m.start(1))
    return _time(m, season_piece(T.EN_SEASONS[m.group(1).lower()]), standalone=standalone)


@_rule(r"\b(?:the\s+)?(?:(beginning|start|middle|end)\s+of|(early|mid|late))(?:\s*-\s*|\s+)(?=\w)"
       r"(?!autumn\s+festival\b)", EN)  # the Mid-Autumn Festival is a holiday
def _en_third(m, text):
    return _time(m, third_piece(THIRDS[(m.group(1) or m.group(2)).lower()]), standalone=False)


@_rule(r"\bearlier\s+(today|this\s+(?:week|month|year))\b", EN)
def _en_earlier(m, text):
    unit = m.group(1).lower().split()[-1]
    return _time(m, since_start_of("day" if unit == "today" else unit, until_now=True))


@_rule(r"\b(?:so\s+far\s+this\s+(week|month|year)|this\s+(week|month|year)\s+so\s+far|"
       r"(week|month|year)[\s-]to[\s-]date)\b|\b(YTD)\b", EN)
def _en_so_far(m, text):
    unit = (m.group(1) or m.group(2) or m.group(3) or "year").lower()
    return _time(m, since_start_of(unit, until_now=False))


def _apostrophes(name: str) -> str:
    return re.escape(name).replace("'", "['’]?").replace(r"\ ", r"\s+").replace(r"\-", r"[-\s]")


_EN_HOLIDAY_NAMES = "|".join(_apostrophes(n) for n in sorted(T.EN_HOLIDAYS, key=len, reverse=True))


@_rule(rf"\b(?:(last|this|next)\s+)?({_EN_HOLIDAY_NAMES})(?![\w'’])"
       rf"(?!\s+(?:{'|'.join(T.EN_HOLIDAY_NOT_TIME)})\b)", EN)
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
    # "what did I get up to", "what was I up to": the idiom for doing, not "until"
    (r"\bup\s+until\b|(?<!get\s)(?<!got\s)(?<!been\s)(?<!was\s)(?<!were\s)(?<!are\s)(?<!\bi\s)"
     r"(?<!\bwe\s)\bup\s+to\b", "until"), (r"\b(?:until|till|til)\b", "until_or_to"),
    (r"\b(?:to|through|thru)\b", "to"), (r"\band\b", "and"),
    (r"\b(?:before|prior\s+to)\b", "before"), (r"\bafter\b", "after"),
    (r"\b(?:around|circa|approximately|roughly)\b", "around"),
]


def _operator_rule(pattern: str, kind: str, flags: int) -> None:
    _rule(pattern, flags)(lambda m, text: Token(m.start(), m.end(), kind))


for _pattern, _kind in _CN_OPERATORS:
    _operator_rule(_pattern, _kind, 0)
for _pattern, _kind in _EN_OPERATORS:
    _operator_rule(_pattern, _kind, EN)


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
