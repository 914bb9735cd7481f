"""Crafted memory files (a palace pulled with git can carry anything) are reported with
their path and reason and skipped, in bounded time and memory; the palace stays usable."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from conftest import no_hang, write_file

from palace.errors import MemoryFileError
from palace.store.files import parse_memory, split_frontmatter

GOOD = "---\nid: \"good-one\"\n---\n我们决定用 PostgreSQL 作为主数据库。\n"


def _deep_flow(depth: int) -> str:
    return "---\nid: \"deep\"\nx: " + "[" * depth + "]" * depth + "\n---\nbody\n"


def _deep_block(depth: int) -> str:
    lines = ["---", 'id: "deep-block"']
    for level in range(depth):
        lines.append("  " * level + f"k{level}:")
    lines.append("  " * depth + "v")
    return "\n".join(lines) + "\n---\nbody\n"


def _alias_bomb() -> str:
    rows = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    names = "abcdefghi"
    for prev, name in zip(names, names[1:]):
        rows.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "---\nid: \"bomb\"\n" + "\n".join(rows) + "\n---\nboom\n"


HOSTILE = {
    "deep-flow-100000": _deep_flow(100_000),
    "deep-flow-5000": _deep_flow(5_000),
    "deep-block-3000": _deep_block(3_000),
    "created-inf": "---\nid: \"inf\"\ncreatedAt: .inf\n---\nbody\n",
    "created-nan": "---\nid: \"nan\"\ncreatedAt: .nan\n---\nbody\n",
    "created-1e300": "---\nid: \"big\"\ncreatedAt: 1e300\n---\nbody\n",
    "created-huge-int": "---\nid: \"hugeint\"\ncreatedAt: 99999999999999999999\n---\nbody\n",
    "created-json-huge-int": "---\nid: \"hugeint2\"\ncreatedAt: 99999999999999999999\nupdatedAt: 1\n---\nbody\n",
    "created-min-offset": "---\nid: \"minoff\"\ncreatedAt: \"0001-01-01T00:00:00+23:59\"\n---\nbody\n",
    "updated-max-offset": "---\nid: \"maxoff\"\nupdatedAt: \"9999-12-31T23:59:59-23:59\"\n---\nbody\n",
    "yaml-date-edge": "---\nid: \"yamldate\"\ncreatedAt: 0001-01-01 00:00:00+23:59\n---\nbody\n",
    "recursive-alias": "---\nid: \"rec\"\nx: &x [*x]\n---\nbody\n",
    "alias-bomb": _alias_bomb(),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_parse_memory_raises_a_value_error_for_hostile_frontmatter(name, tmp_path):
    from zoneinfo import ZoneInfo
    from datetime import datetime

    tz = ZoneInfo("Asia/Shanghai")

    def parse():
        return parse_memory(HOSTILE[name], path=tmp_path / f"{name}.md", location="general",
                            fallback_time=datetime(2026, 1, 1, tzinfo=tz), tz=tz)

    with pytest.raises(ValueError):
        no_hang(parse, timeout=10)


def test_alias_bomb_is_one_kilobyte():
    assert len(_alias_bomb().encode()) < 1200


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_file_is_reported_and_skipped_and_the_palace_keeps_working(name, make_pm, palace_root):
    write_file(palace_root / "general" / "good-one.md", GOOD)
    bad = write_file(palace_root / "general" / f"{name}.md", HOSTILE[name])
    pm = no_hang(make_pm, timeout=20)
    assert [m.id for m in no_hang(pm.list, timeout=10)] == ["good-one"]
    assert [r.memory.id for r in no_hang(pm.search, "PostgreSQL", timeout=10)] == ["good-one"]
    problems = dict(pm.problems())
    assert f"general/{bad.name}" in problems, problems
    assert problems[f"general/{bad.name}"]
    no_hang(pm.reindex, timeout=20)
    assert [m.id for m in pm.list()] == ["good-one"]
    assert f"general/{bad.name}" in dict(pm.problems())


def test_storage_read_gives_a_memory_file_error_with_path_and_reason(make_pm, palace_root):
    pm = make_pm()
    bad = write_file(palace_root / "general" / "bomb.md", _alias_bomb())
    with pytest.raises(MemoryFileError) as info:
        no_hang(pm.storage.read, bad, timeout=10)
    assert info.value.path == bad and info.value.reason


def test_the_alias_bomb_stays_within_bounded_memory(tmp_path, workspace, palace_root):
    """Opening, listing and searching a palace holding the bomb, under a 1 GiB address
    space limit, in a real subprocess: no MemoryError, no hang."""
    write_file(palace_root / "general" / "good-one.md", GOOD)
    write_file(palace_root / "general" / "bomb.md", _alias_bomb())
    script = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        from palace.manager import MemoryPalaceManager
        pm = MemoryPalaceManager({str(workspace)!r})
        assert [m.id for m in pm.list()] == ["good-one"]
        assert [r.memory.id for r in pm.search("PostgreSQL")] == ["good-one"]
        print(dict(pm.problems())["general/bomb.md"])
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip()


def test_split_frontmatter_still_reads_hand_written_yaml():
    meta, body = split_frontmatter("---\ntags:\n  - 数据库\n  - decision\nnested:\n  a: {b: [1, 2]}\n"
                                   "when: 2026-03-18 10:00:00+08:00\n---\nbody\n")
    assert meta["tags"] == ["数据库", "decision"] and meta["nested"] == {"a": {"b": [1, 2]}}
    assert meta["when"].year == 2026 and body == "body\n"
