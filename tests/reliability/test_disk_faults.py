"""A full disk and a read-only palace, for real (a tmpfs filled up; chattr +i), through the
Python API and the CLI: writes raise palace's DiskFullError / ReadOnlyPalaceError saying
what to do, reads keep answering (what they would write is skipped with a note), and
nothing already stored is lost. MCP and the sidecar: test_disk_faults_servers.py."""

from __future__ import annotations

import pytest
from conftest import run_palace
from disk_helpers import freeze, mounted_tmpfs, palace_paths

from palace import DiskFullError, MemoryPalaceManager, PalaceError, ReadOnlyPalaceError, StorageError

EXIT_OTHER = 4


@pytest.fixture
def small_disk(tmp_path):
    yield from mounted_tmpfs(tmp_path)


def _seed(workspace, n: int = 20) -> list[str]:
    with MemoryPalaceManager(workspace) as pm:
        ids = [pm.store(f"记忆 {i}：我们决定用 PostgreSQL 作为主数据库 topic{i}", tags=["数据库"]).id
               for i in range(n)]
        pm.delete(ids[-1])  # one in the trash, for restore and empty_trash
    return ids


def _writes(pm, ids):
    """Every write of the Python API, by name."""
    return {
        "store": lambda: pm.store("新的一条记忆 " * 200),
        "update": lambda: pm.update(ids[0], content="改过的内容 " * 200),
        "delete": lambda: pm.delete(ids[1]),
        "restore": lambda: pm.restore(ids[-1]),
        "reindex": lambda: pm.reindex(),
        "sync": lambda: pm.sync(),
        "run_decay": lambda: pm.run_decay(now="2030-01-01"),
        "record_access": lambda: pm.record_access(ids[:3]),
        "empty_trash": lambda: pm.empty_trash(),
    }


def _raised(fn) -> BaseException | None:
    try:
        fn()
    except BaseException as exc:  # noqa: BLE001 - the point is to see what leaks
        return exc
    return None


def test_writes_on_a_full_disk_raise_disk_full_error_and_lose_nothing(small_disk):
    workspace = small_disk.path / "ws"
    ids = _seed(workspace)
    pm = MemoryPalaceManager(workspace)
    small_disk.fill(leave=0)
    outcomes = {name: _raised(fn) for name, fn in _writes(pm, ids).items()
                if name in ("store", "update", "delete", "reindex")}
    leaked = {name: f"{type(exc).__name__}: {exc}" for name, exc in outcomes.items()
              if not isinstance(exc, DiskFullError)}
    assert leaked == {}
    for name, exc in outcomes.items():
        assert isinstance(exc, PalaceError) and f"{name}()" in str(exc) and "full" in str(exc), exc
        assert "free some space" in str(exc)
    pm.close()
    small_disk.empty()
    with MemoryPalaceManager(workspace) as pm:
        assert sorted(m.id for m in pm.list()) == sorted(ids[:-1])
        assert pm.get(ids[0]).content.startswith("记忆 0")


def test_writes_on_a_read_only_palace_raise_read_only_palace_error(small_disk):
    workspace = small_disk.path / "ws"
    ids = _seed(workspace)
    paths = palace_paths(workspace)
    freeze(paths, True)
    try:
        pm = MemoryPalaceManager(workspace)
        assert pm.read_only
        outcomes = {name: _raised(fn) for name, fn in _writes(pm, ids).items() if name != "record_access"}
        assert {n: f"{type(e).__name__}: {e}" for n, e in outcomes.items()
                if not isinstance(e, ReadOnlyPalaceError)} == {}
        for name, exc in outcomes.items():
            assert f"{name}()" in str(exc) and "read-only" in str(exc) and "writable" in str(exc), exc
        assert pm.search("PostgreSQL")  # reads still answer
        pm.close()
    finally:
        freeze(paths, False)
    with MemoryPalaceManager(workspace) as pm:
        assert sorted(m.id for m in pm.list()) == sorted(ids[:-1])


@pytest.mark.parametrize("leave", [0, 256 * 1024])
def test_search_and_get_answer_on_a_full_disk_and_say_what_went_unrecorded(leave, small_disk):
    """The disk fills while the palace is open (the index was writable at open, so the
    access journal is tried): a read still answers, the use goes unrecorded with a note."""
    workspace = small_disk.path / "ws"
    ids = _seed(workspace, n=200)
    pm = MemoryPalaceManager(workspace)
    small_disk.fill(leave=leave)
    # what fills the rest of the disk: a write that fails half-way (its WAL frames)
    assert isinstance(_raised(lambda: pm.store("很长的内容 " * 40000)), (DiskFullError, type(None)))
    small_disk.fill(leave=0)
    failures = []
    for query in ["PostgreSQL", "数据库", "topic3", "记忆 5", "主数据库 PostgreSQL", "topic1"]:
        exc = _raised(lambda q=query: pm.search(q))
        if exc is not None:
            failures.append(f"{query}: {type(exc).__name__}: {exc}")
    assert failures == []
    results = pm.search("PostgreSQL")
    assert results and any("not counted as a use" in note for note in results.notes), results.notes
    assert pm.get(ids[0]).id == ids[0]
    assert [r.memory.id for r in pm.search("topic7")][:1] == [ids[7]]
    pm.close()


def test_storage_errors_are_one_family_under_palace_error():
    assert issubclass(DiskFullError, StorageError) and issubclass(ReadOnlyPalaceError, StorageError)
    assert issubclass(StorageError, PalaceError)


@pytest.mark.parametrize("args", [("delete", "{id}"), ("reindex",), ("update", "{id}", "--content", "x" * 5000)])
def test_cli_writes_on_a_full_disk_exit_4_saying_the_disk_is_full(args, small_disk):
    workspace = small_disk.path / "ws"
    ids = _seed(workspace)
    small_disk.fill(leave=0)
    result = run_palace("--workspace", str(workspace), *[a.format(id=ids[0]) for a in args])
    assert result.rc == EXIT_OTHER, result
    assert "Traceback" not in result.stderr
    assert "full" in result.stderr or "read-only" in result.stderr, result.stderr
