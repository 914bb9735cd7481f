"""The concept map is cached beside the index; a change to a map or a broken cache
never gives stale or failed expansions."""

from __future__ import annotations

import os

from palace import MemoryPalaceManager, Settings
from palace.index import INDEX_DIR


def _expanded(pm: MemoryPalaceManager, text: str) -> set[str]:
    return {e.term for e in pm.concept_expander.expand(text)}


def test_cache_is_written_then_reused(tmp_path):
    pm = MemoryPalaceManager(tmp_path, settings=Settings.from_env(vector_enabled=False))
    first = _expanded(pm, "数据库")
    cache = pm.root / INDEX_DIR / "concepts.pickle"
    assert cache.exists() and "PostgreSQL" in first
    again = MemoryPalaceManager(tmp_path, settings=Settings.from_env(vector_enabled=False))
    assert _expanded(again, "数据库") == first


def test_a_changed_user_file_is_picked_up(tmp_path):
    user = tmp_path / "concepts.yaml"
    user.write_text("- name: pets\n  terms: [猫咪, kitty]\n", encoding="utf-8")
    settings = Settings.from_env(vector_enabled=False, concepts_file=str(user))
    assert "kitty" in _expanded(MemoryPalaceManager(tmp_path / "ws", settings=settings), "猫咪")
    user.write_text("- name: pets\n  terms: [猫咪, moggy]\n", encoding="utf-8")
    stat = user.stat()
    os.utime(user, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    expanded = _expanded(MemoryPalaceManager(tmp_path / "ws", settings=settings), "猫咪")
    assert "moggy" in expanded and "kitty" not in expanded


def test_a_corrupt_cache_is_rebuilt(tmp_path):
    pm = MemoryPalaceManager(tmp_path, settings=Settings.from_env(vector_enabled=False))
    _expanded(pm, "部署")
    cache = pm.root / INDEX_DIR / "concepts.pickle"
    cache.write_bytes(b"not a pickle")
    fresh = MemoryPalaceManager(tmp_path, settings=Settings.from_env(vector_enabled=False))
    assert "deploy" in {t.lower() for t in _expanded(fresh, "部署")}
    assert cache.read_bytes() != b"not a pickle"
