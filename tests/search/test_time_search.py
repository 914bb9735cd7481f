"""Time words in search: the period a query names ranks (soft, default) or filters
(strict) memories, relative to an explicit ``now``."""

from __future__ import annotations

import pytest

from palace import MemoryPalaceManager, Settings

NOW = "2026-03-18T10:00:00+08:00"  # a Wednesday; 上周 = [2026-03-09, 2026-03-16)


def _palace(tmp_path, mode: str) -> MemoryPalaceManager:
    settings = Settings.from_env(workspace_dir=str(tmp_path), vector_enabled=False,
                                 timezone="Asia/Shanghai", time_filter=mode)
    pm = MemoryPalaceManager(tmp_path, settings=settings)
    pm.store("数据库选型讨论：决定用 PostgreSQL，需要 JSONB。", id="last-week",
             created_at="2026-03-11T15:00:00+08:00")
    pm.store("数据库选型讨论：先用 SQLite 做原型。", id="week-before",
             created_at="2026-03-03T15:00:00+08:00")
    pm.store("补记：上周的数据库选型会议纪要已归档。", id="noted-after",
             created_at="2026-03-17T09:00:00+08:00")
    for day in range(1, 9):  # unrelated memories, so the words above are not everywhere
        pm.store(f"第{day}次周会：讨论前端样式和发布流程。", created_at=f"2026-03-0{day}T10:00:00+08:00")
    return pm


def _ids(results):
    return [r.memory.id for r in results]


def test_strict_returns_only_the_period_and_what_was_noted_just_after(tmp_path):
    pm = _palace(tmp_path, "strict")
    results = pm.search("上周讨论的数据库选型", now=NOW)
    assert _ids(results)[0] == "last-week"
    assert "week-before" not in _ids(results)
    placements = {r.memory.id: r.explanation.time_range["placement"] for r in results}
    assert placements["last-week"] == "inside"
    assert placements.get("noted-after") in (None, "late")
    assert results[0].explanation.time_range["text"] == "上周"


def test_soft_ranks_the_period_first_and_labels_the_rest(tmp_path):
    pm = _palace(tmp_path, "soft")
    results = pm.search("上周讨论的数据库选型", now=NOW)
    ids = _ids(results)
    assert ids[0] == "last-week"
    assert ids.index("week-before") > ids.index("last-week")
    placements = {r.memory.id: r.explanation.time_range["placement"] for r in results}
    assert placements["week-before"] == "outside"
    by_id = {r.memory.id: r for r in results}
    assert by_id["week-before"].explanation.relevance < by_id["last-week"].explanation.relevance


@pytest.mark.parametrize("mode", ["soft", "strict"])
def test_an_empty_period_says_so_and_shows_matches_from_any_time(tmp_path, mode):
    pm = _palace(tmp_path, mode)
    results = pm.search("去年的数据库选型", now=NOW)
    assert "last-week" in _ids(results)
    assert any("去年" in note for note in results[0].explanation.notes)


def test_a_time_only_query_lists_the_period_newest_first(tmp_path):
    pm = _palace(tmp_path, "soft")
    results = pm.search("上周", now=NOW)
    assert _ids(results) == ["last-week"]


def test_explicit_start_and_end_are_exact_in_both_modes(tmp_path):
    for mode in ("soft", "strict"):
        pm = _palace(tmp_path / mode, mode)
        results = pm.search("数据库选型", now=NOW, start="2026-03-01T00:00:00+08:00",
                            end="2026-03-05T00:00:00+08:00")
        assert _ids(results) == ["week-before"]
