"""``palace init | add | get | list | search | update | delete | restore | trash`` and
the workspace options, through click's CliRunner: output, exit codes, files on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import BAD_CONFIG, BAD_INPUT, NOT_FOUND, assert_failed, cli_on, invoke
from conftest import memory_files, write_file


@pytest.fixture
def cli(workspace):
    return cli_on(workspace)


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
    stored = invoke("add", "from the environment", "--json").json()
    assert Path(stored["path"]) == ws / "memory" / "palace" / "general" / f"{stored['id']}.md"
    assert invoke("get", stored["id"], "--json").json()["content"] == "from the environment"
    # the flag wins over the environment
    other = tmp_path / "flag-ws"
    flagged = invoke("add", "from the flag", "--workspace", str(other), "--json").json()
    assert Path(flagged["path"]).parent == other / "memory" / "palace" / "general"
    assert [m["id"] for m in invoke("list", "--json").json()] == [stored["id"]]


def test_default_workspace_is_the_current_directory(tmp_path, monkeypatch):
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    stored = invoke("add", "cwd memory", "--json").json()
    assert (here / "memory" / "palace" / "general" / f"{stored['id']}.md").is_file()
    assert invoke("get", stored["id"], "--json").json()["content"] == "cwd memory"


def test_the_last_workspace_given_wins_over_the_first_and_over_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMORY_WORKSPACE_DIR", str(tmp_path / "env"))
    first, last = tmp_path / "first", tmp_path / "last"
    stored = invoke("-w", str(first), "add", "where does it go", "-w", str(last), "--json").json()
    assert Path(stored["path"]).parent == last / "memory" / "palace" / "general"
    assert not (first / "memory").exists() and not (tmp_path / "env").exists()


# --------------------------------------------------------------------------- a workspace that is no palace

def test_a_workspace_that_is_a_file_says_so_and_exits_2(tmp_path):
    a_file = write_file(tmp_path / "notes.txt", "not a folder")
    for command in (("list",), ("init",), ("add", "x"), ("search", "x"), ("mcp",)):
        assert_failed(invoke("-w", str(a_file), *command), BAD_INPUT, "is not a folder", str(a_file))
    assert a_file.read_text() == "not a folder"


def test_a_mistyped_workspace_is_not_turned_into_an_empty_palace(cli, workspace, tmp_path):
    cli("add", "the real memory")
    typo = tmp_path / "wrokspace"
    for command in (("list",), ("search", "memory"), ("get", "abc"), ("stats",), ("sync",),
                    ("decay",), ("trash",), ("experience", "list"), ("context", "x"),
                    ("essence",), ("summary",)):
        assert_failed(invoke(*command, "--workspace", str(typo)), BAD_CONFIG, "no palace in",
                      "palace init --workspace")
    # (`palace mcp` starts there and tells the client instead: tests/mcp/test_mcp.py)
    assert not typo.exists()
    # only init and add create a palace
    assert invoke("init", "-w", str(typo)).rc == 0 and (typo / "memory" / "palace").is_dir()
    assert invoke("list", "-w", str(typo), "--json").json() == []


def test_no_palace_in_the_current_folder_suggests_init():
    result = invoke("list")
    assert_failed(result, BAD_CONFIG, "no palace in", "`palace init`")


def test_options_before_the_command_are_honoured(workspace, tmp_path):
    # `palace --workspace W add ...` is what `palace --help` shows first
    result = invoke("--workspace", str(workspace), "--json", "add", "global options first")
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
    result = cli("add", *how, "--json", input=text)
    data = result.json()
    assert data["content"] == "从标准输入来的记忆\n第二行 with English"
    assert result.stderr == ""  # a pipe, not a terminal: no prompt
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


def test_add_duplicate_id_exits_2_and_names_the_command_to_use(cli):
    cli("add", "first", "--id", "same", "--json").json()
    result = cli("add", "second", "--id", "same")
    assert_failed(result, BAD_INPUT, "already exists", "`palace update`")
    assert "update()" not in result.stderr


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
    assert_failed(seeded("get", "nope"), NOT_FOUND, "no memory with id 'nope'", "palace search")
    assert_failed(seeded("get", "../x"), BAD_INPUT, "invalid memory id")
    seeded("delete", "dep")
    assert_failed(seeded("get", "dep"), NOT_FOUND, "palace restore dep")


def test_get_of_a_found_and_a_missing_id_shows_one_and_exits_1(seeded):
    both = seeded("get", "db", "NOPE")
    assert both.rc == NOT_FOUND and "数据库迁移方案已经确定" in both.stdout
    assert "no memory with id 'NOPE'" in both.stderr
    none = seeded("get", "NOPE", "NOPE2")
    assert_failed(none, NOT_FOUND, "no memory with id 'NOPE'", "no memory with id 'NOPE2'")


def test_get_json_names_the_missing_even_when_none_is_found(seeded):
    for ids in (("NOPE",), ("NOPE", "NOPE2")):
        done = seeded("--json", "get", *ids)
        assert done.rc == NOT_FOUND and json.loads(done.stdout) == {"memories": [], "missing": list(ids)}
    partial = seeded("--json", "get", "db", "NOPE")
    data = json.loads(partial.stdout)
    assert partial.rc == NOT_FOUND
    assert [m["id"] for m in data["memories"]] == ["db"] and data["missing"] == ["NOPE"]


def test_list(seeded):
    assert [m["id"] for m in seeded("list", "--json").json()] == ["dep", "db"]
    assert [m["id"] for m in seeded("list", "--location", "projects", "--json").json()] == ["db"]
    assert [m["id"] for m in seeded("list", "-t", "ops", "--json").json()] == ["dep"]
    assert [m["id"] for m in seeded("list", "--limit", "1", "--json").json()] == ["dep"]
    plain = seeded("list")
    assert plain.rc == 0 and "db" in plain.stdout and "dep" in plain.stdout


def test_search(seeded):
    answer = seeded("search", "数据", "--json").json()
    assert set(answer) == {"count", "time_range", "notes", "results"}  # as MCP's search_memory
    assert answer["count"] == len(answer["results"]) >= 1
    top = answer["results"][0]
    assert (top["id"], top["location"]) == ("db", "projects/palace")
    assert 0 < top["score"] <= 1 and "bm25#1" in top["why"]
    assert "explanation" not in top
    explained = seeded("search", "数据", "--json", "--explain").json()["results"][0]
    assert explained["explanation"]["retrievers"]["bm25"]["rank"] == 1
    assert "数据" in explained["explanation"]["matched_terms"]
    filtered = seeded("search", "deploy", "--location", "ops", "--type", "decision", "-t", "ops",
                      "--json").json()
    assert [r["id"] for r in filtered["results"]] == ["dep"]
    ranged = seeded("search", "deploy", "--start", "2026-03-01T00:00:00+08:00", "--end",
                    "2026-03-10T00:00:00+08:00", "--json").json()
    assert "dep" not in [r["id"] for r in ranged["results"]]
    plain = seeded("search", "deployed", "-k", "1")
    assert plain.rc == 0 and "dep" in plain.stdout and "bm25#1" in plain.stdout
    assert seeded("search", "zzyzx").stdout.strip() == "note: no memory matches these words\n(nothing found)"
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
    kept = seeded("trash", "--empty", "--older-than", "30", "--yes", "--json").json()
    assert kept == {"removed": []}
    assert len(seeded("trash", "--json").json()) == 2
    removed = seeded("trash", "--empty", "--yes", "--json").json()
    assert sorted(removed["removed"]) == ["db", "dep"]
    assert list((palace_root / ".trash").glob("*.md")) == []
    assert "removed 0" in seeded("trash", "--empty").stdout  # an empty trash: nothing to ask


