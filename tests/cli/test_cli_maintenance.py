"""``palace reindex | sync | stats | config | decay`` through click's CliRunner."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

import pytest
from cli_helpers import BAD_CONFIG, assert_failed, cli_on, invoke
from conftest import memory_files, write_file


@pytest.fixture
def cli(workspace):
    return cli_on(workspace)


@pytest.fixture
def seeded(cli):
    cli("add", "数据库迁移方案已经确定", "--id", "db", "-t", "数据库", "-l", "projects/palace",
        "--created-at", "2026-03-02T10:00:00+08:00", "--json").json()
    cli("add", "the service deploys every night", "--id", "dep", "-t", "ops", "-l", "ops",
        "--type", "decision", "--created-at", "2026-03-12T10:00:00+08:00", "--json").json()
    return cli


# --------------------------------------------------------------------------- reindex, sync, stats

def test_reindex_after_losing_the_index(seeded, palace_root):
    seeded("search", "deploy")
    (palace_root / ".palace" / "index.sqlite3").unlink()
    data = seeded("reindex", "--json").json()
    assert data["memories"] == 2
    assert data["errors"] == []
    assert [r["id"] for r in seeded("search", "deploy", "--json").json()["results"]] == ["dep"]
    assert seeded("get", "dep", "--json").json()["access_count"] >= 1  # the journal survived
    assert "reindexed 2 memories" in seeded("reindex").stdout


def test_the_first_command_after_an_upgrade_says_the_index_was_rebuilt(seeded, palace_root):
    # an older palace's index is dropped and rebuilt from the files: the first command
    # after `pip install -U` reads everything again, and should say why it is slow
    db = palace_root / ".palace" / "index.sqlite3"
    conn = sqlite3.connect(db)
    conn.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    first = seeded("search", "deploy", "--json")
    assert [r["id"] for r in first.json()["results"]] == ["dep"]
    assert "written by an older palace (schema 9): rebuilt from the memory files" in first.stderr
    assert "nothing is lost" in first.stderr
    again = seeded("search", "deploy", "--json")
    assert "older palace" not in again.stderr  # said once, on the rebuild


def test_sync_picks_up_hand_made_files_and_reports_broken_ones(seeded, palace_root):
    write_file(palace_root / "notes" / "hand.md", "a note written in an editor about terraform\n")
    write_file(palace_root / "notes" / "broken.md", "---\ntags: [oops\n---\nbody\n")
    data = seeded("sync", "--json").json()
    assert data["added"] == 1
    assert [(Path(e["path"]).name, "YAML" in e["reason"]) for e in data["errors"]] == [("broken.md", True)]
    assert [r["id"] for r in seeded("search", "terraform", "--json").json()["results"]] == ["hand"]
    plain = seeded("sync")
    assert plain.rc == 0
    assert "added 0" in plain.stdout
    assert "broken.md" in plain.stderr


def test_stats_reports_counts_and_unreadable_files(seeded, palace_root):
    write_file(palace_root / "general" / "bad.md", b"\x00\x01 not text")
    data = seeded("stats", "--json").json()
    assert data["total"] == 2
    assert data["by_location"] == {"projects/palace": 1, "ops": 1}
    assert data["problems"] == [{"path": "general/bad.md",
                                 "reason": "file is binary (contains NUL bytes), not Markdown"}]
    plain = seeded("stats")
    assert plain.rc == 0
    assert "unreadable: general/bad.md: file is binary" in plain.stdout
    # listing and searching still work with the broken file there
    assert seeded("list").rc == 0
    assert seeded("search", "deploy").rc == 0


# --------------------------------------------------------------------------- config, decay

def test_config_lists_every_setting_with_its_source(monkeypatch):
    monkeypatch.setenv("MEMORY_DECAY_ARCHIVE_THRESHOLD", "0.2")
    rows = invoke("config", "--json").json()
    by_name = {r["variable"]: r for r in rows}
    for name in ("MEMORY_WORKSPACE_DIR", "MEMORY_DECAY_ENABLED", "MEMORY_DECAY_ARCHIVE_THRESHOLD",
                 "MEMORY_DECAY_RECOVERY_FACTOR", "MEMORY_VECTOR_MODEL", "MEMORY_VECTOR_ENABLED"):
        assert name in by_name
    assert by_name["MEMORY_DECAY_ARCHIVE_THRESHOLD"]["value"] == 0.2
    assert by_name["MEMORY_DECAY_ARCHIVE_THRESHOLD"]["source"] == "env"
    assert by_name["MEMORY_DECAY_RECOVERY_FACTOR"] == {**by_name["MEMORY_DECAY_RECOVERY_FACTOR"],
                                                      "value": 0.2, "default": 0.2, "source": "default"}
    assert by_name["MEMORY_VECTOR_MODEL"]["default"] == "BAAI/bge-small-zh-v1.5"
    plain = invoke("config")
    assert plain.rc == 0 and "MEMORY_DECAY_ARCHIVE_THRESHOLD" in plain.stdout
    assert plain.stdout.splitlines()[0].startswith("MEMORY_WORKSPACE_DIR = ")
    assert "An access sets score" in plain.stdout  # each setting's help
    assert plain.stderr == ""


def test_config_shows_the_time_zone_in_use(monkeypatch):
    by_name = {r["variable"]: r for r in invoke("config", "--json").json()}
    assert by_name["MEMORY_TIMEZONE"]["value"] == "Asia/Shanghai"  # set by the test environment
    monkeypatch.delenv("MEMORY_TIMEZONE")
    local = {r["variable"]: r for r in invoke("config", "--json").json()}["MEMORY_TIMEZONE"]
    here = datetime.now().astimezone()
    offset = here.strftime("%z")
    assert local["source"] == "default"
    assert local["value"] == f"{here.tzname()} (UTC{offset[:3]}:{offset[3:]}, the machine's local zone)"


def test_config_warns_about_unknown_memory_variables(monkeypatch):
    monkeypatch.setenv("MEMORY_DECAY_TRESHOLD", "0.3")
    monkeypatch.setenv("MEMORY_WHATEVER", "1")
    result = invoke("config")
    assert result.rc == 0
    assert "MEMORY_DECAY_TRESHOLD is set but is not a palace setting (did you mean " \
           "MEMORY_DECAY_ARCHIVE_THRESHOLD?)" in result.stderr
    assert "MEMORY_WHATEVER is set but is not a palace setting;" in result.stderr
    assert "MEMORY_WHATEVER" not in result.stdout


def test_bad_setting_exits_3_with_a_message(cli, monkeypatch):
    monkeypatch.setenv("MEMORY_DECAY_ARCHIVE_THRESHOLD", "lots")
    assert_failed(cli("list"), BAD_CONFIG, "configuration problem", "MEMORY_DECAY_ARCHIVE_THRESHOLD")


def test_decay_dry_run_changes_nothing(cli, palace_root):
    cli("add", "will fade", "--id", "fade", "--importance", "0", "--created-at",
        "2026-01-01T00:00:00+08:00", "--json").json()
    cli("add", "pinned", "--id", "keep", "--pin", "--created-at", "2026-01-01T00:00:00+08:00",
        "--json").json()
    before = {p: p.read_bytes() for p in memory_files(palace_root)}
    data = cli("decay", "--dry-run", "--now", "2030-01-01T00:00:00+08:00", "--json").json()
    assert data["dry_run"] is True
    assert data["archived"] == ["fade"]
    assert data["pinned"] == 1
    assert {p: p.read_bytes() for p in memory_files(palace_root)} == before
    assert cli("get", "fade", "--json").json()["status"] == "active"
    plain = cli("decay", "--dry-run", "--now", "2030-01-01T00:00:00+08:00")
    assert plain.rc == 0 and "would archive 1" in plain.stdout


