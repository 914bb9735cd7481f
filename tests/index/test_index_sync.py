"""The index is derived from the files: it notices hand edits, new, moved and removed
files, reports broken ones, and can be thrown away and rebuilt with nothing lost."""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime, timedelta, timezone

import pytest

from conftest import memory_files, no_hang, write_file
from palace.errors import MemoryFileError
from palace.index import INDEX_DIR, INDEX_FILE, Index
from palace.index import sync as sync_module
from palace.index.sync import Syncer, plan_sync
from palace.models import Memory
from palace.store.files import FileStorage
from palace.store.locks import WriteLock

CST = timezone(timedelta(hours=8))
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=CST)


def ids(results):
    return [r.memory.id for r in results]


def nothing_changed(report):
    return not (report.added or report.updated or report.moved or report.removed or report.errors)


def hand_edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    # make the change visible even on file systems with coarse mtimes
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


# --------------------------------------------------------------------------- hand edits

@pytest.fixture
def edited(pm):
    m = pm.store("the cache layer uses zorblax", tags=["cache", "infra"], location="projects")
    hand_edit(m.path, "uses zorblax", "uses quixotron instead")
    hand_edit(m.path, '"infra"', '"handtag"')
    return pm, m


def test_hand_edit_is_picked_up_by_a_fresh_manager(edited, make_pm):
    _, m = edited
    fresh = make_pm()
    assert fresh.last_sync.updated == [m.id]
    assert ids(fresh.search("quixotron")) == [m.id]
    assert fresh.search("zorblax") == []
    got = fresh.get(m.id)
    assert got.content == "the cache layer uses quixotron instead"
    assert got.tags == ("cache", "handtag")
    assert ids(fresh.search("cache", tags=["handtag"])) == [m.id]
    assert fresh.search("cache", tags=["infra"]) == []


def test_hand_edit_is_picked_up_by_sync(edited):
    pm, m = edited
    report = pm.sync()
    assert report.updated == [m.id]
    assert (report.added, report.removed, report.moved, report.errors) == ([], [], [], [])
    assert ids(pm.search("quixotron")) == [m.id]
    assert pm.search("zorblax") == []
    assert pm.list(tags=["handtag"])[0].id == m.id
    assert nothing_changed(pm.sync())


def test_get_sees_a_hand_edit_without_an_explicit_sync(edited):
    pm, m = edited
    assert pm.get(m.id).content == "the cache layer uses quixotron instead"


def test_update_right_after_a_hand_edit_keeps_the_edit_and_does_not_hang(edited):
    pm, m = edited
    updated = no_hang(pm.update, m.id, importance=0.9, timeout=5)
    assert updated.content == "the cache layer uses quixotron instead"
    assert updated.tags == ("cache", "handtag")
    assert pm.storage.read(m.path).importance == 0.9


def test_delete_right_after_a_hand_edit_does_not_hang(edited):
    pm, m = edited
    trashed = no_hang(pm.delete, m.id, timeout=5)
    assert trashed.path.exists() and not m.path.exists()
    assert "quixotron" in trashed.path.read_text(encoding="utf-8")


def test_delete_of_a_memory_whose_file_was_removed_by_hand_says_not_found(pm):
    from palace.errors import MemoryNotFoundError

    m = pm.store("short lived")
    m.path.unlink()
    with pytest.raises(MemoryNotFoundError):
        no_hang(pm.delete, m.id, timeout=5)
    assert pm.index.count() == 0


@pytest.mark.parametrize("which", ["newest", "oldest"])
def test_hand_edit_of_the_id_reindexes_the_memory_under_its_new_id(make_pm, which):
    # e.g. following the duplicate-id advice "give one of the copies a new id"
    pm = make_pm()
    oldest = pm.store("first memory about pelicans", id="oldest")
    newest = pm.store("second memory about herons", id="newest")
    target = newest if which == "newest" else oldest
    word = "herons" if which == "newest" else "pelicans"
    hand_edit(target.path, f'id: "{target.id}"', 'id: "renamed"')
    hand_edit(target.path, word, "storks")
    report = pm.sync()
    assert report.errors == []
    assert pm.get("renamed").content.endswith("about storks")
    assert pm.get(target.id) is None
    assert ids(pm.search("storks")) == ["renamed"]
    assert pm.search(word) == []
    assert pm.index.count() == 2
    fresh = make_pm()  # and the palace still opens
    assert sorted(m.id for m in fresh.list()) == sorted(["renamed", ({"oldest", "newest"} - {target.id}).pop()])


def test_touched_but_unchanged_file_is_not_an_update(pm):
    m = pm.store("unchanged text")
    st = m.path.stat()
    os.utime(m.path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    report = pm.sync()
    assert nothing_changed(report)
    assert report.unchanged == 1
    assert nothing_changed(pm.sync())


# --------------------------------------------------------------------------- new, moved, removed

def test_new_file_with_frontmatter_dropped_in_by_hand_is_indexed(pm, palace_root):
    write_file(palace_root / "projects" / "palace" / "handmade.md",
               '---\nid: "hand-1"\ntags: ["部署", "ops"]\nimportance: 0.7\ntype: "decision"\n'
               'createdAt: "2026-03-18T10:00:00+08:00"\nlocation: "ignored/by/design"\n---\n\n'
               "周五之前完成 kubernetes 部署\n")
    report = pm.sync()
    assert report.added == ["hand-1"]
    m = pm.get("hand-1")
    assert (m.location, m.tags, m.importance, m.type) == ("projects/palace", ("部署", "ops"), 0.7, "decision")
    assert m.created_at == datetime(2026, 3, 18, 10, 0, tzinfo=CST)
    assert ids(pm.search("kubernetes")) == ["hand-1"]
    assert ids(pm.search("部署", location="projects")) == ["hand-1"]


def test_new_file_without_frontmatter_is_indexed_by_its_file_name(make_pm, palace_root):
    make_pm().close()
    write_file(palace_root / "notes" / "grocery-list.md", "buy oat milk and 豆腐\n")
    pm = make_pm()
    assert pm.last_sync.added == ["grocery-list"]
    m = pm.get("grocery-list")
    assert (m.content, m.location, m.status, m.type) == ("buy oat milk and 豆腐", "notes", "active", "fact")
    assert ids(pm.search("oat milk")) == ["grocery-list"]
    assert ids(pm.search("豆腐")) == ["grocery-list"]
    # the file itself is left as the person wrote it
    assert (palace_root / "notes" / "grocery-list.md").read_text() == "buy oat milk and 豆腐\n"


def test_file_moved_to_another_room_changes_location(pm, palace_root):
    m = pm.store("runbook for the postgres failover", location="ops")
    target = palace_root / "projects" / "db" / m.path.name
    target.parent.mkdir(parents=True)
    shutil.move(m.path, target)
    report = pm.sync()
    assert report.moved == [m.id]
    assert (report.added, report.removed) == ([], [])
    got = pm.get(m.id)
    assert got.location == "projects/db"
    assert got.path == target
    assert ids(pm.search("failover", location="projects")) == [m.id]
    assert pm.search("failover", location="ops") == []
    assert pm.index.count() == 1


def test_get_on_an_open_manager_follows_a_file_moved_by_hand(pm, palace_root):
    # a person reorganises rooms in an IDE while an agent holds the palace open:
    # the memory still exists, so get() must not answer "no such memory"
    m = pm.store("memory about the sacred ibis", id="ibis", location="birds")
    (palace_root / "zoo").mkdir()
    shutil.move(m.path, palace_root / "zoo" / "ibis.md")
    got = pm.get("ibis")
    assert got is not None
    assert got.location == "zoo"


def test_get_on_a_big_palace_follows_a_moved_file_without_a_full_scan(pm, palace_root, monkeypatch):
    # a full scan stats every file (seconds at 100k memories); moving or removing a
    # file changes its folders' mtimes, so rescanning those rooms is enough
    monkeypatch.setattr(sync_module, "QUICK_SYNC_ABOVE", 0)  # treat this palace as big
    m = pm.store("memory about the sacred ibis", id="ibis", location="birds")
    gone = pm.store("memory about the dodo", id="dodo", location="birds")
    (palace_root / "zoo").mkdir()
    shutil.move(m.path, palace_root / "zoo" / "ibis.md")
    gone.path.unlink()
    full_scans = []
    real_scan = pm.storage.scan
    monkeypatch.setattr(pm.storage, "scan", lambda *a, **k: full_scans.append(1) or real_scan(*a, **k))
    assert pm.get("ibis").location == "zoo"
    assert pm.get("dodo") is None
    assert full_scans == []


def test_removed_file_disappears_from_search_and_list(make_pm):
    pm = make_pm()
    keep = pm.store("postgres backups run nightly")
    gone = pm.store("postgres vacuum settings")
    gone.path.unlink()
    fresh = make_pm()
    assert fresh.last_sync.removed == [gone.id]
    assert ids(fresh.search("postgres")) == [keep.id]
    assert pm.sync().removed == []  # the fresh manager already dropped it from the shared index
    assert ids(pm.search("postgres")) == [keep.id]
    assert [m.id for m in pm.list()] == [keep.id]
    assert pm.get(gone.id) is None


def test_removed_file_is_dropped_by_sync(pm):
    gone = pm.store("ephemeral redis note")
    gone.path.unlink()
    report = pm.sync()
    assert report.removed == [gone.id]
    assert pm.search("redis") == []
    assert pm.list() == []


def test_quick_open_on_big_palaces_still_notices_a_new_file(make_pm, palace_root, monkeypatch):
    monkeypatch.setattr(sync_module, "QUICK_SYNC_ABOVE", 0)  # treat this palace as big
    pm = make_pm()
    pm.store("existing note", location="notes")
    pm.close()
    write_file(palace_root / "notes" / "dropped.md", "dropped in by a git pull\n")
    fresh = make_pm()
    assert fresh.last_sync.added == ["dropped"]
    assert ids(fresh.search("git pull")) == ["dropped"]


# --------------------------------------------------------------------------- broken files

BROKEN = {
    "bad-yaml": ("---\nid: bad-yaml\ntags: [oops\n---\nhello world\n", "YAML"),
    "unclosed": ("---\nid: unclosed\ntags: []\nhello world\n", "closing"),
    "binary": (b"\x00\x01\x02hello world\xff", "binary"),
    "latin1": ("caf\xe9 hello world".encode("latin-1"), "UTF-8"),
    "bad-status": ("---\nstatus: forgotten\n---\nhello world\n", "status"),
    "bad-id": ('---\nid: "../../etc/passwd"\n---\nhello world\n', "id"),
    "bad-time": ('---\ncreatedAt: "yesterday-ish"\n---\nhello world\n', "createdAt"),
    "not-mapping": ("---\n- just\n- a list\n---\nhello world\n", "mapping"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_file_is_reported_with_path_and_reason_and_never_crashes(make_pm, palace_root, name):
    pm = make_pm()
    good = pm.store("hello world from a good memory")
    content, reason = BROKEN[name]
    write_file(palace_root / "general" / f"{name}.md", content)
    report = pm.sync()
    assert [(os.path.basename(p), reason in r) for p, r in report.errors] == [(f"{name}.md", True)]
    assert pm.problems() == [(f"general/{name}.md", report.errors[0][1])]
    assert ids(pm.search("hello world")) == [good.id]
    assert [m.id for m in pm.list()] == [good.id]
    assert pm.stats()["problems"] == 1
    fresh = make_pm()
    assert [p for p, _ in fresh.problems()] == [f"general/{name}.md"]
    assert ids(fresh.search("hello")) == [good.id]


def test_reading_a_broken_file_raises_memory_file_error_with_path_and_reason(pm, palace_root):
    path = write_file(palace_root / "general" / "x.md", "---\nid: x\n")
    with pytest.raises(MemoryFileError) as info:
        pm.storage.read(path)
    assert info.value.path == path
    assert "closing" in info.value.reason
    assert str(path) in str(info.value)


def test_fixing_or_removing_a_broken_file_clears_the_problem(pm, palace_root):
    fixable = write_file(palace_root / "general" / "fixable.md", "---\ntags: [oops\n---\nbody one\n")
    removable = write_file(palace_root / "general" / "removable.md", b"\x00binary")
    pm.sync()
    assert len(pm.problems()) == 2
    fixable.write_text("---\ntags: [fixed]\n---\nbody one\n")
    removable.unlink()
    report = pm.sync()
    assert report.added == ["fixable"]
    assert pm.problems() == []
    assert pm.get("fixable").tags == ("fixed",)


def test_duplicate_id_from_a_copied_file_is_reported_not_indexed_twice(pm, palace_root):
    m = pm.store("the only kafka memory", id="kafka-1", location="ops")
    copy = palace_root / "projects" / "kafka-copy.md"
    copy.parent.mkdir(parents=True)
    shutil.copy(m.path, copy)
    report = pm.sync()
    assert report.duplicates == [("kafka-1", "ops/kafka-1.md", "projects/kafka-copy.md")]
    assert [(p, "duplicate" in r and "kafka-1" in r) for p, r in pm.problems()] == [
        ("projects/kafka-copy.md", True)]
    assert ids(pm.search("kafka")) == ["kafka-1"]
    assert [x.id for x in pm.list()] == ["kafka-1"]
    assert pm.index.count() == 1
    assert pm.get("kafka-1").location == "ops"
    # removing the original lets the copy take over
    m.path.unlink()
    pm.sync()
    assert pm.get("kafka-1").location == "projects"
    assert pm.problems() == []
    assert pm.index.count() == 1


# --------------------------------------------------------------------------- rebuild

@pytest.fixture
def populated(make_pm):
    pm = make_pm()
    memories = [
        pm.store("数据库选型：PostgreSQL", tags=["数据库"], location="projects/palace",
                 created_at="2026-03-18T10:00:00+08:00"),
        pm.store("deploys happen on friday afternoons", tags=["ops"], importance=0.9, type="decision",
                 created_at="2026-06-01T08:00:00+08:00"),
        pm.store("archived idea about graph databases", summary="graphs",
                 created_at="2026-07-01T08:00:00+08:00"),
    ]
    pm.update(memories[2].id, status="archived")
    pm.delete(pm.store("trashed note").id)
    for day in range(3):
        pm.search("PostgreSQL", now=NOW + timedelta(days=day))
    pm.get(memories[1].id, now=NOW)
    return pm, [m.id for m in memories]


def snapshot_state(pm, memory_ids):
    out = {}
    for memory_id in memory_ids:
        m = pm.get(memory_id, record_access=False, now=NOW + timedelta(days=10))
        out[memory_id] = (m.content, m.summary, m.tags, m.importance, m.status, m.location, m.type,
                          m.created_at, m.updated_at, m.access_count, m.last_accessed_at,
                          round(m.decay_score, 9))
    return out


def test_deleting_the_index_file_loses_nothing(populated, make_pm, palace_root):
    pm, memory_ids = populated
    before = snapshot_state(pm, memory_ids)
    assert before[memory_ids[0]][9] == 3  # three searches
    assert before[memory_ids[1]][9] == 1  # one get
    files_before = {p: p.read_bytes() for p in memory_files(palace_root)}
    pm.close()
    for suffix in ("", "-wal", "-shm"):
        (palace_root / ".palace" / f"index.sqlite3{suffix}").unlink(missing_ok=True)
    fresh = make_pm()
    assert snapshot_state(fresh, memory_ids) == before
    assert {p: p.read_bytes() for p in memory_files(palace_root)} == files_before
    assert len(fresh.list_trash()) == 1
    assert ids(fresh.search("PostgreSQL")) == [memory_ids[0]]
    assert ids(fresh.search("graph", include_archived=True)) == [memory_ids[2]]


def test_reindex_loses_nothing(populated):
    pm, memory_ids = populated
    before = snapshot_state(pm, memory_ids)
    stats_before = pm.stats()
    report = pm.reindex()
    assert sorted(report.added) == sorted(memory_ids)
    assert snapshot_state(pm, memory_ids) == before
    stats_after = pm.stats()
    for key in ("by_status", "by_location", "by_type", "accesses", "total", "trash"):
        assert stats_after[key] == stats_before[key], key


def test_a_garbled_journal_line_is_skipped_not_fatal(populated, make_pm, palace_root):
    pm, memory_ids = populated
    journal = palace_root / ".journal" / "access.jsonl"
    with open(journal, "a", encoding="utf-8") as handle:
        handle.write("{not json at all\n")
        handle.write(json.dumps({"at": NOW.isoformat(), "ids": [memory_ids[1]], "kind": "get"}) + "\n")
    pm.close()
    (palace_root / ".palace" / "index.sqlite3").unlink()
    fresh = make_pm()
    assert fresh.get(memory_ids[1], record_access=False).access_count == 1  # merged into the same hour
    assert fresh.get(memory_ids[0], record_access=False).access_count == 3


def test_accesses_go_to_the_journal_not_the_markdown(populated, palace_root):
    pm, memory_ids = populated
    path = pm.get(memory_ids[0], record_access=False).path
    stat_before, bytes_before = path.stat().st_mtime_ns, path.read_bytes()
    journal = palace_root / ".journal" / "access.jsonl"
    lines_before = journal.read_text().count("\n")
    for day in range(5):
        assert ids(pm.search("PostgreSQL", now=NOW + timedelta(days=20 + day))) == [memory_ids[0]]
        pm.get(memory_ids[0], now=NOW + timedelta(days=20 + day, hours=5))
    pm.list()
    assert path.stat().st_mtime_ns == stat_before
    assert path.read_bytes() == bytes_before
    assert journal.read_text().count("\n") == lines_before + 10
    assert pm.get(memory_ids[0], record_access=False).access_count == 13


def test_search_and_get_rewrite_no_markdown_file_at_all(populated, palace_root):
    pm, _ = populated
    mtimes = {p: p.stat().st_mtime_ns for p in palace_root.rglob("*.md")}
    pm.search("数据库")
    pm.search("deploys", include_archived=True)
    pm.list(status="all")
    for memory in pm.list():
        pm.get(memory.id)
    assert {p: p.stat().st_mtime_ns for p in palace_root.rglob("*.md")} == mtimes


def test_sync_with_nothing_changed_reports_nothing(populated):
    pm, memory_ids = populated
    report = pm.sync()
    assert nothing_changed(report)
    assert report.unchanged == len(memory_ids)


# --------------------------------------------------------------------------- plan_sync

def test_plan_sync_is_a_pure_diff():
    disk = {"a.md": (1, 10), "b.md": (2, 20), "c.md": (3, 30)}
    indexed = {"a.md": (1, 10), "b.md": (9, 20), "gone.md": (4, 40)}
    plan = plan_sync(disk, indexed)
    assert plan.new == ("c.md",)
    assert plan.changed == ("b.md",)
    assert plan.removed == ("gone.md",)
    assert plan.unchanged == 1
    assert not plan.empty
    assert plan_sync(disk, disk).empty


# --------------------------------------------------------------------------- the Syncer alone


def test_the_syncer_alone_indexes_moves_and_refuses_duplicates(tmp_path):
    storage = FileStorage(tmp_path, CST)
    storage.ensure()
    index = Index(storage.root / INDEX_DIR / INDEX_FILE)
    lock = WriteLock(storage.root / INDEX_DIR / "write.lock")
    syncer = Syncer(storage, index, lambda: lock)
    note = Memory(id="n1", content="the deploy script lives in ops/", location="ops",
                  created_at=NOW, updated_at=NOW)
    path = storage.write(note)
    report = syncer.sync(full=True)
    assert report.added == ["n1"] and index.row_by_id("n1").path == "ops/n1.md"
    assert syncer.last is report
    moved = storage.root / "archive" / "n1.md"
    moved.parent.mkdir()
    shutil.move(path, moved)
    assert syncer.sync(full=True).moved == ["n1"] and index.row_by_id("n1").location == "archive"
    shutil.copy(moved, storage.root / "ops" / "n1.md")
    report = syncer.sync(full=True)
    assert report.duplicates == [("n1", "archive/n1.md", "ops/n1.md")]
    assert index.row_by_id("n1").path == "archive/n1.md"
    index.close()


def index_tables(pm):
    conn = pm.index.conn
    tables = ("memories", "memory_tags", "problems", "entities", "entity_aliases", "relations")
    return {t: sorted(tuple(r) for r in conn.execute(f"SELECT * FROM {t}")) for t in tables}


def test_a_bulk_sync_indexes_every_file_as_one_at_a_time_would(make_pm, workspace, tmp_path, monkeypatch):
    """Many files at once (a rebuild, a folder copied in) are read and written in batches
    (issue 24: rebuild speed); the index and the report are those of a file-by-file sync."""
    pm = make_pm()
    kept = pm.store("the deploy runbook for kafka", tags=["ops/kafka"], location="ops")
    moved = pm.store("a note that will move by hand", location="ops")
    edited = pm.store("an old redis note", location="ops")
    pm.close()
    root = workspace / "memory" / "palace"
    for i in range(7):
        write_file(root / "new" / f"n{i}.md", f"---\nid: n{i}\ntags: [t{i % 2}]\n---\nnew kafka note {i} [[Kafka]]\n")
    write_file(root / "new" / "facts.md", '---\nid: "facts"\nentities: [{"name": "Alice", "aliases": ["Al"]}]\n'
               'relations: [{"subject": "Alice", "predicate": "works at", "object": "Acme"}]\n---\nAlice at Acme\n')
    write_file(root / "new" / "twin.md", "---\nid: n3\n---\nsame id as n3, in the same sync\n")
    write_file(root / "new" / "copy.md", kept.path.read_text(encoding="utf-8"))  # an indexed id
    write_file(root / "new" / "broken.md", "---\nid: [unclosed\n---\nbody\n")
    (root / "new" / "link.md").symlink_to(root / "new" / "n0.md")
    (root / "archive").mkdir()
    shutil.move(moved.path, root / "archive" / moved.path.name)
    hand_edit(edited.path, "old redis", "new redis")
    outcomes = []
    for batch in (10_000, 3):  # one by one; then in bulk batches of three
        copy = tmp_path / f"batch-{batch}"
        shutil.copytree(workspace, copy, symlinks=True)
        monkeypatch.setattr(sync_module, "SYNC_BATCH", batch)
        other = make_pm(copy, sync=False)
        report = other.sync().to_dict()
        report["errors"] = [(os.path.relpath(e["path"], copy), e["reason"]) for e in report["errors"]]
        # (sorted: ties fall differently in packed postings than in deltas, before too)
        scores = [sorted((r.memory.id, round(r.score, 9)) for r in other.search(q, top_k=20, record_access=False))
                  for q in ("kafka", "redis note", "alice")]
        outcomes.append((report, index_tables(other), scores))
    assert outcomes[0][0]["added"] == 8 and outcomes[0][0]["moved"] == 1 and outcomes[0][0]["updated"] == 1
    assert len(outcomes[0][0]["duplicates"]) == 2
    assert outcomes[1] == outcomes[0]
