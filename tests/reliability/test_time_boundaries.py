"""Extreme, non-finite and calendar-edge times are refused at the boundary with a clear
InvalidInputError, are never stored, and cannot poison later reads."""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta, timezone

import pytest
from conftest import run_palace

from palace.errors import InvalidInputError
from palace.validation import coerce_datetime

BAD_TIMES = ["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59", "0001-01-01T00:00:00",
             "9999-12-31T23:59:59", math.inf, -math.inf, math.nan, 1e300, -1e300,
             99999999999999999999, "inf", "nan", datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc),
             datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=23, minutes=59)))]


@pytest.mark.parametrize("value", BAD_TIMES, ids=repr)
def test_coerce_datetime_refuses_extreme_times(value):
    with pytest.raises(InvalidInputError, match="now"):
        coerce_datetime(value, tz=timezone.utc, what="now")


@pytest.mark.parametrize("value", ["2026-03-18T10:00:00+08:00", 1_773_800_000, 1_773_800_000_000,
                                   "1970-01-01T00:00:00Z", "2999-12-31T00:00:00+00:00"], ids=repr)
def test_coerce_datetime_accepts_ordinary_times(value):
    assert coerce_datetime(value, tz=timezone.utc).tzinfo is not None


@pytest.mark.parametrize("value", BAD_TIMES, ids=repr)
def test_get_search_list_with_an_extreme_now_are_refused_and_harmless(value, pm):
    memory = pm.store("我们决定用 PostgreSQL 作为主数据库。")
    for call in (lambda: pm.get(memory.id, now=value), lambda: pm.search("PostgreSQL", now=value),
                 lambda: pm.list(now=value), lambda: pm.run_decay(now=value),
                 lambda: pm.record_access([memory.id], at=value)):
        with pytest.raises(InvalidInputError):
            call()
    assert pm.get(memory.id).content.startswith("我们决定")
    assert [r.memory.id for r in pm.search("PostgreSQL")] == [memory.id]
    assert [m.id for m in pm.list()] == [memory.id]
    pm.reindex()
    assert [m.id for m in pm.list()] == [memory.id]


@pytest.mark.parametrize("value", BAD_TIMES, ids=repr)
def test_store_and_update_with_an_extreme_created_at_store_nothing(value, pm, palace_root):
    with pytest.raises(InvalidInputError, match="created_at"):
        pm.store("不该被存下来", created_at=value)
    assert pm.list() == [] and not list(palace_root.rglob("*.md"))
    memory = pm.store("我们决定用 PostgreSQL 作为主数据库。")
    with pytest.raises(InvalidInputError, match="created_at"):
        pm.update(memory.id, created_at=value)
    assert pm.get(memory.id).created_at == memory.created_at
    assert [r.memory.id for r in pm.search("PostgreSQL")] == [memory.id]


@pytest.mark.parametrize("days", [math.inf, math.nan, 1e300, -1.0, "x", True])
def test_empty_trash_refuses_unusable_older_than_days(days, pm):
    memory = pm.store("要删掉的")
    pm.delete(memory.id)
    with pytest.raises(InvalidInputError, match="older_than_days"):
        pm.empty_trash(older_than_days=days)
    assert [m.id for m in pm.list_trash()] == [memory.id]


POISON = [{"at": "9999-12-31T23:59:59-23:59", "ids": ["x"], "kind": "get"},
          {"at": "0001-01-01T00:00:00+23:59", "ids": ["x"], "kind": "get"},
          {"at": "2026-03-18T10:00:00+08:00", "ids": [{"a": 1}], "kind": "get"},
          {"at": 1e300, "ids": ["x"]}, {"at": None, "ids": ["x"]}, [1, 2], "text", 7]


def test_journal_reading_skips_every_poisoned_line_already_on_disk(make_pm, palace_root):
    pm = make_pm()
    memory = pm.store("我们决定用 PostgreSQL 作为主数据库。")
    pm.close()
    journal = palace_root / ".journal" / "access.jsonl"
    journal.parent.mkdir(parents=True, exist_ok=True)
    with open(journal, "a", encoding="utf-8") as handle:
        for record in POISON:
            handle.write(json.dumps(record).replace("x", memory.id) + "\n")
        handle.write('{"at": "2026-03-18T10:00:00+08:00", "ids": ["%s"], "kind": "get"}\n' % memory.id)
        handle.write("\xff garbage {\n")
    pm = make_pm()
    assert [m.id for m in pm.list()] == [memory.id]
    assert [r.memory.id for r in pm.search("PostgreSQL")] == [memory.id]
    assert pm.get(memory.id) is not None
    pm.run_decay()
    pm.reindex()
    assert [m.id for m in pm.list()] == [memory.id]


def test_journal_read_events_reports_poisoned_lines_as_skipped(tmp_path):
    from palace.store.journal import read_events

    path = tmp_path / "access.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in POISON)
                    + '{"at": "2026-03-18T10:00:00+08:00", "ids": ["ok"], "kind": "get"}\n', encoding="utf-8")
    events, offset, skipped = read_events(path, 0)
    assert [e.ids for e in events] == [("ok",)]
    assert skipped == len(POISON) and offset == path.stat().st_size
    for event in events:
        event.at.timestamp()


@pytest.mark.parametrize("args", [("decay", "--now", "9999-12-31T23:59:59-23:59"),
                                  ("add", "新的", "--created-at", "0001-01-01T00:00:00+23:59"),
                                  ("search", "PostgreSQL", "--now", "1e300")])
def test_cli_refuses_extreme_times_with_exit_code_2(args, workspace, pm):
    memory = pm.store("我们决定用 PostgreSQL 作为主数据库。")
    args = tuple(a.replace("{id}", memory.id) for a in args)
    result = run_palace("--workspace", str(workspace), *args)
    assert result.rc == 2, result
    assert "Traceback" not in result.stderr
    again = run_palace("--workspace", str(workspace), "search", "PostgreSQL", "--json")
    assert [r["id"] for r in again.json()["results"]] == [memory.id]
