"""Nothing is read, written or deleted outside the workspace, whatever links it holds."""

from __future__ import annotations

import os

import pytest
from conftest import run_palace, write_file

from palace.errors import PalaceError


@pytest.fixture
def outside(tmp_path):
    folder = tmp_path / "outside"
    folder.mkdir()
    victim = write_file(folder / "victim.md", "---\nid: \"victim\"\n---\n外面的秘密 PostgreSQL\n")
    return folder, victim


def _outside_untouched(folder, victim):
    assert victim.read_text(encoding="utf-8").startswith("---\nid: \"victim\"")
    assert sorted(p.name for p in folder.iterdir()) == ["victim.md"]


def test_a_symlinked_trash_is_never_emptied_through(outside, make_pm, palace_root, workspace):
    folder, victim = outside
    pm = make_pm()
    (palace_root / ".trash").symlink_to(folder, target_is_directory=True)
    try:
        pm.empty_trash()
    except PalaceError:
        pass
    result = run_palace("--workspace", str(workspace), "trash", "--empty", "--yes")
    assert "Traceback" not in result.stderr
    _outside_untouched(folder, victim)


def test_delete_never_writes_through_a_symlinked_trash(outside, make_pm, palace_root):
    folder, victim = outside
    pm = make_pm()
    memory = pm.store("要删掉的")
    (palace_root / ".trash").symlink_to(folder, target_is_directory=True)
    with pytest.raises(PalaceError):
        pm.delete(memory.id)
    _outside_untouched(folder, victim)
    assert pm.get(memory.id) is not None  # still live: the failed delete lost nothing


def test_a_symlinked_room_is_neither_read_nor_written(outside, make_pm, palace_root):
    folder, victim = outside
    (palace_root).mkdir(parents=True)
    (palace_root / "linked").symlink_to(folder, target_is_directory=True)
    pm = make_pm()
    assert pm.list() == [] and pm.search("PostgreSQL") == []
    with pytest.raises(PalaceError):
        pm.store("写到外面去", location="linked")
    _outside_untouched(folder, victim)


def test_a_nested_room_below_a_symlink_is_not_written(outside, make_pm, palace_root):
    folder, victim = outside
    palace_root.mkdir(parents=True)
    (palace_root / "linked").symlink_to(folder, target_is_directory=True)
    pm = make_pm()
    with pytest.raises(PalaceError):
        pm.store("写到外面去", location="linked/deeper")
    _outside_untouched(folder, victim)


@pytest.mark.parametrize("name", [".palace", ".journal"])
def test_symlinked_palace_folders_are_refused(name, outside, make_pm, palace_root):
    folder, victim = outside
    palace_root.mkdir(parents=True)
    (palace_root / name).symlink_to(folder, target_is_directory=True)
    with pytest.raises(PalaceError, match="symlink|link"):
        pm = make_pm()
        pm.store("x")
        pm.get(pm.list()[0].id)
    _outside_untouched(folder, victim)


def test_a_memory_file_replaced_by_a_symlink_is_not_read(outside, make_pm, palace_root):
    folder, victim = outside
    pm = make_pm()
    memory = pm.store("原来的内容 数据库")
    os.unlink(memory.path)
    memory.path.symlink_to(victim)
    got = pm.get(memory.id)
    assert got is None or "外面的秘密" not in got.content
    pm.sync()
    assert pm.search("PostgreSQL") == []
    pm.reindex()
    assert pm.search("PostgreSQL") == []
    assert all("外面的秘密" not in m.content for m in pm.list())
    with pytest.raises(PalaceError):
        pm.update(memory.id, content="改写")
    _outside_untouched(folder, victim)
