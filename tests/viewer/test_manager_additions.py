"""The two public manager methods the viewer reads with: access_history and list_page."""

from datetime import datetime, timezone

import pytest

from palace import InvalidInputError, MemoryPalaceManager


@pytest.fixture
def pm(tmp_path):
    manager = MemoryPalaceManager(tmp_path)
    yield manager
    manager.close()


def test_list_page_returns_the_slice_of_list_newest_first(pm):
    for day in range(1, 8):
        pm.store(f"note of day {day}", location="a" if day % 2 else "b",
                 created_at=f"2026-01-{day:02d}T10:00:00+00:00")
    everything = [m.id for m in pm.list()]
    assert [m.id for m in pm.list_page(offset=2, limit=3)] == everything[2:5]
    assert [m.id for m in pm.list_page(offset=6, limit=3)] == everything[6:]
    assert pm.list_page(offset=50, limit=3) == []
    in_a = [m.id for m in pm.list(location="a")]
    assert [m.id for m in pm.list_page(offset=1, limit=10, location="a")] == in_a[1:]


def test_list_page_status_and_bad_arguments(pm):
    kept = pm.store("kept")
    faded = pm.store("faded")
    pm.update(faded.id, status="archived")
    assert [m.id for m in pm.list_page(status="archived")] == [faded.id]
    assert {m.id for m in pm.list_page(status="all")} == {kept.id, faded.id}
    with pytest.raises(InvalidInputError):
        pm.list_page(offset=-1)
    with pytest.raises(InvalidInputError):
        pm.list_page(status="deleted")


def test_access_history_merges_bursts_and_ignores_accesses_before_creation(pm):
    memory = pm.store("used now and then", created_at="2026-01-01T00:00:00+00:00")
    pm.record_access([memory.id], at=datetime(2025, 12, 1, tzinfo=timezone.utc))  # before creation
    pm.record_access([memory.id], at=datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc))
    pm.record_access([memory.id], at=datetime(2026, 1, 5, 9, 20, tzinfo=timezone.utc))  # same burst
    pm.record_access([memory.id], at=datetime(2026, 2, 1, tzinfo=timezone.utc))
    history = pm.access_history(memory.id)
    assert [t.astimezone(timezone.utc) for t in history] == [
        datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc), datetime(2026, 2, 1, tzinfo=timezone.utc)]
    # the same history decay counts
    assert pm.get(memory.id, record_access=False).access_count == len(history)
    assert pm.access_history("0123456789abcdef") == []


def test_room_counts_by_status(pm):
    pm.store("a", location="projects/palace")
    pm.store("b", location="projects/palace")
    faded = pm.store("c", location="notes")
    pm.update(faded.id, status="archived")
    gone = pm.store("d", location="notes")
    pm.delete(gone.id)
    assert pm.room_counts() == {"projects/palace": {"active": 2}, "notes": {"archived": 1}}


def test_created_per_month_counts_by_room_and_month(pm):
    pm.store("a", location="x", created_at="2026-01-31T23:30:00+08:00")
    pm.store("b", location="x", created_at="2026-02-01T00:30:00+08:00")
    pm.store("c", location="y", created_at="2026-02-10T10:00:00+08:00")
    faded = pm.store("d", location="y", created_at="2026-03-01T10:00:00+08:00")
    pm.update(faded.id, status="archived")
    assert pm.created_per_month() == {"x": {"2026-01": 1, "2026-02": 1},
                                      "y": {"2026-02": 1, "2026-03": 1}}
    assert pm.created_per_month(status="active") == {"x": {"2026-01": 1, "2026-02": 1},
                                                     "y": {"2026-02": 1}}
    with pytest.raises(InvalidInputError):
        pm.created_per_month(status="deleted")
