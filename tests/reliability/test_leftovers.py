"""Interrupted writers leave nothing behind after the next open; a memory is never both
live and in the trash."""

from __future__ import annotations

import os
import time

from conftest import stray_files, write_file


def test_a_dead_writers_temp_files_are_removed_on_the_next_open(make_pm, palace_root):
    pm = make_pm()
    memory = pm.store("内容")
    pm.close()
    dead_pid = 2 ** 22 + 12345  # above pid_max defaults: certainly not running
    leftovers = [write_file(memory.path.parent / f".{memory.path.name}.{dead_pid}.abcd1234.tmp", "half"),
                 write_file(palace_root / ".trash" / f".x.md.{dead_pid}.00000000.tmp", "half"),
                 write_file(palace_root / ".palace" / f".concepts.json.{dead_pid}.ffff0000.tmp", "x" * 1000)]
    old = time.time() - 3600
    for path in leftovers:
        os.utime(path, (old, old))
    live = write_file(memory.path.parent / f".{memory.path.name}.{os.getpid()}.beef0000.tmp", "mine")
    make_pm()
    assert stray_files(palace_root) == [live]  # a live process's temp file is left alone


def test_a_big_palace_sweeps_its_room_folders_at_the_next_full_sync(make_pm, palace_root, monkeypatch):
    """Above FULL_TEMP_SWEEP_UP_TO memories the open only sweeps palace's own folders; the
    room folders are cleaned by the full sync, which walks them anyway."""
    from palace.maintenance import recovery

    pm = make_pm()
    memory = pm.store("内容")
    pm.close()
    monkeypatch.setattr(recovery, "FULL_TEMP_SWEEP_UP_TO", 0)
    dead_pid = 2 ** 22 + 12345
    leftover = write_file(memory.path.parent / f".{memory.path.name}.{dead_pid}.abcd1234.tmp", "half")
    live = write_file(memory.path.parent / f".{memory.path.name}.{os.getpid()}.beef0000.tmp", "mine")
    pm = make_pm()   # the open's sweep skips room folders here; its full sync does not
    assert not leftover.exists() and stray_files(palace_root) == [live]
    leftover = write_file(memory.path.parent / f".{memory.path.name}.{dead_pid}.abcd5678.tmp", "half")
    pm.sync(full=True)
    assert stray_files(palace_root) == [live]      # the dead writer's file went, ours stayed
    assert pm.get(memory.id).content == "内容"


def test_a_failed_concept_cache_write_leaves_no_temp_file(make_pm, palace_root, monkeypatch, tmp_path):
    from palace.search.concepts import load_cached

    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    cache = cache_dir / "concepts.json"

    def failing_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    try:
        load_cached(cache, None)
    except OSError:
        pass
    monkeypatch.undo()
    assert list(cache_dir.iterdir()) == []


def test_a_memory_left_both_live_and_in_trash_is_resolved_on_open(make_pm, palace_root):
    """What a kill between restore's write and its unlink (or a failed delete) left."""
    pm = make_pm()
    memory = pm.store("只该有一份")
    pm.delete(memory.id)
    trashed = palace_root / ".trash" / f"{memory.id}.md"
    write_file(memory.path, trashed.read_text(encoding="utf-8").replace('"deleted"', '"active"'))
    pm.close()
    pm = make_pm()
    live = memory.path.exists()
    assert live != trashed.exists()
    assert (pm.get(memory.id) is not None) == live
    assert ([m.id for m in pm.list_trash()] == [memory.id]) != live
