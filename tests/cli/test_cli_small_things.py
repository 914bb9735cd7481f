"""What a user notices on the command line (issue 27, "small things"): output that says
what it does, hints that lead to the fix, several ids where one is taken, a question
before deleting for good, readable settings. Through the real click group (CliRunner),
and one real terminal (a pty) for the question."""

from __future__ import annotations

import json
import stat
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import BAD_INPUT, NOT_FOUND, assert_failed, cli_on, invoke
from conftest import write_file

EXIT_ERROR = 4


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


# --------------------------------------------------------------------------- search

def test_a_time_only_search_lists_its_period_newest_first_as_it_says(cli):
    # the oldest is the most important: ranked by score it would come first
    for memory_id, day, importance in (("mon", "09", "0.95"), ("wed", "11", "0.5"), ("fri", "13", "0.1")):
        cli("add", f"what happened on {memory_id}", "--id", memory_id, "-i", importance,
            "--created-at", f"2026-03-{day}T10:00:00+08:00", "--json").json()
    answer = cli("search", "last week", "--now", "2026-03-18T10:00:00+08:00", "--json").json()
    assert "time-only query: memories of the period, newest first" in answer["notes"]
    assert [r["id"] for r in answer["results"]] == ["fri", "wed", "mon"]
    plain = cli("search", "上周", "--now", "2026-03-18T10:00:00+08:00").stdout
    assert plain.index("fri") < plain.index("wed") < plain.index("mon")


def test_search_json_gives_the_memory_file_like_get(seeded):
    hit = seeded("search", "deploys", "--json").json()["results"][0]
    assert hit["id"] == "dep"
    assert hit["path"] == seeded("get", "dep", "--json").json()["path"]
    assert Path(hit["path"]).is_file()


def test_explain_without_json_shows_the_numbers_in_the_table_output(seeded):
    plain = seeded("search", "数据", "--explain")
    assert plain.rc == 0, plain
    out = plain.stdout
    assert "score 0." in out and "relevance" in out and "importance" in out  # how the score is mixed
    assert "bm25: rank 1" in out and "coverage" in out  # each retriever's numbers
    assert "matched: 数据" in out
    assert "strong:" in out  # the verdict and its reason
    assert "coverage" not in seeded("search", "数据").stdout  # only when asked


def test_a_search_that_only_archived_memories_match_hints_include_archived(seeded):
    assert seeded("update", "dep", "--status", "archived").rc == 0
    answer = seeded("search", "deploys", "--json").json()
    assert answer["results"] == []
    assert any("--include-archived" in note and "1 archived memory" in note for note in answer["notes"])
    plain = seeded("search", "deploys").stdout
    assert "--include-archived" in plain
    assert [r["id"] for r in seeded("search", "deploys", "--include-archived", "--json").json()["results"]] \
        == ["dep"]
    # nothing archived matches: no hint
    assert not any("archived" in note for note in seeded("search", "zzyzx", "--json").json()["notes"])


def test_an_open_range_is_shown_as_one(seeded):
    since = seeded("search", "zzyzx", "--start", "2026-03-01T00:00:00+08:00").stdout
    assert "None" not in since and "from 2026-03-01T00:00:00+08:00 on" in since
    until = seeded("search", "zzyzx", "--end", "2026-03-01T00:00:00+08:00").stdout
    assert "None" not in until and "before 2026-03-01T00:00:00+08:00" in until
    both = seeded("search", "zzyzx", "--start", "2026-03-01T00:00:00+08:00", "--end",
                  "2026-03-10T00:00:00+08:00").stdout
    assert "[2026-03-01T00:00:00+08:00, 2026-03-10T00:00:00+08:00)" in both


# --------------------------------------------------------------------------- delete, trash

def test_delete_takes_several_ids(seeded, palace_root):
    plain = seeded("delete", "db", "dep")
    assert plain.rc == 0, plain
    assert "moved db to the trash" in plain.stdout and "moved dep to the trash" in plain.stdout
    assert sorted(m["id"] for m in seeded("trash", "--json").json()) == ["db", "dep"]


def test_delete_with_a_missing_id_deletes_the_others_and_exits_1(seeded, palace_root):
    result = seeded("delete", "db", "nope", "dep", "--json")
    assert result.rc == NOT_FOUND, result
    data = json.loads(result.stdout)
    assert [d["deleted"] for d in data["deleted"]] == ["db", "dep"] and data["missing"] == ["nope"]
    assert "no memory with id 'nope'" in result.stderr and "Traceback" not in result.stderr
    assert (palace_root / ".trash" / "db.md").is_file() and (palace_root / ".trash" / "dep.md").is_file()
    # one id: the shape and the error as before
    assert_failed(seeded("delete", "nope"), NOT_FOUND, "nope")


def test_trash_empty_without_a_terminal_needs_yes(seeded, palace_root):
    seeded("delete", "db", "dep")
    refused = seeded("trash", "--empty")
    assert_failed(refused, BAD_INPUT, "--yes")
    assert len(list((palace_root / ".trash").glob("*.md"))) == 2  # nothing deleted
    removed = seeded("trash", "--empty", "--yes", "--json").json()
    assert sorted(removed["removed"]) == ["db", "dep"]


def _on_a_terminal(args: list[str], answer: str) -> tuple[int, str]:
    """Run palace with a pty as stdin (a person at a terminal), answer its question."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "palace", *args], stdin=slave,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(slave)
    seen, deadline = b"", time.monotonic() + 60
    try:
        while b"[y/N]" not in seen and time.monotonic() < deadline and proc.poll() is None:
            ready, _, _ = select.select([proc.stderr], [], [], 0.5)
            if ready:
                seen += os.read(proc.stderr.fileno(), 4096)
        os.write(master, answer.encode() + b"\n")
        out, err = proc.communicate(timeout=60)
    finally:
        os.close(master)
    return proc.returncode, (seen + err).decode() + out.decode()


def test_trash_empty_on_a_terminal_asks_first(seeded, workspace, palace_root):
    seeded("delete", "db", "dep")
    rc, text = _on_a_terminal(["trash", "--empty", "-w", str(workspace)], "n")
    assert rc == 0 and "2 memories" in text and "nothing deleted" in text, text
    assert len(list((palace_root / ".trash").glob("*.md"))) == 2
    rc, text = _on_a_terminal(["trash", "--empty", "-w", str(workspace)], "y")
    assert rc == 0 and "removed 2 memories" in text, text
    assert list((palace_root / ".trash").glob("*.md")) == []


# --------------------------------------------------------------------------- doctor

def test_doctor_hints_lead_to_moving_an_unreadable_file_aside(seeded, palace_root):
    write_file(palace_root / "general" / "broken.md", "---\nid: [broken\n---\nbody\n")
    check = seeded("doctor", "--check")
    assert check.rc == EXIT_ERROR
    assert "palace doctor --move-unreadable" in check.stdout
    repair = seeded("doctor")
    assert repair.rc == EXIT_ERROR  # a plain repair leaves unreadable files where they are
    assert "palace doctor --move-unreadable" in repair.stdout and "by hand" in repair.stdout
    moved = seeded("doctor", "--move-unreadable")
    assert moved.rc == 0, moved
    assert (palace_root / ".quarantine" / "general" / "broken.md").is_file()
    for folder in (palace_root / ".quarantine", palace_root / ".quarantine" / "general"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder  # owner-only, as README says
    assert seeded("doctor", "--check").rc == 0


def test_doctor_check_still_says_plain_doctor_repairs_what_it_can(seeded, palace_root):
    journal = palace_root / ".journal" / "access.jsonl"
    write_file(journal, (journal.read_text("utf-8") if journal.exists() else "") + "garbage{\n")
    check = seeded("doctor", "--check")
    assert check.rc == EXIT_ERROR and "run `palace doctor` to repair" in check.stdout
    assert "--move-unreadable" not in check.stdout
    assert seeded("doctor").rc == 0 and "garbage" not in journal.read_text("utf-8")


# --------------------------------------------------------------------------- the graph, summary

def test_entity_merge_of_no_such_entity_is_refused(seeded, palace_root):
    before = {p: p.read_bytes() for p in palace_root.rglob("*.md")}
    result = seeded("entity", "merge", "Nobody", "Somebody")
    assert_failed(result, NOT_FOUND, "no entity 'Nobody'", "palace entity list")
    assert {p: p.read_bytes() for p in palace_root.rglob("*.md")} == before


def test_a_day_summary_names_its_date_once(cli):
    cli("add", "a day's work", "--created-at", "2026-12-01T10:00:00+08:00")
    first = cli("summary", "--period", "day", "--date", "2026-12-01").stdout.splitlines()[0]
    assert first == "# Day 2026-12-01"
    week = cli("summary", "--period", "week", "--date", "2026-12-01").stdout.splitlines()[0]
    assert week == "# Week 2026-W49 (2026-11-30 – 2026-12-06)"


def test_a_summary_of_a_day_that_does_not_exist_says_so(cli):
    cli("add", "a day's work")
    result = cli("summary", "--date", "2026-02-30")
    assert_failed(result, BAD_INPUT, "no day 2026-02-30", "does not exist", "February 2026 has 28 days")
    assert "must look like" not in result.stderr


# --------------------------------------------------------------------------- config

def test_config_is_readable_and_speaks_env_values(monkeypatch):
    monkeypatch.setenv("MEMORY_DECAY_ENABLED", "off")
    result = invoke("config")
    assert result.rc == 0, result
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert not any(word in result.stdout.split() for word in ("None", "True", "False"))
    blocks: dict[str, list[str]] = {}
    for line in lines:  # `MEMORY_X = value`, then its origin and help, indented
        if line.startswith("MEMORY_"):
            name, _, value = line.partition(" = ")
            blocks[name] = [value]
        else:
            assert line.startswith("    "), line
            blocks[name].append(line.strip())
    assert blocks["MEMORY_MIN_RELEVANCE"][0] == "auto"
    assert blocks["MEMORY_DECAY_ENABLED"][0] == "false"
    assert blocks["MEMORY_DECAY_ENABLED"][1].startswith("[environment; default true]")
    assert blocks["MEMORY_GRAPH_EXTRACT"][:1] == ["true"] and blocks["MEMORY_GRAPH_EXTRACT"][1].startswith("[default]")
    assert blocks["MEMORY_CONCEPTS_FILE"][0] == "(unset)"
    assert blocks["MEMORY_DECAY_BASE_STABILITY_DAYS"][0] == "30"
    assert "An access sets score" in result.stdout  # each setting's help, wrapped
    # --json stays typed for machines, with the value as it is written beside it
    rows = {r["variable"]: r for r in invoke("config", "--json").json()}
    assert rows["MEMORY_DECAY_ENABLED"]["value"] is False and rows["MEMORY_MIN_RELEVANCE"]["value"] is None
    assert rows["MEMORY_MIN_RELEVANCE"]["as_env"] == "auto" and rows["MEMORY_DECAY_ENABLED"]["as_env"] == "false"
