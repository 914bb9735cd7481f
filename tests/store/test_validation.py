"""Everything a caller hands palace that ends up in a path or a file is checked:
a clear InvalidInputError, and nothing written."""

from __future__ import annotations

import pytest

from conftest import memory_files, settings, stray_files
from palace.errors import InvalidInputError, PalaceError
from palace.validation import (normalize_location, normalize_tags, validate_content, validate_id,
                               validate_importance)

BAD_IDS = ["../x", "a/b", "/etc/passwd", "..", "", ".hidden", "a\\b", "x.md", "a" * 129, "a\x00b",
           "id with space"]
BAD_LOCATIONS = ["..", "/abs", "/etc", ".trash", ".palace", "a/../b", "a/./b", "", "   ", "a//b",
                 "a\x01b", "tab\there", "C:/x", "a:b", "x" * 81, "/".join(["r"] * 9)]


def snapshot(root):
    """Every file under the palace with its bytes (index and journal excluded)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in memory_files(root)} | {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in (root / ".trash").glob("*.md")} if root.exists() else {}


@pytest.fixture
def seeded(pm):
    existing = pm.store("an existing memory about redis", tags=["keep"], location="projects")
    return pm, existing


# --------------------------------------------------------------------------- ids

@pytest.mark.parametrize("bad", BAD_IDS, ids=repr)
def test_path_like_ids_are_rejected_everywhere(seeded, palace_root, bad):
    pm, _ = seeded
    before = snapshot(palace_root)
    calls = [lambda: pm.get(bad), lambda: pm.update(bad, importance=0.1), lambda: pm.delete(bad),
             lambda: pm.restore(bad), lambda: pm.store("text", id=bad)]
    for call in calls:
        with pytest.raises(InvalidInputError) as info:
            call()
        assert "id" in str(info.value)
    assert snapshot(palace_root) == before
    assert pm.index.count() == 1
    assert not (palace_root.parent / "x.md").exists()
    assert not stray_files(palace_root)


def test_valid_ids_pass_through():
    for good in ["abc", "a-b_c.d", "0b6c1f2e", "A" * 128]:
        assert validate_id(good) == good


def test_store_with_an_id_already_in_use_or_in_the_trash_is_refused(pm, palace_root):
    pm.store("first", id="taken")
    pm.store("second", id="trashed")
    pm.delete("trashed")
    before = snapshot(palace_root)
    for memory_id in ("taken", "trashed"):
        with pytest.raises(InvalidInputError, match="already exists"):
            pm.store("again", id=memory_id)
    assert snapshot(palace_root) == before
    assert pm.get("taken").content == "first"


# --------------------------------------------------------------------------- locations

@pytest.mark.parametrize("bad", BAD_LOCATIONS, ids=repr)
def test_bad_locations_are_rejected_by_store_and_update(seeded, palace_root, bad):
    pm, existing = seeded
    before = snapshot(palace_root)
    with pytest.raises(InvalidInputError, match="location"):
        pm.store("some text", location=bad)
    with pytest.raises(InvalidInputError, match="location"):
        pm.update(existing.id, location=bad)
    assert snapshot(palace_root) == before
    assert pm.get(existing.id).location == "projects"
    assert pm.index.count() == 1
    assert not stray_files(palace_root)
    # nothing escaped the palace either
    assert sorted(p.name for p in palace_root.parent.parent.iterdir()) == ["memory"]


@pytest.mark.parametrize("given, expected", [
    ("general", "general"),
    ("projects/palace", "projects/palace"),
    ("projects/palace/", "projects/palace"),
    (" projects / palace ", "projects/palace"),
    ("projects\\palace", "projects/palace"),
    ("项目/数据库", "项目/数据库"),
])
def test_good_locations_are_normalised(given, expected):
    assert normalize_location(given) == expected


def test_location_must_be_a_string(pm):
    with pytest.raises(InvalidInputError):
        pm.store("text", location=None)
    with pytest.raises(InvalidInputError):
        pm.store("text", location=["a"])


# --------------------------------------------------------------------------- content

@pytest.mark.parametrize("bad, reason", [
    ("", "empty"),
    ("   \n\t\n ", "empty"),
    ("\n\n", "empty"),
    ("binary\x00data", "NUL"),
    ("\x01\x02\x03\x04\x05 binary in disguise", "control"),
    ("x" * (1024 * 1024 + 1), "limit"),
    (b"bytes are not text", "text"),
    (None, "text"),
    (42, "text"),
], ids=["empty", "whitespace", "newlines", "nul", "control", "huge", "bytes", "none", "int"])
def test_bad_content_is_rejected_with_a_reason(seeded, palace_root, bad, reason):
    pm, existing = seeded
    before = snapshot(palace_root)
    with pytest.raises(InvalidInputError, match=reason):
        pm.store(bad)
    with pytest.raises(InvalidInputError, match=reason):
        pm.update(existing.id, content=bad)
    assert snapshot(palace_root) == before
    assert pm.get(existing.id).content == "an existing memory about redis"
    assert pm.index.count() == 1


def test_content_limit_follows_the_setting(make_pm, monkeypatch):
    monkeypatch.setenv("MEMORY_MAX_CONTENT_BYTES", "100")
    pm = make_pm()
    pm.store("x" * 100)
    with pytest.raises(InvalidInputError, match="MEMORY_MAX_CONTENT_BYTES"):
        pm.store("数" * 34)  # 102 bytes of UTF-8, only 34 characters


def test_a_stray_control_character_in_pasted_text_is_kept(pm):
    text = "terminal said \x1b[31mred\x1b[0m and moved on"
    m = pm.store(text)
    assert pm.storage.read(m.path).content == text


def test_content_keeps_tabs_unicode_and_crlf_is_normalised():
    assert validate_content("a\tb\u2028c 数据", max_bytes=100) == "a\tb\u2028c 数据"
    assert validate_content("line1\r\nline2\r\n", max_bytes=100) == "line1\nline2"


def test_summary_is_checked_like_content(seeded):
    pm, existing = seeded
    with pytest.raises(InvalidInputError):
        pm.store("text", summary="")
    with pytest.raises(InvalidInputError):
        pm.store("text", summary="bad\x00")
    with pytest.raises(InvalidInputError, match="heading"):
        pm.store("text", summary="first\n## Other heading")
    assert pm.index.count() == 1


# --------------------------------------------------------------------------- importance, tags, words

@pytest.mark.parametrize("bad", [-0.1, 1.01, 2, "abc", float("nan"), None, float("inf"), [0.5]],
                         ids=repr)
def test_bad_importance_is_rejected(seeded, palace_root, bad):
    pm, existing = seeded
    before = snapshot(palace_root)
    with pytest.raises(InvalidInputError, match="importance"):
        pm.store("text", importance=bad)
    with pytest.raises(InvalidInputError, match="importance"):
        pm.update(existing.id, importance=bad)
    assert snapshot(palace_root) == before
    assert pm.get(existing.id).importance == 0.5


def test_importance_bounds_are_inclusive():
    assert validate_importance(0) == 0.0
    assert validate_importance(1) == 1.0
    assert validate_importance("0.25") == 0.25


@pytest.mark.parametrize("bad", [
    [None], ["two\nlines"], ["x" * 65], [f"t{i}" for i in range(65)], 5, [["nested"]],
    [{"a": 1}], ["bell\x07"], [True],
], ids=["none", "newline", "too-long", "too-many", "int", "nested", "dict", "control", "bool"])
def test_bad_tags_are_rejected(seeded, palace_root, bad):
    pm, existing = seeded
    before = snapshot(palace_root)
    with pytest.raises(InvalidInputError, match="tag"):
        pm.store("text", tags=bad)
    with pytest.raises(InvalidInputError, match="tag"):
        pm.update(existing.id, tags=bad)
    assert snapshot(palace_root) == before
    assert pm.get(existing.id).tags == ("keep",)


def test_tags_are_trimmed_deduplicated_and_split_on_commas():
    assert normalize_tags([" a ", "a", "b", "", "数据库"]) == ("a", "b", "数据库")
    assert normalize_tags("x, y，z") == ("x", "y", "z")
    assert normalize_tags(None) == ()


@pytest.mark.parametrize("field", ["type", "source"])
@pytest.mark.parametrize("bad", ["", "  ", "two\nlines", "x" * 65, None])
def test_bad_type_and_source_are_rejected(pm, field, bad):
    with pytest.raises(InvalidInputError, match=field):
        pm.store("text", **{field: bad})
    assert pm.index.count() == 0


# --------------------------------------------------------------------------- other arguments

def test_update_rejects_unknown_fields_and_the_deleted_status(seeded, palace_root):
    pm, existing = seeded
    before = snapshot(palace_root)
    with pytest.raises(InvalidInputError, match="colour"):
        pm.update(existing.id, colour="red")
    with pytest.raises(InvalidInputError, match="status"):
        pm.update(existing.id, status="deleted")
    with pytest.raises(InvalidInputError, match="extra"):
        pm.update(existing.id, extra=["not", "a", "mapping"])
    assert snapshot(palace_root) == before


def test_bad_times_are_rejected(seeded):
    pm, existing = seeded
    with pytest.raises(InvalidInputError, match="created_at"):
        pm.store("text", created_at="last tuesday-ish")
    with pytest.raises(InvalidInputError, match="now"):
        pm.search("redis", now="not a time")
    with pytest.raises(InvalidInputError, match="start"):
        pm.search("redis", start="2026-03-10", end="2026-03-01")
    assert pm.index.count() == 1


@pytest.mark.parametrize("kwargs", [{"top_k": 0}, {"top_k": 1001}, {"top_k": "5"}, {"top_k": True}],
                         ids=repr)
def test_search_rejects_bad_top_k(seeded, kwargs):
    pm, _ = seeded
    with pytest.raises(InvalidInputError, match="top_k"):
        pm.search("redis", **kwargs)


def test_search_rejects_empty_overlong_and_non_text_queries(seeded):
    pm, _ = seeded
    with pytest.raises(InvalidInputError, match="empty"):
        pm.search("   ")
    with pytest.raises(InvalidInputError):
        pm.search("x" * 5000)
    with pytest.raises(InvalidInputError):
        pm.search(None)


def test_list_and_trash_reject_bad_arguments(seeded):
    pm, _ = seeded
    with pytest.raises(InvalidInputError, match="status"):
        pm.list(status="gone")
    with pytest.raises(InvalidInputError, match="limit"):
        pm.list(limit=-1)
    with pytest.raises(InvalidInputError, match="location"):
        pm.list(location="../up")
    with pytest.raises(InvalidInputError, match="older_than_days"):
        pm.empty_trash(older_than_days=-1)


def test_invalid_input_is_a_palace_error_and_a_value_error():
    assert issubclass(InvalidInputError, PalaceError)
    assert issubclass(InvalidInputError, ValueError)


def test_a_bad_setting_is_a_clear_config_error(monkeypatch):
    from palace.errors import ConfigError

    monkeypatch.setenv("MEMORY_DECAY_ARCHIVE_THRESHOLD", "lots")
    with pytest.raises(ConfigError, match="MEMORY_DECAY_ARCHIVE_THRESHOLD"):
        settings()
