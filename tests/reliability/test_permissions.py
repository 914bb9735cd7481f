"""Everything palace creates is owner-only (0600 files, 0700 folders) whatever the umask,
and a rewrite keeps the file's mode."""

from __future__ import annotations

import os
import stat

import pytest


@pytest.fixture
def loose_umask():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_files_and_folders_are_created_owner_only(loose_umask, pm, palace_root, workspace):
    memory = pm.store("秘密：数据库密码在保险箱里", location="projects/secret")
    pm.get(memory.id)  # writes the journal
    pm.search("数据库")
    other = pm.store("要删掉的")
    pm.delete(other.id)
    created = [p for p in workspace.rglob("*") if not p.name.endswith(".lock")]
    assert created
    loose = [(str(p.relative_to(workspace)), oct(_mode(p))) for p in created
             if (p.is_dir() and _mode(p) != 0o700) or (p.is_file() and _mode(p) & 0o077)]
    assert loose == []


def test_update_keeps_a_files_mode(loose_umask, pm):
    memory = pm.store("原文")
    memory.path.chmod(0o640)
    updated = pm.update(memory.id, content="改过的")
    assert _mode(updated.path) == 0o640
    memory.path.chmod(0o600)
    pm.update(memory.id, tags=["x"])
    assert _mode(memory.path) == 0o600
