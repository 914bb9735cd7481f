"""``palace import`` builds the entity graph and applies supersession to what it brings
in, on a local palace and on a real embedded Postgres alike; a reindex afterwards keeps
one current value of an exclusive slot."""

from __future__ import annotations

import shutil
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from palace.manager import MemoryPalaceManager
from palace.settings import Settings

pytest_plugins = ["conftest_postgres"]

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
FACTS = [  # each stated in a palace of its own, so none has met the others yet
    ("我住在上海", 0),
    ("用户上个月搬到了杭州滨江，现在住在杭州", 40),
    ("刘洋在星图项目做前端开发", 1),
    ("张伟负责星图项目", 2),
]


def tree_of_unmet_facts(tmp_path: Path) -> Path:
    """A Markdown tree whose memories were each extracted in a palace of its own: the
    move to 杭州 has not retired 上海 yet (as files copied in from elsewhere)."""
    tree = tmp_path / "tree"
    for index, (text, day) in enumerate(FACTS):
        workspace = tmp_path / f"source{index}"
        pm = MemoryPalaceManager(workspace, settings=Settings.from_env({}, workspace_dir=str(workspace),
                                                                       vector_enabled=False))
        pm.store(text, created_at=T0 + timedelta(days=day))
        pm.close()
        for path in (workspace / "memory" / "palace").rglob("*.md"):
            target = tree / path.relative_to(workspace / "memory" / "palace")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
    return tree


def current_homes(pm: MemoryPalaceManager, now: datetime) -> list[str]:
    return sorted(r.object for r in pm.graph.history("用户") if r.predicate == "lives_in" and r.current(now))


def test_import_builds_the_graph_and_supersedes_on_both_backends(backend, tmp_path):
    tree = tree_of_unmet_facts(tmp_path)
    pm = MemoryPalaceManager(tmp_path / "target", settings=Settings.from_env(vector_enabled=False))
    try:
        report = pm.import_tree(tree)
        assert len(report.written) == 4
        now = T0 + timedelta(days=60)
        assert current_homes(pm, now) == ["杭州"]           # the move retired 上海 on import
        old = next(r for r in pm.graph.history("用户") if r.object == "上海")
        assert pm.get(old.memory_id, record_access=False).extra.get("supersededBy")
        # people who share a project are two hops apart
        paths = [r.explanation.notes[0] for r in pm.recall("张伟", depth=2, now=now)]
        assert any("刘洋" in path and "星图" in path for path in paths), paths
        assert {e["name"] for e in pm.graph.entities()} >= {"张伟", "刘洋", "星图项目", "杭州"}
        # a rebuild derives the graph from the files as they now are: still one home
        pm.reindex()
        assert current_homes(pm, now) == ["杭州"]
        # importing the tree again puts back the old memory as the tree states it, and the
        # move retires it again: still one home
        again = pm.import_tree(tree)
        assert again.written == [old.memory_id]
        assert current_homes(pm, now) == ["杭州"]
    finally:
        pm.close()
