"""A room filter reads the room's rows from the location index, not every row of the
status index: SQLite keeps no statistics here, and without them it picks the status
(which nearly every row shares) and walks the whole palace."""

from __future__ import annotations

from palace import MemoryPalaceManager, Settings
from palace.index.database import Filters


def plan(pm, filters: Filters) -> str:
    where, params = filters.sql(from_tags=True)
    rows = pm.index.conn.execute(f"EXPLAIN QUERY PLAN SELECT rid FROM memories m WHERE {where}", params)
    return " | ".join(row[-1] for row in rows)


def test_a_room_filter_reads_the_room_from_the_location_index(tmp_path):
    with MemoryPalaceManager(tmp_path, settings=Settings.from_env(workspace_dir=str(tmp_path))) as pm:
        for n in range(30):
            pm.store(f"note {n} on the deploy", id=f"m{n}", location="projects/palace" if n % 3 else "general")
        for statuses in (("active",), ("active", "archived"), ("deleted",)):
            filters = Filters(statuses=statuses, location="projects/palace")
            assert "memories_status" not in plan(pm, filters) and "memories_location" in plan(pm, filters)
        rids = pm.index.filtered_rids(Filters(location="projects/palace"))
        assert len(rids) == 20  # the room and the rooms inside it, active ones only
        assert len(pm.index.filtered_rids(Filters(location="projects"))) == 20
        assert len(pm.index.filtered_rids(Filters(location="general"))) == 10
