"""``palace doctor``: finds what crashes, hand edits and time leave, repairs it on
request; ``--check`` only reports and exits non-zero when something is wrong."""

from __future__ import annotations

import json
import os
import time

from conftest import run_palace, stray_files, write_file


def _kinds(report) -> set[str]:
    return {f.kind for f in report.findings}


def _damage(pm, palace_root):
    """A palace with one of everything doctor looks for."""
    keep = pm.store("我们决定用 PostgreSQL 作为主数据库。")
    both = pm.store("恢复到一半")
    pm.delete(both.id)
    write_file(both.path, (palace_root / ".trash" / f"{both.id}.md").read_text(encoding="utf-8"))
    hand = write_file(palace_root / "general" / "by-hand.md", "手写的笔记，还没索引\n")
    bad = write_file(palace_root / "general" / "broken.md", "---\nid: [unclosed\n---\nx\n")
    pm.sync()  # records broken.md as unreadable
    os.utime(hand, None)
    write_file(palace_root / "general" / "later.md", "同步之后才出现\n")
    dead = 2 ** 22 + 4321
    temp = write_file(palace_root / "general" / f".{keep.id}.md.{dead}.00ff00ff.tmp", "half")
    old = time.time() - 7200
    os.utime(temp, (old, old))
    journal = palace_root / ".journal" / "access.jsonl"
    journal.parent.mkdir(exist_ok=True)
    with open(journal, "a", encoding="utf-8") as handle:
        handle.write("garbage line\n")
        from datetime import datetime, timedelta, timezone
        start = datetime.now(timezone.utc) + timedelta(seconds=5)  # after the memory was created
        for i in range(50):  # a burst a minute apart, then one a day later
            at = start + (timedelta(minutes=i) if i < 49 else timedelta(days=1))
            handle.write(json.dumps({"at": at.isoformat(), "ids": [keep.id, "gone-id"],
                                     "kind": "search"}) + "\n")
    return keep, both, bad, temp


def test_check_finds_everything_and_changes_nothing(make_pm, palace_root):
    pm = make_pm()
    keep, both, bad, temp = _damage(pm, palace_root)
    before = sorted(p.relative_to(palace_root) for p in palace_root.rglob("*") if p.is_file())
    report = pm.doctor(repair=False, journal_max_bytes=1000)
    assert {"drift", "temp-file", "live-and-trash", "unreadable", "journal"} <= _kinds(report)
    assert not report.ok
    assert any(f.path == "general/broken.md" and f.detail for f in report.findings if f.kind == "unreadable")
    after = sorted(p.relative_to(palace_root) for p in palace_root.rglob("*") if p.is_file())
    assert after == before


def test_repair_fixes_everything_and_a_second_check_is_clean(make_pm, palace_root):
    pm = make_pm()
    keep, both, bad, temp = _damage(pm, palace_root)
    pm.sync()
    accesses_before = make_pm().get(keep.id, record_access=False).access_count
    report = pm.doctor(repair=True, move_unreadable=True, journal_max_bytes=1000)
    assert report.ok, report.to_dict()
    assert not temp.exists() and stray_files(palace_root) == []
    assert both.path.exists() and not (palace_root / ".trash" / f"{both.id}.md").exists()
    assert not bad.exists() and (palace_root / ".quarantine" / "general" / "broken.md").exists()
    assert {m.id for m in pm.list()} >= {keep.id, both.id, "by-hand", "later"}
    again = pm.doctor(repair=False, journal_max_bytes=1000)
    assert again.findings == [] and again.ok
    # the compacted journal counts the same accesses (a burst is one recall either way)
    assert pm.get(keep.id, record_access=False).access_count == accesses_before >= 1
    assert (palace_root / ".journal" / "access.jsonl").stat().st_size < 1000


def test_cli_doctor_check_exits_non_zero_and_repair_exits_zero(make_pm, palace_root, workspace):
    pm = make_pm()
    _damage(pm, palace_root)
    pm.close()
    check = run_palace("--workspace", str(workspace), "doctor", "--check", "--json")
    assert check.rc == 4, check
    found = json.loads(check.stdout)
    assert found["ok"] is False and found["findings"]
    repair = run_palace("--workspace", str(workspace), "doctor", "--move-unreadable")
    assert repair.rc == 0, repair
    clean = run_palace("--workspace", str(workspace), "doctor", "--check")
    assert clean.rc == 0, clean


def test_orphaned_vectors_are_found_and_pruned(make_pm):
    pm = make_pm()
    pm.store("x")
    pm.index.put_vectors("model-x", [("0" * 32, 0, __import__("numpy").zeros(4, dtype="float32"))])
    assert "orphan-vectors" in _kinds(pm.doctor(repair=False))
    assert pm.doctor(repair=True).ok
    assert "orphan-vectors" not in _kinds(pm.doctor(repair=False))


def test_symlinks_inside_the_palace_are_reported(make_pm, palace_root, tmp_path):
    pm = make_pm()
    (palace_root / "linked").symlink_to(tmp_path, target_is_directory=True)
    report = pm.doctor(repair=True)
    assert [f.path for f in report.findings if f.kind == "symlink"] == ["linked"]
    assert not report.ok  # a person decides
