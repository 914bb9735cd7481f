"""Faults (full disk, read-only folders, a corrupt index, .palace being a file) become clear
errors with the documented exit codes; reads keep working where they can."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from conftest import run_palace, write_file

from palace.errors import PalaceError

EXIT_NOT_FOUND, EXIT_BAD_INPUT, EXIT_CONFIG, EXIT_OTHER = 1, 2, 3, 4


def _index(palace_root):
    return palace_root / ".palace" / "index.sqlite3"


def _seed(make_pm):
    pm = make_pm()
    memory = pm.store("我们决定用 PostgreSQL 作为主数据库。", tags=["数据库"])
    pm.close()
    return memory


@pytest.mark.parametrize("damage", ["garbage", "truncated", "zero"])
def test_a_corrupt_index_is_rebuilt_and_nothing_is_lost(damage, make_pm, palace_root, workspace):
    memory = _seed(make_pm)
    index = _index(palace_root)
    for suffix in ("-wal", "-shm"):
        index.with_name(index.name + suffix).unlink(missing_ok=True)
    data = index.read_bytes()
    if damage == "garbage":
        index.write_bytes(b"this is not sqlite" * 1000)
    elif damage == "truncated":
        index.write_bytes(data[: len(data) // 2])
    else:
        index.write_bytes(data[:100] + b"\0" * (len(data) - 100))
    result = run_palace("--workspace", str(workspace), "search", "PostgreSQL", "--json")
    assert result.rc == 0, result
    assert [r["id"] for r in result.json()["results"]] == [memory.id]
    pm = make_pm()
    assert [m.id for m in pm.list()] == [memory.id]


def test_palace_folder_being_a_file_is_a_clear_error_not_exit_1(make_pm, palace_root, workspace):
    palace_root.mkdir(parents=True)
    write_file(palace_root / ".palace", "not a folder")
    with pytest.raises(PalaceError, match=r"\.palace"):
        make_pm()
    result = run_palace("--workspace", str(workspace), "list")
    assert result.rc in (EXIT_CONFIG, EXIT_OTHER), result
    assert "Traceback" not in result.stderr and ".palace" in result.stderr


def _freeze(paths, on: bool) -> None:
    """Read-only for real: chattr +i when root (root ignores file modes), else chmod."""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i" if on else "-i", *map(str, paths)], check=True)
    else:
        for path in paths:
            path.chmod((0o555 if path.is_dir() else 0o444) if on else (0o700 if path.is_dir() else 0o600))


def test_reads_work_and_writes_fail_clearly_on_a_read_only_workspace(make_pm, palace_root, workspace):
    memory = _seed(make_pm)
    paths = sorted([workspace, *workspace.rglob("*")], key=lambda p: -len(p.parts))
    _freeze(paths, True)
    try:
        for args in (("search", "PostgreSQL", "--json"), ("list", "--json"), ("get", memory.id, "--json")):
            result = run_palace("--workspace", str(workspace), *args)
            assert result.rc == 0, result
            assert memory.id in result.stdout
        result = run_palace("--workspace", str(workspace), "add", "新的记忆")
        assert result.rc == EXIT_OTHER, result
        assert "Traceback" not in result.stderr
        assert "read-only" in result.stderr.lower() or "permission" in result.stderr.lower() \
            or "not permitted" in result.stderr.lower()
    finally:
        _freeze(paths, False)
    pm = make_pm()
    assert [m.id for m in pm.list()] == [memory.id]


def test_a_full_disk_is_a_clear_error_and_loses_nothing(make_pm, workspace):
    """RLIMIT_FSIZE makes every write past a few KB fail as a full disk would."""
    memory = _seed(make_pm)
    script = textwrap.dedent("""
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))
        from palace.cli import main
        sys.exit(main(sys.argv[1:]))
    """)
    env = dict(os.environ)
    for args, expect in ((("add", "很长的内容 " * 500), EXIT_OTHER), (("search", "PostgreSQL", "--json"), 0),
                         (("list", "--json"), 0)):
        proc = subprocess.run([sys.executable, "-c", script, "--workspace", str(workspace), *args],
                              capture_output=True, text=True, env=env, timeout=60)
        assert proc.returncode == expect, (args, proc.stdout, proc.stderr[-3000:])
        assert "Traceback" not in proc.stderr
        if expect == 0:
            assert memory.id in proc.stdout
    pm = make_pm()
    assert [m.id for m in pm.list()] == [memory.id]
    assert not [p for p in workspace.rglob("*") if p.name.endswith(".tmp")]
