"""Time reasoning: every case of the shared table, properties, and the contract.

The table (tests/data/time_cases.yaml) is also what scripts/bench_time.py scores.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from palace.time_reasoning import OPEN_START, TimeReasoner, parse_time

TABLE = Path(__file__).parents[1] / "data" / "time_cases.yaml"


@pytest.fixture(autouse=True)
def isolated_env():
    """Overrides conftest's: the reasoner is pure (no settings, no files), and the
    hundreds of table cases need no temporary workspace each."""


def _load_table() -> tuple[dict[str, datetime], list[dict]]:
    data = yaml.safe_load(TABLE.read_text(encoding="utf-8"))
    nows = {name: datetime.fromisoformat(value) for name, value in data["nows"].items()}
    return nows, data["cases"]


NOWS, CASES = _load_table()
POSITIVES = [c for c in CASES if not c.get("none")]
NEGATIVES = [c for c in CASES if c.get("none")]
PAST_QUERIES = [c["q"] for c in POSITIVES if c.get("past", True)]


def _case_id(case: dict) -> str:
    return f"{case['q']}@{case.get('now', 'A')}"


def _as_param(case: dict):
    """Known misses stay in the table to keep the benchmark honest; here they must
    fail, so that fixing one shows up (and the mark is then removed)."""
    if case.get("known_miss"):
        return pytest.param(case, id=_case_id(case),
                            marks=pytest.mark.xfail(strict=True, reason=case["known_miss"]))
    return pytest.param(case, id=_case_id(case))


def test_table_is_big_enough():
    assert len(CASES) >= 250
    assert len(NEGATIVES) >= 40
    assert len({(c["q"], c.get("now", "A")) for c in CASES}) == len(CASES), "duplicate cases"


@pytest.mark.parametrize("case", [_as_param(c) for c in CASES])
def test_table_case(case):
    now = NOWS[case.get("now", "A")]
    found = parse_time(case["q"], now=now)
    if case.get("none"):
        assert found is None, f"found {found.text!r} → [{found.start}, {found.end})"
        return
    assert found is not None, "no time expression found"
    expected = (datetime.fromisoformat(case["start"]), datetime.fromisoformat(case["end"]))
    assert (found.start, found.end) == expected, f"matched {found.text!r}"
    if "text" in case:
        assert found.text == case["text"]
    if "rest" in case:
        assert found.remainder == case["rest"]


# --- the contract ------------------------------------------------------------------


def test_the_documented_example():
    tr = TimeReasoner().parse("上周讨论的数据库选型", now=datetime(2026, 3, 18, 10, 0))
    assert (tr.start, tr.end) == (datetime(2026, 3, 9), datetime(2026, 3, 16))
    assert (tr.text, tr.remainder) == ("上周", "讨论的数据库选型")
    assert TimeReasoner().parse("周报模板", now=datetime(2026, 3, 18)) is None
    assert TimeReasoner().parse("一周年纪念日", now=datetime(2026, 3, 18)) is None


def test_aware_now_gives_aware_range_in_the_same_zone():
    shanghai = timezone(timedelta(hours=8))
    tr = parse_time("昨天", now=datetime(2026, 3, 18, 1, 30, tzinfo=shanghai))
    assert tr.start == datetime(2026, 3, 17, tzinfo=shanghai)
    assert tr.end == datetime(2026, 3, 18, tzinfo=shanghai)
    assert tr.start.tzinfo is shanghai and tr.end.tzinfo is shanghai
    # The calendar is the one of now's zone, not UTC: 01:30 in Shanghai is still
    # the previous day in UTC, yet "yesterday" is the 17th.
    utc = parse_time("yesterday", now=datetime(2026, 3, 17, 17, 30, tzinfo=timezone.utc))
    assert utc.start == datetime(2026, 3, 16, tzinfo=timezone.utc)


def test_open_ranges_keep_the_zone():
    shanghai = timezone(timedelta(hours=8))
    tr = parse_time("3月10日之前", now=datetime(2026, 3, 18, tzinfo=shanghai))
    assert tr.start == OPEN_START.replace(tzinfo=shanghai)


def test_now_may_be_a_date_meaning_its_midnight():
    assert parse_time("上周", now=date(2026, 3, 18)).start == datetime(2026, 3, 9)
    assert parse_time("下午", now=date(2026, 3, 18)).start == datetime(2026, 3, 17, 12)


def test_now_defaults_to_the_clock():
    before = datetime.now()
    tr = parse_time("今天")
    assert tr.start <= before < tr.end or tr.start <= datetime.now() < tr.end
    assert tr.start.tzinfo is None


def test_a_wrong_now_is_refused():
    with pytest.raises(TypeError):
        parse_time("今天", now="2026-03-18")


def test_time_range_is_frozen_and_explains_itself():
    tr = parse_time("last Friday afternoon", now=datetime(2026, 3, 18, 10))
    with pytest.raises(dataclasses.FrozenInstanceError):
        tr.start = datetime(2000, 1, 1)  # type: ignore[misc]
    explained = json.loads(json.dumps(tr.to_dict()))
    assert explained == {"start": "2026-03-13T12:00:00", "end": "2026-03-13T18:00:00",
                         "text": "last Friday afternoon", "remainder": "",
                         "granularity": "part_of_day", "span": [0, 21], "point": None}


NEW_TABLE = Path(__file__).parents[1] / "data" / "time_cases_new.yaml"


def _load_new_table() -> list:
    data = yaml.safe_load(NEW_TABLE.read_text(encoding="utf-8"))
    nows = {name: datetime.fromisoformat(value) for name, value in data["nows"].items()}
    return [pytest.param(c, nows[c.get("now", "A")], id=f"new:{_case_id(c)}") for c in data["cases"]]


@pytest.mark.parametrize("case, now", _load_new_table())
def test_new_table_case(case, now):
    """Issue 11's batch, written before "N units ago is a point" was built."""
    found = parse_time(case["q"], now=now)
    if case.get("none"):
        assert found is None, f"found {found.text!r}"
        return
    assert found is not None
    assert (found.start, found.end) == (datetime.fromisoformat(case["start"]),
                                        datetime.fromisoformat(case["end"])), f"matched {found.text!r}"


NEW_TABLE_2 = Path(__file__).parents[1] / "data" / "time_cases_new_2.yaml"
# the second batch's writer chose "a few weeks ago" = 1–7 weeks ago with no tolerance
# (its convention C6); palace's documented reading widens both ends by the week's ±3 days
WIDER_BY_CONVENTION = {"the conference talk I watched a few weeks ago"}


def _load_new_table_2() -> list:
    data = yaml.safe_load(NEW_TABLE_2.read_text(encoding="utf-8"))
    nows = {name: datetime.fromisoformat(value) for name, value in data["nows"].items()}
    return [pytest.param(c, nows[c["now"]], id=f"new2:{_case_id(c)}") for c in data["cases"]]


@pytest.mark.parametrize("case, now", _load_new_table_2())
def test_second_new_table_case(case, now):
    """Issue 11's second batch, written from the documented conventions only, after the
    rules; its first score was 98.5 % (4 misses), three of them fixed since: 四周前面试
    (前面 read as "in front"), 3月以来 (read as three months), 八个月前开始的 (read as since)."""
    found = parse_time(case["q"], now=now)
    if case.get("none"):
        assert found is None, f"found {found.text!r}"
        return
    assert found is not None
    expected = (datetime.fromisoformat(case["start"]), datetime.fromisoformat(case["end"]))
    if case["q"] in WIDER_BY_CONVENTION:
        assert found.start <= expected[0] < expected[1] <= found.end
        return
    assert (found.start, found.end) == expected, f"matched {found.text!r}"


@pytest.mark.parametrize("query, point, tolerance_days", [
    ("两周前", datetime(2026, 3, 4, 10), 3), ("a month ago", datetime(2026, 2, 18, 10), 5),
    ("一年前的事", datetime(2025, 3, 18, 10), 7), ("半年前", datetime(2025, 9, 18, 10), 5),
    ("三天前", datetime(2026, 3, 15, 10), 0), ("two weeks from now", datetime(2026, 4, 1, 10), 3),
])
def test_n_units_ago_is_a_point_with_a_tolerance(query, point, tolerance_days):
    found = parse_time(query, now=datetime(2026, 3, 18, 10))
    assert found.point == point
    assert found.start == datetime(point.year, point.month, point.day) - timedelta(days=tolerance_days)
    assert found.end - found.start == timedelta(days=2 * tolerance_days + 1)


@pytest.mark.parametrize("query", ["上个月", "last month", "去年", "last year", "上周", "last week"])
def test_calendar_words_keep_their_unit_and_carry_no_point(query):
    found = parse_time(query, now=datetime(2026, 3, 18, 10))
    assert found.point is None and found.granularity in ("month", "year", "week")


def test_a_slot_after_n_units_ago_is_looked_for_in_the_calendar_unit():
    # 两周前 is 3/4 ± 3 days; its Wednesday is the one of that Monday-to-Sunday week
    found = parse_time("两周前的周三", now=datetime(2026, 3, 18, 10))
    assert (found.start, found.end) == (datetime(2026, 3, 4), datetime(2026, 3, 5))


def test_the_point_is_in_the_zone_of_now():
    from zoneinfo import ZoneInfo

    zone = ZoneInfo("Asia/Shanghai")
    found = parse_time("一个月前", now=datetime(2026, 3, 18, 10, tzinfo=zone))
    assert found.point == datetime(2026, 2, 18, 10, tzinfo=zone)


def test_span_points_at_the_text_in_the_query():
    query = "请找一下 上周四晚上 的讨论"
    tr = parse_time(query, now=datetime(2026, 3, 18, 10))
    assert query[tr.span[0]:tr.span[1]] == tr.text == "上周四晚上"
    assert tr.remainder == "请找一下 讨论"


def test_full_width_digits_count():
    tr = parse_time("３月１８日的会议", now=datetime(2026, 3, 20))
    assert (tr.start, tr.text) == (datetime(2026, 3, 18), "３月１８日")


def test_the_first_expression_wins():
    tr = parse_time("上周和这周的对比", now=datetime(2026, 3, 18, 10))
    assert tr.text == "上周"


def test_parse_is_pure():
    reasoner = TimeReasoner()
    now = datetime(2026, 3, 18, 10)
    first = [reasoner.parse(c["q"], now=now) for c in CASES[:60]]
    again = [TimeReasoner().parse(c["q"], now=now) for c in CASES[:60]]
    assert first == again


def test_long_input_stays_linear():
    """A pasted log is no reason to hang: every rule scans in linear time."""
    import time as clock

    now = datetime(2026, 3, 18, 10)
    for text in (" " * 10000 + "上周", "\t\n " * 3000 + "March 1 - 10", "的" * 10000, "1 " * 5000):
        started = clock.perf_counter()
        parse_time(text, now=now)
        assert clock.perf_counter() - started < 3.0, repr(text[:10])  # quadratic took ~20 s


def test_import_is_light():
    """The CLI imports this module on every query: it must not pull the heavy parsers."""
    code = ("import sys, palace.time_reasoning as t; "
            "print(sorted(m for m in ('dateparser', 'jionlp', 'lunardate') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- properties ----------------------------------------------------------------------

NOW_STRATEGY = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2040, 12, 31))
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(st.sampled_from([c["q"] for c in POSITIVES]), NOW_STRATEGY)
def test_any_supported_expression_gives_a_proper_range(query, now):
    found = parse_time(query, now=now)
    if found is not None:  # e.g. a lunar holiday outside the table's years
        assert found.start < found.end
        assert found.text and found.text in query


@FAST
@given(st.sampled_from(PAST_QUERIES), NOW_STRATEGY)
def test_past_expressions_do_not_start_after_now(query, now):
    found = parse_time(query, now=now)
    if found is not None:
        assert found.start <= now


@FAST
@given(st.text(max_size=60), NOW_STRATEGY)
def test_arbitrary_text_never_raises(text, now):
    found = parse_time(text, now=now)
    if found is not None:
        assert found.start < found.end
        assert text[found.span[0]:found.span[1]].strip() == found.text


# Pieces of time words glued with noise: the lexer's edge cases (lookbehinds,
# overlapping tokens, numbers next to units) get far more exercise than with st.text().
TIME_ALPHABET = list("上下这本去今明前后年月日号周星期天礼拜末初中底旬半几两一二三四五六七八九十"
                     "0123456789点分到至从以来之前后的午晚早凌晨季度春节国庆元旦 -/:.,") + [
    "last", "next", "this", "week", "month", "year", "ago", "days", "March", "May", "Monday",
    "since", "from", "to", "between", "and", "the", "of", "early", "late", "Christmas", "pm"]


@FAST
@given(st.lists(st.sampled_from(TIME_ALPHABET), max_size=14).map("".join), NOW_STRATEGY)
def test_time_word_soup_never_raises(text, now):
    found = parse_time(text, now=now)
    if found is not None:
        assert found.start < found.end


SENTENCES_ZH = [("帮我查一下", "的相关记录"), ("我想看看", "有哪些"), ("关于", "，有什么结论？"), ("找", "")]
SENTENCES_EN = [("please find notes about ", " for me"), ("what did we say ", "?"), ("Show me ", ""),
                ("查一下", "的记录")]


@FAST
@given(st.sampled_from([c for c in POSITIVES if not c.get("known_miss")]), st.integers(0, 3))
def test_an_expression_inside_a_sentence_keeps_its_range(case, which):
    """The words around an expression ("查一下" ends in 下, as in 下周) must not change it."""
    now = NOWS[case.get("now", "A")]
    alone = parse_time(case["q"], now=now)
    chinese = any("\u4e00" <= ch <= "\u9fff" for ch in case["q"])
    before, after = (SENTENCES_ZH if chinese else SENTENCES_EN)[which]
    inside = parse_time(before + case["q"] + after, now=now)
    assert inside is not None and (inside.start, inside.end) == (alone.start, alone.end)


@FAST
@given(st.sampled_from([c for c in NEGATIVES if not c.get("known_miss")]), st.integers(0, 3))
def test_a_sentence_around_a_non_time_does_not_make_one(case, which):
    chinese = any("\u4e00" <= ch <= "\u9fff" for ch in case["q"])
    before, after = (SENTENCES_ZH if chinese else SENTENCES_EN)[which]
    assert parse_time(before + case["q"] + after, now=NOWS["A"]) is None


@FAST
@given(st.sampled_from(POSITIVES), st.sampled_from([timezone.utc, timezone(timedelta(hours=8)),
                                                   timezone(timedelta(hours=-5))]))
def test_aware_results_equal_naive_ones_in_the_zone(case, zone):
    now = NOWS[case.get("now", "A")]
    naive = parse_time(case["q"], now=now)
    aware = parse_time(case["q"], now=now.replace(tzinfo=zone))
    assert aware.start == naive.start.replace(tzinfo=zone)
    assert aware.end == naive.end.replace(tzinfo=zone)


# Issue 27's five kinds, on examples other than its held-out cases (time_cases_new_3.yaml,
# scored by scripts/bench_time.py): one mechanism each, seen through fresh phrasings.
ISSUE_27_NOW = datetime(2026, 8, 12, 9)  # a Wednesday
ISSUE_27 = [
    # two-digit years: 20YY unless that is over 20 years ahead
    ("we hired two people in '21", "2021-01-01", "2022-01-01"),
    ("the April '19 offsite", "2019-04-01", "2019-05-01"),
    ("receipts from winter '97", "1997-12-01", "1998-03-01"),
    ("7/4/25 fireworks photos", "2025-07-04", "2025-07-05"),
    ("21年国庆去了哪里", "2021-10-01", "2021-10-08"),
    ("从20年开始用的那个框架", "2020-01-01", "2026-08-13"),
    # dotted dates: Y.M.D, and D.M.Y with the year last
    ("the 14.07.2023 retro", "2023-07-14", "2023-07-15"),
    # parts of a month: one part-of-a-period operator for thirds, halves and weeks
    ("the fourth week of July", "2026-07-22", "2026-07-29"),
    ("the last week of February", "2026-02-22", "2026-03-01"),
    ("the second half of April", "2026-04-16", "2026-05-01"),
    ("7月第三周的发布", "2026-07-15", "2026-07-22"),
    ("这个月下半月的出差", "2026-08-16", "2026-09-01"),
    # windows around a holiday: week of, weekend, N units before/after
    ("Labor Day weekend", "2025-08-30", "2025-09-02"),
    ("two days after Easter", "2026-04-06", "2026-04-08"),
    ("the week leading up to Christmas", "2025-12-18", "2025-12-25"),
    ("Ash Wednesday service", "2026-02-18", "2026-02-19"),
    ("端午节后三天", "2026-06-20", "2026-06-23"),
    ("春节那周的值班", "2026-02-16", "2026-02-23"),
]
NOT_TIMES_27 = ["《夏天的风》的吉他谱", "the “Summer Hits” playlist", "「下个月见」的海报",
                "feedback from June Liu on the design", "Summer of Love documentary notes",
                "Python 3.11.4 的变更", "呆了12年的公司", "release 2.3.24 notes"]


@pytest.mark.parametrize("query,start,end", ISSUE_27)
def test_issue_27_kinds_on_fresh_phrasings(query, start, end):
    found = parse_time(query, now=ISSUE_27_NOW)
    assert found is not None, query
    assert (found.start, found.end) == (datetime.fromisoformat(start), datetime.fromisoformat(end))


@pytest.mark.parametrize("query", NOT_TIMES_27)
def test_issue_27_titles_names_and_versions_are_no_time(query):
    assert parse_time(query, now=ISSUE_27_NOW) is None


@pytest.mark.parametrize("query, start, end", [
    ("what did I get up to last month", datetime(2026, 2, 1), datetime(2026, 3, 1)),
    ("what have I been up to this week", datetime(2026, 3, 16), datetime(2026, 3, 23)),
    ("what was I up to yesterday", datetime(2026, 3, 17), datetime(2026, 3, 18)),
    ("everything up to last month", OPEN_START, datetime(2026, 3, 1)),
])
def test_up_to_after_a_verb_is_the_idiom_for_doing_not_until(query, start, end):
    found = parse_time(query, datetime(2026, 3, 18, 12))
    assert found is not None and (found.start, found.end) == (start, end), found
