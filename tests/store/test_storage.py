"""Markdown files are the source of truth: layout, every field round trip, unknown
keys kept, atomic writes, moves, the trash."""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml

from conftest import memory_files, stray_files, write_file
from palace.errors import DiskFullError, InvalidInputError, MemoryNotFoundError
from palace.store.atomic import atomic_write
from palace.store.files import parse_memory, render_memory, split_frontmatter

CST = timezone(timedelta(hours=8))


def frontmatter(path: Path) -> dict:
    meta, _ = split_frontmatter(path.read_text(encoding="utf-8"))
    return meta


def full_memory(pm, **overrides):
    fields = dict(content="我们决定用 PostgreSQL 作为主数据库。\n\n第二段：yes, no, 010, null, ~",
                  tags=["数据库", "decision", "yes", "010", "null"], importance=0.8,
                  location="projects/palace", type="decision", source="conversation",
                  summary="选了 PG", created_at="2026-03-18T10:00:00+08:00", pinned=True,
                  extra={"owner": "ann", "links": ["a", "b"], "meta": {"n": 1}})
    fields.update(overrides)
    return pm.store(fields.pop("content"), **fields)


def assert_same_memory(a, b):
    for name in ("id", "content", "summary", "tags", "importance", "status", "location", "type",
                 "source", "created_at", "updated_at", "pinned", "extra"):
        assert getattr(a, name) == getattr(b, name), name


# --------------------------------------------------------------------------- layout

def test_file_lies_at_memory_palace_location_id_md(pm, workspace):
    m = pm.store("a note", location="general")
    assert m.path == workspace / "memory" / "palace" / "general" / f"{m.id}.md"
    assert m.path.is_file()
    assert memory_files(workspace / "memory" / "palace") == [m.path]


def test_nested_location_is_nested_folders(pm, palace_root):
    m = pm.store("deep note", location="projects/palace/decisions")
    assert m.path == palace_root / "projects" / "palace" / "decisions" / f"{m.id}.md"
    assert pm.get(m.id).location == "projects/palace/decisions"


def test_file_is_markdown_with_yaml_frontmatter_in_the_documented_format(pm):
    m = full_memory(pm)
    text = m.path.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    head, body = text[4:].split("\n---\n", 1)
    meta = yaml.safe_load(head)
    assert meta["id"] == m.id
    assert meta["tags"] == ["数据库", "decision", "yes", "010", "null"]  # strings, not True/8/None
    assert meta["importance"] == 0.8
    assert meta["status"] == "active"
    assert meta["createdAt"] == "2026-03-18T10:00:00+08:00"
    assert datetime.fromisoformat(meta["updatedAt"]).utcoffset() == timedelta(hours=8)
    assert meta["source"] == "conversation"
    assert meta["location"] == "projects/palace"
    assert meta["type"] == "decision"
    assert meta["owner"] == "ann"
    assert "我们决定用 PostgreSQL 作为主数据库。" in body
    assert body.rstrip().endswith("## Summary\n\n选了 PG")


def test_text_lines_name_the_lines_of_the_text_below_the_frontmatter(pm):
    """What a citation points at: the text's own lines in the file, not the frontmatter
    or the summary after it; nothing once the file is gone."""
    m = pm.store("first line\nsecond line\n\nfourth line", summary="a summary", location="notes")
    lines = m.path.read_text(encoding="utf-8").split("\n")
    first, last = pm.text_lines(m)
    assert lines[first - 1:last] == ["first line", "second line", "", "fourth line"]
    assert lines[first - 2] == "" and lines[first - 3] == "---"
    m.path.unlink()
    assert pm.text_lines(m) is None


# --------------------------------------------------------------------------- round trip

def test_every_field_round_trips_through_index_file_and_rebuild(make_pm, palace_root):
    pm = make_pm()
    stored = full_memory(pm)
    assert stored.created_at == datetime(2026, 3, 18, 10, 0, tzinfo=CST)
    got = pm.get(stored.id)
    assert_same_memory(got, stored)
    from_file = pm.storage.read(stored.path)
    assert_same_memory(from_file, stored)
    pm.close()
    (palace_root / ".palace" / "index.sqlite3").unlink()
    rebuilt = make_pm().get(stored.id)
    assert_same_memory(rebuilt, stored)
    assert rebuilt.path == stored.path


def test_render_then_parse_is_identity(pm):
    stored = full_memory(pm)
    again = parse_memory(render_memory(stored), path=stored.path, location=stored.location,
                         fallback_time=datetime(2000, 1, 1, tzinfo=CST), tz=CST)
    assert_same_memory(again, stored)


@pytest.mark.parametrize("content", [
    "---\nlooks: like yaml\n---\nbut is content",
    "  indented code\n    more  ",
    "line one\r\nline two",
    "# A title\n\nbody text\n\n## Details\n\nmore",
    "emoji 🚀 and 中文 and \u2028 separators",
], ids=["dashes", "indent", "crlf", "headings", "unicode"])
def test_awkward_content_round_trips(make_pm, palace_root, content):
    pm = make_pm()
    m = pm.store(content, summary="the summary")
    expected = content.replace("\r\n", "\n")
    assert m.content == expected
    assert pm.storage.read(m.path).content == expected
    assert pm.storage.read(m.path).summary == "the summary"
    pm.reindex()
    assert pm.get(m.id).content == expected


def test_content_that_ends_with_a_summary_heading_survives_a_rebuild(pm):
    # An agent storing a Markdown note that happens to end with "## Summary" (and no
    # separate summary) must get the same memory back after the index is rebuilt.
    content = "Release notes for 2.0\n\n## Summary\n\nfaster search"
    m = pm.store(content)
    assert pm.get(m.id).content == content
    pm.reindex()
    again = pm.get(m.id)
    assert (again.content, again.summary) == (content, None)


def test_summary_with_a_title_line_survives_a_rebuild(pm):
    try:
        m = pm.store("body text", summary="# TL;DR\nuse postgres")
    except InvalidInputError as exc:  # refusing it up front, clearly, is fine too
        assert "summary" in str(exc)
        assert pm.index.count() == 0 and memory_files(pm.root) == []
        return
    pm.reindex()
    again = pm.get(m.id)
    assert (again.content, again.summary) == ("body text", "# TL;DR\nuse postgres")


def test_created_at_naive_is_taken_in_the_configured_zone(pm):
    m = pm.store("naive time", created_at="2026-03-18T10:00:00")
    assert m.created_at == datetime(2026, 3, 18, 10, 0, tzinfo=CST)
    assert pm.get(m.id).created_at == datetime(2026, 3, 18, 2, 0, tzinfo=timezone.utc)


def test_updated_at_and_created_at_default_to_now(pm):
    before = datetime.now(timezone.utc).replace(microsecond=0)
    m = pm.store("now")
    after = datetime.now(timezone.utc) + timedelta(seconds=1)
    assert before <= m.created_at <= after
    assert m.updated_at == m.created_at
    assert m.created_at.utcoffset() == timedelta(hours=8)


# --------------------------------------------------------------------------- unknown keys

def test_unknown_frontmatter_keys_added_by_hand_survive_every_rewrite(pm):
    m = pm.store("keep my keys", location="notes")
    text = m.path.read_text(encoding="utf-8")
    text = text.replace("\n---\n", '\nreviewer: "bob"\nweird-key: [1, 2]\nnested: {a: {b: c}}\n'
                        'reviewed_on: 2026-03-01\n"key with space": yes\n---\n', 1)
    m.path.write_text(text, encoding="utf-8")
    pm.sync()  # (updating right after a hand edit is covered in test_index_sync)
    expected = {"reviewer": "bob", "weird-key": [1, 2], "nested": {"a": {"b": "c"}},
                "reviewed_on": "2026-03-01", "key with space": True}

    def check(path):
        meta = frontmatter(path)
        got = {k: meta.get(k) for k in expected}
        got["reviewed_on"] = str(got["reviewed_on"])
        assert got == expected

    updated = pm.update(m.id, importance=0.9, tags=["t"])
    check(updated.path)
    moved = pm.update(m.id, location="elsewhere")
    check(moved.path)
    trashed = pm.delete(m.id)
    check(trashed.path)
    restored = pm.restore(m.id)
    check(restored.path)
    assert "deletedAt" not in frontmatter(restored.path)
    assert restored.location == "elsewhere"


def test_update_extra_merges_and_none_removes_a_key(pm):
    m = pm.store("extras", extra={"a": 1, "b": 2})
    pm.update(m.id, extra={"b": None, "c": "three"})
    meta = frontmatter(pm.get(m.id).path)
    assert (meta.get("a"), "b" in meta, meta.get("c")) == (1, False, "three")


# --------------------------------------------------------------------------- atomic writes

def test_no_temp_files_are_left_by_any_operation(pm, palace_root):
    m = pm.store("one", location="a/b")
    pm.update(m.id, content="two")
    pm.update(m.id, location="c")
    pm.delete(m.id)
    pm.restore(m.id)
    pm.delete(m.id)
    pm.empty_trash()
    pm.store("three")
    assert stray_files(palace_root) == []
    assert not [p for p in palace_root.rglob(".*") if p.is_file() and p.suffix == ".tmp"]


def test_a_failed_write_leaves_the_old_file_whole_and_no_temp(pm, palace_root, monkeypatch):
    m = pm.store("original text")
    before = m.path.read_bytes()

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(DiskFullError, match="full"):
        pm.update(m.id, content="new text that never lands")
    monkeypatch.undo()
    assert m.path.read_bytes() == before
    assert stray_files(palace_root) == []
    assert pm.get(m.id).content == "original text"


def test_atomic_write_replaces_content(tmp_path):
    target = tmp_path / "x" / "f.md"
    atomic_write(target, "first")
    atomic_write(target, "second")
    assert target.read_text() == "second"
    assert [p.name for p in target.parent.iterdir()] == ["f.md"]


# --------------------------------------------------------------------------- update and moves

def test_location_change_moves_the_file_and_removes_the_empty_room(pm, palace_root):
    m = pm.store("moving house", location="old/room")
    moved = pm.update(m.id, location="new/place")
    assert not m.path.exists()
    assert not (palace_root / "old").exists()
    assert moved.path == palace_root / "new" / "place" / f"{m.id}.md"
    assert moved.path.is_file()
    assert frontmatter(moved.path)["location"] == "new/place"
    assert pm.get(m.id).location == "new/place"
    assert memory_files(palace_root) == [moved.path]
    assert [r.memory.id for r in pm.search("moving", location="new")] == [m.id]
    assert pm.search("moving", location="old") == []


def test_update_changes_fields_and_keeps_the_rest(pm):
    m = full_memory(pm)
    u = pm.update(m.id, content="新的内容 about redis", summary=None, tags=["cache"], importance=0.2,
                  type="fact", source="edit", pinned=False, status="archived")
    assert (u.content, u.summary, u.tags, u.importance, u.type, u.source, u.pinned, u.status) == (
        "新的内容 about redis", None, ("cache",), 0.2, "fact", "edit", False, "archived")
    assert (u.id, u.location, u.created_at) == (m.id, m.location, m.created_at)
    assert u.updated_at >= m.updated_at
    on_disk = pm.storage.read(u.path)
    assert_same_memory(on_disk, u)
    assert u.extra == m.extra


def test_update_unknown_id_is_not_found(pm):
    with pytest.raises(MemoryNotFoundError):
        pm.update("nope", content="x")
    assert pm.get("nope") is None


# --------------------------------------------------------------------------- trash

def test_delete_moves_the_file_to_the_trash_and_restore_brings_it_back(pm, palace_root):
    m = full_memory(pm, location="ops/k8s")
    trashed = pm.delete(m.id)
    assert not m.path.exists()
    assert trashed.path == palace_root / ".trash" / f"{m.id}.md"
    meta = frontmatter(trashed.path)
    assert meta["status"] == "deleted"
    assert meta["location"] == "ops/k8s"
    assert "deletedAt" in meta
    assert pm.get(m.id) is None
    assert pm.search("PostgreSQL") == []
    assert pm.list() == []
    assert [t.id for t in pm.list_trash()] == [m.id]
    assert pm.list_trash()[0].status == "deleted"
    with pytest.raises(MemoryNotFoundError, match="trash"):
        pm.update(m.id, importance=0.1)

    restored = pm.restore(m.id)
    assert restored.status == "active"
    assert restored.path == m.path and m.path.is_file()
    assert not trashed.path.exists()
    assert pm.list_trash() == []
    for name in ("content", "summary", "tags", "importance", "location", "type", "source",
                 "created_at", "pinned", "extra"):
        assert getattr(restored, name) == getattr(m, name), name
    assert [r.memory.id for r in pm.search("PostgreSQL")] == [m.id]


def test_delete_unknown_or_twice_is_not_found(pm):
    m = pm.store("once")
    pm.delete(m.id)
    with pytest.raises(MemoryNotFoundError):
        pm.delete(m.id)
    with pytest.raises(MemoryNotFoundError):
        pm.delete("never-existed")


def test_restore_archived_memory_and_errors(pm):
    m = pm.store("archived one")
    pm.update(m.id, status="archived")
    assert pm.restore(m.id).status == "active"
    assert frontmatter(m.path)["status"] == "active"
    with pytest.raises(InvalidInputError, match="already active"):
        pm.restore(m.id)
    with pytest.raises(MemoryNotFoundError):
        pm.restore("never-existed")


def test_restore_refuses_when_the_id_exists_again(pm):
    m = pm.store("first life", id="dup")
    pm.delete("dup")
    pm.store("second life", id="dup2")
    (pm.root / "general" / "dup2.md").rename(pm.root / "general" / "dup.md")
    text = (pm.root / "general" / "dup.md").read_text().replace('id: "dup2"', 'id: "dup"')
    (pm.root / "general" / "dup.md").write_text(text)
    pm.sync()
    assert pm.get("dup").content == "second life"
    with pytest.raises(InvalidInputError, match="exists again"):
        pm.restore("dup")
    assert pm.get("dup").content == "second life"
    assert [t.id for t in pm.list_trash()] == [m.id]


def test_empty_trash_removes_everything_for_good(pm, palace_root):
    ids = [pm.store(f"note {i}").id for i in range(3)]
    for memory_id in ids:
        pm.delete(memory_id)
    keep = pm.store("still here")
    assert sorted(pm.empty_trash()) == sorted(ids)
    assert pm.list_trash() == []
    assert list((palace_root / ".trash").glob("*.md")) == []
    for memory_id in ids:
        with pytest.raises(MemoryNotFoundError):
            pm.restore(memory_id)
    assert pm.get(keep.id) is not None


def test_empty_trash_older_than_days_uses_the_given_now(pm, palace_root):
    old = pm.store("old rubbish")
    new = pm.store("new rubbish")
    pm.delete(old.id)
    pm.delete(new.id)
    now = datetime.now(CST)
    # pretend the old one was trashed ten days ago
    path = palace_root / ".trash" / f"{old.id}.md"
    meta_deleted = frontmatter(path)["deletedAt"]
    ten_days_ago = (now - timedelta(days=10)).replace(microsecond=0).isoformat()
    path.write_text(path.read_text().replace(meta_deleted, ten_days_ago))

    assert pm.empty_trash(older_than_days=7, now=now) == [old.id]
    assert [t.id for t in pm.list_trash()] == [new.id]
    assert pm.empty_trash(older_than_days=7, now=now) == []
    # a week later the other one is old enough too
    assert pm.empty_trash(older_than_days=7, now=now + timedelta(days=8)) == [new.id]
    assert pm.list_trash() == []


# --------------------------------------------------------------------------- list

def test_list_newest_first_with_filters(pm):
    a = pm.store("a", location="projects", tags=["x", "y"], created_at="2026-01-01T00:00:00+08:00")
    b = pm.store("b", location="projects/palace", tags=["x"], type="decision",
                 created_at="2026-02-01T00:00:00+08:00")
    c = pm.store("c", location="projects2", tags=["y"], created_at="2026-03-01T00:00:00+08:00")
    d = pm.store("d", location="general", created_at="2026-04-01T00:00:00+08:00")
    pm.update(d.id, status="archived")
    ids = lambda memories: [m.id for m in memories]  # noqa: E731
    assert ids(pm.list()) == [c.id, b.id, a.id]
    assert ids(pm.list(limit=2)) == [c.id, b.id]
    assert ids(pm.list(location="projects")) == [b.id, a.id]
    assert ids(pm.list(location="projects/palace")) == [b.id]
    assert ids(pm.list(tags=["x"])) == [b.id, a.id]
    assert ids(pm.list(tags=["x", "y"])) == [a.id]
    assert ids(pm.list(type="decision")) == [b.id]
    assert ids(pm.list(status="archived")) == [d.id]
    assert ids(pm.list(status="all")) == [d.id, c.id, b.id, a.id]
    pm.delete(c.id)
    assert ids(pm.list(status="deleted")) == [c.id]
    assert ids(pm.list()) == [b.id, a.id]


def test_get_unknown_id_is_none(pm):
    assert pm.get("0123456789abcdef") is None


# --------------------------------------------------------------------------- files written by others

def test_parse_hand_written_variants(pm, palace_root):
    write_file(palace_root / "inbox" / "plain.md", "Just a note, no frontmatter.\n")
    write_file(palace_root / "inbox" / "bom.md", "\ufeff---\nid: bom-note\ntags: a, b，c\n---\nwith bom\n")
    write_file(palace_root / "inbox" / "crlf.md",
               "---\r\nid: crlf-note\r\ncreatedAt: 1773799200000\r\n---\r\nwindows\r\nlines\r\n")
    write_file(palace_root / "inbox" / "date.md",
               "---\ncreatedAt: 2026-03-18\nimportance: 7\nlocation: somewhere/else\n---\nbody\n")
    report = pm.sync()
    assert sorted(report.added) == ["bom-note", "crlf-note", "date", "plain"]
    assert pm.problems() == []
    plain = pm.get("plain")
    assert (plain.content, plain.location, plain.tags, plain.importance) == (
        "Just a note, no frontmatter.", "inbox", (), 0.5)
    assert pm.get("bom-note").tags == ("a", "b", "c")
    crlf = pm.get("crlf-note")
    assert crlf.created_at == datetime(2026, 3, 18, 2, 0, tzinfo=timezone.utc)  # epoch ms
    assert crlf.content.replace("\r", "") == "windows\nlines"
    dated = pm.get("date")
    assert dated.created_at == datetime(2026, 3, 18, tzinfo=CST)
    assert dated.importance == 1.0  # clamped
    assert dated.location == "inbox"  # the folder is the truth


@pytest.mark.parametrize("text, meta, body", [
    ("---\n---\nbody", {}, "body"),                                  # empty block
    ("---\nid: a\n---", {"id": "a"}, ""),                            # closing line at the end
    ("---  \t\r\nid: a\r\n--- \t\r\nbody\r\n", {"id": "a"}, "body\r\n"),  # blanks, CRLF
    ("---\nid: a\n\n---\nbody", {"id": "a"}, "body"),                # a blank line before it
    ("---\nid: a\n---\r\n---\nbody", {"id": "a"}, "---\nbody"),       # the first closing line counts
])
def test_the_frontmatter_block_ends_at_the_first_closing_line(text, meta, body):
    assert split_frontmatter(text) == (meta, body)


@pytest.mark.parametrize("text", ["---\nid: a\n", "---\nid: a\n---\r", "---\nid: a\n ---\n",
                                  "---\nid: a\n----\n", "---\nid: a\n---x\n"])
def test_a_frontmatter_block_without_a_closing_line_is_refused(text):
    with pytest.raises(ValueError, match="no closing '---' line"):
        split_frontmatter(text)


def test_write_lock_is_reentrant_and_keeps_other_threads_out(tmp_path):
    import threading
    import time

    from palace.store.locks import WriteLock

    lock = WriteLock(tmp_path / ".palace" / "write.lock")
    order: list[str] = []

    def other() -> None:
        with lock:
            order.append("other")

    with lock:
        with lock:  # a write inside a write must not deadlock
            thread = threading.Thread(target=other)
            thread.start()
            time.sleep(0.2)
            order.append("owner")
    thread.join(timeout=10)
    assert order == ["owner", "other"]


def test_atomic_write_takes_bytes_or_a_writer_and_never_leaves_half_a_file(tmp_path):
    target = tmp_path / "snapshots" / "snap.bin"
    atomic_write(target, b"\x00first")
    assert target.read_bytes() == b"\x00first"

    def broken(handle) -> None:
        handle.write(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, broken)
    assert target.read_bytes() == b"\x00first" and sorted(p.name for p in target.parent.iterdir()) == ["snap.bin"]
    atomic_write(target, lambda handle: handle.write(b"whole"))
    assert target.read_bytes() == b"whole"
