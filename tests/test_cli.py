"""The ``palace`` command driven as a subprocess, the way people and agents use it:
every command, --workspace and MEMORY_WORKSPACE_DIR, --json, exit codes, stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import memory_files, run_palace, write_file

NOT_FOUND, BAD_INPUT, BAD_CONFIG = 1, 2, 3


def assert_failed(result, code, *needles):
    assert result.rc == code, result
    assert result.stdout == "", result
    assert "Traceback" not in result.stderr, result
    assert result.stderr.startswith("palace: "), result
    for needle in needles:
        assert needle in result.stderr, result


# --------------------------------------------------------------------------- no torch

def _modules_after(argv, env_changes=None, cwd=None):
    code = ("import sys\nfrom palace.cli import main\n"
            f"try:\n    rc = main({argv!r})\nexcept SystemExit as exc:\n    rc = exc.code\n"
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('torch', 'sentence_transformers', 'transformers'))\n"
            "print('RESULT', rc, heavy)\n")
    env = dict(os.environ)
    for key, value in (env_changes or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=60)
    line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT")]
    assert line, proc.stderr
    return line[-1]


def test_help_lists_every_command_and_imports_no_torch():
    result = run_palace("--help")
    assert result.rc == 0
    for command in ("init", "add", "get", "list", "search", "update", "delete", "restore", "trash",
                    "reindex", "sync", "stats", "config", "decay"):
        assert command in result.stdout
    assert _modules_after(["--help"]) == "RESULT 0 []"


def test_keyword_search_imports_no_torch_even_with_vectors_enabled(cli, workspace):
    cli("add", "torch-free search about kubernetes")
    # the default: vectors enabled, no sidecar configured
    line = _modules_after(["search", "kubernetes", "--workspace", str(workspace)],
                          {"MEMORY_VECTOR_ENABLED": None})
    assert line == "RESULT 0 []"


# --------------------------------------------------------------------------- workspace selection

def test_init_with_workspace_flag(cli, workspace):
    result = cli("init", "--json")
    data = result.json()
    assert Path(data["palace"]) == workspace / "memory" / "palace"
    assert data["memories"] == 0
    assert (workspace / "memory" / "palace").is_dir()
    plain = cli("init")
    assert plain.rc == 0 and "palace ready" in plain.stdout


def test_memory_workspace_dir_env(monkeypatch, tmp_path):
    ws = tmp_path / "env-ws"
    monkeypatch.setenv("MEMORY_WORKSPACE_DIR", str(ws))
    stored = run_palace("add", "from the environment", "--json").json()
    assert Path(stored["path"]) == ws / "memory" / "palace" / "general" / f"{stored['id']}.md"
    assert run_palace("get", stored["id"], "--json").json()["content"] == "from the environment"
    # the flag wins over the environment
    other = tmp_path / "flag-ws"
    flagged = run_palace("add", "from the flag", "--workspace", str(other), "--json").json()
    assert Path(flagged["path"]).parent == other / "memory" / "palace" / "general"
    assert [m["id"] for m in run_palace("list", "--json").json()] == [stored["id"]]


def test_default_workspace_is_the_current_directory(tmp_path):
    here = tmp_path / "here"
    here.mkdir()
    stored = run_palace("add", "cwd memory", "--json", cwd=here).json()
    assert (here / "memory" / "palace" / "general" / f"{stored['id']}.md").is_file()
    assert run_palace("get", stored["id"], "--json", cwd=here).json()["content"] == "cwd memory"


def test_options_before_the_command_are_honoured(workspace, tmp_path):
    # `palace --workspace W add ...` is what `palace --help` shows first
    result = run_palace("--workspace", str(workspace), "--json", "add", "global options first")
    assert result.rc == 0, result
    data = json.loads(result.stdout)
    assert Path(data["path"]).parent == workspace / "memory" / "palace" / "general"
    assert not (tmp_path / "cwd" / "memory").exists()


# --------------------------------------------------------------------------- add

def test_add_with_every_option(cli, palace_root):
    data = cli("add", "我们决定用 PostgreSQL 作为主数据库", "--tag", "数据库", "-t", "decision",
               "--importance", "0.8", "--location", "projects/palace", "--type", "decision",
               "--source", "meeting", "--summary", "选了 PG", "--created-at",
               "2026-03-18T10:00:00+08:00", "--id", "pg-choice", "--pin", "--json").json()
    assert data["id"] == "pg-choice"
    assert data["tags"] == ["数据库", "decision"]
    assert (data["importance"], data["location"], data["type"], data["source"], data["pinned"]) == (
        0.8, "projects/palace", "decision", "meeting", True)
    assert data["summary"] == "选了 PG"
    assert data["created_at"] == "2026-03-18T10:00:00+08:00"
    path = palace_root / "projects" / "palace" / "pg-choice.md"
    assert Path(data["path"]) == path and path.is_file()
    plain = cli("add", "plain output")
    assert plain.rc == 0 and plain.stdout.startswith("stored ")


@pytest.mark.parametrize("how", [(), ("-",)], ids=["no-argument", "dash"])
def test_add_reads_stdin(cli, how):
    text = "从标准输入来的记忆\n第二行 with English\n"
    data = cli("add", *how, "--json", input=text).json()
    assert data["content"] == "从标准输入来的记忆\n第二行 with English"
    assert cli("get", data["id"], "--json").json()["content"] == data["content"]


@pytest.mark.parametrize("args, stdin, needle", [
    (("add", ""), None, "empty"),
    (("add",), b"binary\xff\xfe\x00", "UTF-8"),
    (("add", "x", "--location", "../escape"), None, "location"),
    (("add", "x", "--importance", "3"), None, "importance"),
    (("add", "x", "--id", "../../etc/passwd"), None, "id"),
    (("add", "x", "--created-at", "someday"), None, "created_at"),
], ids=["empty", "binary-stdin", "location", "importance", "id", "created-at"])
def test_add_bad_input_exits_2_and_writes_nothing(cli, palace_root, args, stdin, needle):
    result = cli(*args, input=stdin)
    assert_failed(result, BAD_INPUT, needle)
    assert memory_files(palace_root) == []


def test_add_duplicate_id_exits_2(cli):
    cli("add", "first", "--id", "same", "--json").json()
    assert_failed(cli("add", "second", "--id", "same"), BAD_INPUT, "already exists")


# --------------------------------------------------------------------------- get, list, search

@pytest.fixture
def seeded(cli):
    cli("add", "数据库迁移方案已经确定", "--id", "db", "-t", "数据库", "-l", "projects/palace",
        "--created-at", "2026-03-02T10:00:00+08:00", "--json").json()
    cli("add", "the service deploys every night", "--id", "dep", "-t", "ops", "-l", "ops",
        "--type", "decision", "--created-at", "2026-03-12T10:00:00+08:00", "--json").json()
    return cli


def test_get(seeded):
    data = seeded("get", "db", "--json").json()
    assert (data["id"], data["content"], data["location"], data["tags"]) == (
        "db", "数据库迁移方案已经确定", "projects/palace", ["数据库"])
    plain = seeded("get", "db")
    assert plain.rc == 0 and "数据库迁移方案已经确定" in plain.stdout and "projects/palace" in plain.stdout


def test_get_errors(seeded):
    assert_failed(seeded("get", "nope"), NOT_FOUND, "no memory with id 'nope'")
    assert_failed(seeded("get", "../x"), BAD_INPUT, "invalid memory id")
    seeded("delete", "dep")
    assert_failed(seeded("get", "dep"), NOT_FOUND, "palace restore dep")


def test_list(seeded):
    assert [m["id"] for m in seeded("list", "--json").json()] == ["dep", "db"]
    assert [m["id"] for m in seeded("list", "--location", "projects", "--json").json()] == ["db"]
    assert [m["id"] for m in seeded("list", "-t", "ops", "--json").json()] == ["dep"]
    assert [m["id"] for m in seeded("list", "--limit", "1", "--json").json()] == ["dep"]
    plain = seeded("list")
    assert plain.rc == 0 and "db" in plain.stdout and "dep" in plain.stdout


def test_search(seeded):
    results = seeded("search", "数据", "--json").json()
    assert [r["memory"]["id"] for r in results][:1] == ["db"]
    top = results[0]
    assert 0 < top["score"] <= 1
    assert top["explanation"]["retrievers"]["bm25"]["rank"] == 1
    assert "数据" in top["explanation"]["matched_terms"]
    filtered = seeded("search", "deploy", "--location", "ops", "--type", "decision", "-t", "ops",
                      "--json").json()
    assert [r["memory"]["id"] for r in filtered] == ["dep"]
    ranged = seeded("search", "deploy", "--start", "2026-03-01T00:00:00+08:00", "--end",
                    "2026-03-10T00:00:00+08:00", "--json").json()
    assert "dep" not in [r["memory"]["id"] for r in ranged]
    plain = seeded("search", "deployed", "-k", "1")
    assert plain.rc == 0 and "dep" in plain.stdout and "bm25#1" in plain.stdout
    assert seeded("search", "zzyzx").stdout.strip() == "(nothing found)"
    assert_failed(seeded("search", "deploy", "--top-k", "0"), BAD_INPUT, "top_k")


# --------------------------------------------------------------------------- update, delete, restore, trash

def test_update(seeded, palace_root):
    data = seeded("update", "dep", "--content", "the service deploys every hour", "-t", "ops",
                  "-t", "hourly", "--importance", "0.9", "--location", "ops/cron", "--json").json()
    assert (data["content"], data["tags"], data["importance"], data["location"]) == (
        "the service deploys every hour", ["ops", "hourly"], 0.9, "ops/cron")
    assert (palace_root / "ops" / "cron" / "dep.md").is_file()
    assert not (palace_root / "ops" / "dep.md").exists()
    from_stdin = seeded("update", "dep", "--content", "-", "--json", input="nightly again\n").json()
    assert from_stdin["content"] == "nightly again"
    assert seeded("update", "dep", "--status", "archived").rc == 0
    assert seeded("get", "dep", "--json").json()["status"] == "archived"


def test_update_errors(seeded, palace_root):
    before = (palace_root / "ops" / "dep.md").read_bytes()
    assert_failed(seeded("update", "dep"), BAD_INPUT, "nothing to update")
    assert_failed(seeded("update", "nope", "--importance", "0.3"), NOT_FOUND, "nope")
    assert_failed(seeded("update", "dep", "--location", "/etc"), BAD_INPUT, "location")
    assert (palace_root / "ops" / "dep.md").read_bytes() == before


def test_delete_restore_and_trash(seeded, palace_root):
    deleted = seeded("delete", "db", "--json").json()
    assert deleted["deleted"] == "db"
    assert Path(deleted["trash"]) == palace_root / ".trash" / "db.md"
    assert [m["id"] for m in seeded("trash", "--json").json()] == ["db"]
    assert [m["id"] for m in seeded("list", "--json").json()] == ["dep"]
    restored = seeded("restore", "db", "--json").json()
    assert (restored["id"], restored["status"], restored["location"]) == ("db", "active", "projects/palace")
    assert (palace_root / "projects" / "palace" / "db.md").is_file()
    assert seeded("trash", "--json").json() == []
    assert_failed(seeded("restore", "db"), BAD_INPUT, "already active")
    assert_failed(seeded("restore", "nope"), NOT_FOUND, "nope")
    assert_failed(seeded("delete", "nope"), NOT_FOUND, "nope")

    seeded("delete", "db")
    seeded("delete", "dep")
    kept = seeded("trash", "--empty", "--older-than", "30", "--json").json()
    assert kept == {"removed": []}
    assert len(seeded("trash", "--json").json()) == 2
    removed = seeded("trash", "--empty", "--json").json()
    assert sorted(removed["removed"]) == ["db", "dep"]
    assert list((palace_root / ".trash").glob("*.md")) == []
    assert "removed 0" in seeded("trash", "--empty").stdout


# --------------------------------------------------------------------------- reindex, sync, stats

def test_reindex_after_losing_the_index(seeded, palace_root):
    seeded("search", "deploy")
    (palace_root / ".palace" / "index.sqlite3").unlink()
    data = seeded("reindex", "--json").json()
    assert data["memories"] == 2
    assert data["errors"] == []
    assert [r["memory"]["id"] for r in seeded("search", "deploy", "--json").json()] == ["dep"]
    assert seeded("get", "dep", "--json").json()["access_count"] >= 1  # the journal survived
    assert "reindexed 2 memories" in seeded("reindex").stdout


def test_sync_picks_up_hand_made_files_and_reports_broken_ones(seeded, palace_root):
    write_file(palace_root / "notes" / "hand.md", "a note written in an editor about terraform\n")
    write_file(palace_root / "notes" / "broken.md", "---\ntags: [oops\n---\nbody\n")
    data = seeded("sync", "--json").json()
    assert data["added"] == 1
    assert [(Path(e["path"]).name, "YAML" in e["reason"]) for e in data["errors"]] == [("broken.md", True)]
    assert [r["memory"]["id"] for r in seeded("search", "terraform", "--json").json()] == ["hand"]
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
    rows = run_palace("config", "--json").json()
    by_name = {r["variable"]: r for r in rows}
    for name in ("MEMORY_WORKSPACE_DIR", "MEMORY_DECAY_ENABLED", "MEMORY_DECAY_ARCHIVE_THRESHOLD",
                 "MEMORY_DECAY_RECOVERY_FACTOR", "MEMORY_VECTOR_MODEL", "MEMORY_VECTOR_ENABLED"):
        assert name in by_name
    assert by_name["MEMORY_DECAY_ARCHIVE_THRESHOLD"]["value"] == 0.2
    assert by_name["MEMORY_DECAY_ARCHIVE_THRESHOLD"]["source"] == "env"
    assert by_name["MEMORY_DECAY_RECOVERY_FACTOR"] == {**by_name["MEMORY_DECAY_RECOVERY_FACTOR"],
                                                      "value": 0.2, "default": 0.2, "source": "default"}
    assert by_name["MEMORY_VECTOR_MODEL"]["default"] == "BAAI/bge-small-zh-v1.5"
    plain = run_palace("config")
    assert plain.rc == 0 and "MEMORY_DECAY_ARCHIVE_THRESHOLD" in plain.stdout


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


# --------------------------------------------------------------------------- the installed script

def test_installed_palace_script_runs(workspace):
    script = Path(sys.executable).parent / "palace"
    assert script.is_file(), "the `palace` console script is not installed next to python"
    proc = subprocess.run([str(script), "add", "via the console script", "--workspace", str(workspace),
                           "--json"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["content"] == "via the console script"
