"""Period summaries: bounds, topics, and a palace summarised through the API and the CLI."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from palace.errors import InvalidInputError
from palace.features.summary import get_summary, parse_day, period_bounds, top_topics

TZ = ZoneInfo("Asia/Shanghai")


@pytest.mark.parametrize("period, day, start, end, label", [
    ("day", date(2026, 11, 26), "2026-11-26", "2026-11-27", "2026-11-26"),
    ("week", date(2026, 11, 26), "2026-11-23", "2026-11-30", "2026-W48"),   # Thursday → Monday
    ("week", date(2026, 11, 23), "2026-11-23", "2026-11-30", "2026-W48"),   # Monday itself
    ("week", date(2026, 11, 29), "2026-11-23", "2026-11-30", "2026-W48"),   # Sunday ends it
    ("week", date(2027, 1, 1), "2026-12-28", "2027-01-04", "2026-W53"),     # across the year
    ("month", date(2028, 2, 10), "2028-02-01", "2028-03-01", "2028-02"),    # leap February
    ("month", date(2026, 12, 31), "2026-12-01", "2027-01-01", "2026-12"),
])
def test_period_bounds(period, day, start, end, label):
    got_start, got_end, got_label = period_bounds(period, day, TZ)
    assert got_start == datetime.fromisoformat(start).replace(tzinfo=TZ)
    assert got_end == datetime.fromisoformat(end).replace(tzinfo=TZ)
    assert got_label == label


def test_bad_period_and_date():
    with pytest.raises(InvalidInputError, match="period"):
        period_bounds("year", date(2026, 1, 1), TZ)
    with pytest.raises(InvalidInputError, match="YYYY-MM-DD"):
        parse_day("last tuesday", today=date(2026, 11, 30))
    assert parse_day(None, today=date(2026, 11, 30)) == date(2026, 11, 30)
    with pytest.raises(InvalidInputError, match=r"no day 2026-02-30: .*February 2026 has 28 days"):
        parse_day("2026-02-30", today=date(2026, 11, 30))
    with pytest.raises(InvalidInputError, match=r"no day 2026-13-01: .*months go from 01 to 12"):
        parse_day("2026-13-01", today=date(2026, 11, 30))
    assert parse_day("2026-11-02T10:00:00+08:00", today=date(2026, 11, 30)) == date(2026, 11, 2)


def test_top_topics_drop_fragments_stopwords_and_numbers():
    texts = ["我们决定用 PostgreSQL 作为主数据库", "PostgreSQL 数据库 备份 200 次",
             "今天 数据库 迁移", "deploy the service"]
    topics = dict(top_topics(texts))
    assert topics["数据库"] == 3 and topics["postgresql"] == 2
    assert "数据" not in topics and "据库" not in topics  # parts of 数据库, never more frequent
    assert "今天" not in topics and "200" not in topics and "the" not in topics
    assert list(topics)[:2] == ["数据库", "postgresql"]  # most documents first


@pytest.fixture
def week_palace(pm):
    def at(day: str, hour: int = 10) -> str:
        return f"2026-11-{day}T{hour:02d}:00:00+08:00"

    ids = {
        "decision": pm.store("我们决定用 PostgreSQL 作为主数据库。", type="decision", location="projects/palace",
                             tags=["数据库", "decision"], created_at=at("24")).id,
        "backup": pm.store("PostgreSQL 数据库备份改为每天凌晨 3 点。", location="ops", tags=["数据库"],
                           created_at=at("25")).id,
        "late_sunday": pm.store("周日晚上 PostgreSQL 数据库 升级完成。", location="ops",
                                created_at=at("29", 23)).id,
        "next_monday": pm.store("下周一的新计划。", location="ops", created_at=at("30", 0)).id,
        "before": pm.store("上上周的事。", location="life", created_at=at("20")).id,
        "trashed": pm.store("写错了的记录。", location="ops", created_at=at("26")).id,
    }
    ids["experience"] = pm.experiences.record(
        "deploy failed: port 5432 already in use", "stop the old postgres container first",
        tags=["deploy"], created_at=at("27")).id
    pm.delete(ids["trashed"])
    return ids


def test_week_summary_counts_tags_topics_decisions_rooms(pm, week_palace):
    summary = get_summary(pm, "week", "2026-11-26")
    assert summary.label == "2026-W48"
    ids = set(summary.memory_ids)
    assert {week_palace[k] for k in ("decision", "backup", "late_sunday", "experience")} <= ids
    assert week_palace["next_monday"] not in ids and week_palace["before"] not in ids
    assert week_palace["trashed"] not in ids
    assert summary.created_ids and set(summary.created_ids) == ids
    assert dict(summary.tags)["数据库"] == 2
    assert dict(summary.topics)["postgresql"] == 3  # the experience says "postgres"
    assert [d.id for d in summary.decisions] == [week_palace["decision"]]
    assert [e.id for e in summary.experiences] == [week_palace["experience"]]
    rooms = {r.room: (r.created, r.updated) for r in summary.rooms}
    assert rooms["ops"] == (2, 0) and rooms["projects/palace"] == (1, 0)
    assert summary.memories[0].id == week_palace["late_sunday"]  # newest first


def test_summary_is_deterministic_and_renders(pm, week_palace):
    first = get_summary(pm, "week", "2026-11-26").to_dict()
    second = get_summary(pm, "week", date(2026, 11, 29)).to_dict()
    assert first == second
    text = first["text"]
    assert text.startswith("# Week 2026-W48 (2026-11-23 – 2026-11-29)")
    assert "## Decisions" in text and f"[{week_palace['decision']}]" in text
    assert "## Experiences" in text and "## Rooms changed" in text
    assert first["count"] == len(first["memory_ids"]) == 4


def test_day_and_month_and_trash(pm, week_palace):
    sunday = get_summary(pm, "day", "2026-11-29")
    assert sunday.memory_ids == [week_palace["late_sunday"]]
    month = get_summary(pm, "month", "2026-11-01")
    assert week_palace["before"] in month.memory_ids and week_palace["next_monday"] in month.memory_ids
    empty = get_summary(pm, "month", "2025-01-15")
    assert empty.count == 0 and "No memories" in empty.render()
    today = get_summary(pm, "day")  # the trash move happened today (the real clock)
    assert week_palace["trashed"] in today.deleted_ids
    assert any(r.room == "ops" and r.deleted == 1 for r in today.rooms)


def test_changed_old_memories_count_as_updated(pm):
    old = pm.store("老的记录", location="notes", created_at="2025-06-01T10:00:00+08:00")
    pm.update(old.id, content="老的记录，今天改过")
    today = get_summary(pm, "day")
    assert today.updated_ids == (old.id,) and today.created_ids == ()
    assert today.rooms[0].room == "notes" and today.rooms[0].updated == 1


def test_cli_summary(pm, week_palace, capsys, workspace):
    from palace.cli import main

    pm.close()
    assert main(["summary", "--period", "week", "--date", "2026-11-26", "--json",
                 "--workspace", str(workspace)]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    assert data["label"] == "2026-W48" and data["count"] == 4
    assert main(["summary", "-p", "day", "-d", "2026-11-29", "--workspace", str(workspace)]) == 0
    assert "# Day 2026-11-29" in capsys.readouterr().out
    assert main(["summary", "--date", "29/11/2026", "--workspace", str(workspace)]) == 2
    assert "YYYY-MM-DD" in capsys.readouterr().err
