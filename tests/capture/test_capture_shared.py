"""Live capture when several clients capture into one palace: the open turn's events
and OpenClaw's sessionKey map are shared state (files locally, rows of the database on
Postgres: palace.backends.capture_state). On Postgres two machines (two workspaces) and
two processes capturing one session complete each turn once, with nothing lost or
doubled, and two agents' scopes keep two spools that never see each other."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import psycopg
import pytest

from palace.capture.service import capture_payloads
from palace.manager import MemoryPalaceManager
from palace.settings import Settings

pytest_plugins = ["conftest_postgres"]

SESSION = "shared-session-1"
CWD = "/home/dev/shop-api"


def event(kind: str, session: str = SESSION, **fields) -> dict:
    return {"v": 1, "kind": kind, "session": session, "agent": "claude-code", "cwd": CWD, **fields}


def tool(command: str, session: str = SESSION) -> dict:
    return event("tool_call", session, tool={"name": "Bash", "input": {"command": command},
                                             "output": f"ran {command}"})


def observations(pm) -> list:
    return sorted(pm.list(type="observation", status="all"), key=lambda m: m.extra["turnIndex"])


@pytest.fixture
def two_clients(backend, tmp_path, make_pm):
    """Two managers on one palace: on Postgres two machines (two workspaces, one
    database); locally two processes' managers on one workspace."""
    if backend == "postgres":
        return make_pm(tmp_path / "machine-a"), make_pm(tmp_path / "machine-b")
    return make_pm(tmp_path / "ws"), make_pm(tmp_path / "ws")


def test_a_turn_whose_events_arrive_on_two_clients_is_stored_once(two_clients):
    a, b = two_clients
    capture_payloads(a, "palace", [event("user_prompt", text="Fix the failing checkout test")])
    capture_payloads(b, "palace", [tool("pytest -q tests/test_checkout.py")])
    capture_payloads(a, "palace", [tool("git diff")])
    done = capture_payloads(b, "palace", [event("turn_end")])
    assert done["errors"] == [] and len(done["observations"]) == 1
    [obs] = observations(a)
    assert obs.summary == "Fix the failing checkout test"
    assert obs.extra["commands"] == ["pytest -q tests/test_checkout.py", "git diff"]
    # the next turn continues the numbering the other client left, and a repeated end adds nothing
    capture_payloads(a, "palace", [event("user_prompt", text="Now add a regression test for it"),
                                   tool("pytest -q tests/test_regression.py")])
    capture_payloads(b, "palace", [event("turn_end"), event("turn_end")])
    capture_payloads(a, "palace", [event("session_end")])
    assert [(o.extra["turnIndex"], o.summary) for o in observations(b)] == [
        (1, "Fix the failing checkout test"), (2, "Now add a regression test for it")]
    [session] = b.list(type="session", status="all")
    assert session.extra["turns"] == 2 and len(session.extra["observations"]) == 2


def test_concurrent_captures_of_one_session_lose_and_double_nothing(two_clients):
    a, b = two_clients
    capture_payloads(a, "palace", [event("user_prompt", text="Run every check before the release")])
    commands = [f"make check-{n}" for n in range(8)]  # refinement keeps up to 10
    errors: list[BaseException] = []

    def send(pm, command):
        try:
            answer = capture_payloads(pm, "palace", [tool(command)])
            assert answer["errors"] == [], answer
        except BaseException as exc:  # surfaced below, in the test's own thread
            errors.append(exc)

    threads = [threading.Thread(target=send, args=((a, b)[n % 2], c)) for n, c in enumerate(commands)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors and not any(t.is_alive() for t in threads)
    capture_payloads(b, "palace", [event("turn_end")])
    [obs] = observations(a)
    assert sorted(obs.extra["commands"]) == sorted(commands)  # every event once, none lost


def test_palace_capture_processes_on_two_machines_share_the_turn(postgres_url, monkeypatch, tmp_path):
    """``palace capture`` as hooks run it: one process per event, here from two
    workspaces (two machines) at once, into one database."""
    monkeypatch.setenv("MEMORY_BACKEND", "postgres")
    monkeypatch.setenv("MEMORY_DATABASE_URL", postgres_url)
    machines = [tmp_path / "machine-a", tmp_path / "machine-b"]

    def palace_capture(machine):
        return subprocess.Popen([sys.executable, "-m", "palace", "-w", str(machine), "--json", "capture",
                                 "--source", "palace"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    first = palace_capture(machines[0])
    out, err = first.communicate(json.dumps(event("user_prompt", text="Rename the billing module")), 60)
    assert first.returncode == 0, err
    running = []
    for n in range(4):
        proc = palace_capture(machines[n % 2])
        proc.stdin.write(json.dumps(tool(f"git mv billing/{n}.py invoicing/{n}.py")))
        proc.stdin.close()
        running.append(proc)
    for proc in running:
        assert proc.wait(90) == 0, proc.stderr.read()
    last = palace_capture(machines[1])
    out, err = last.communicate(json.dumps(event("turn_end")), 60)
    assert last.returncode == 0, err
    assert len(json.loads(out)["observations"]) == 1
    pm = MemoryPalaceManager(machines[0])
    try:
        [obs] = observations(pm)
        assert sorted(obs.extra["commands"]) == [f"git mv billing/{n}.py invoicing/{n}.py" for n in range(4)]
    finally:
        pm.close()


def test_openclaw_session_keys_are_shared_between_machines(two_clients):
    """A message hook names only the sessionKey; the sessionId learned on one client
    files it under the right session on the other."""
    a, b = two_clients
    key = "agent:main:telegram:42"
    capture_payloads(a, "palace", [event("user_prompt", key, text="Water the tomatoes at six",
                                         meta={"sessionKey": key})])
    capture_payloads(b, "palace", [tool("garden water --bed tomatoes --at 06:00", "oc-session-9") | {
        "meta": {"sessionKey": key}}])
    capture_payloads(a, "palace", [event("turn_end", key, meta={"sessionKey": key})])
    [obs] = observations(b)
    assert obs.extra["sessionId"] == "oc-session-9" and obs.summary == "Water the tomatoes at six"
    assert obs.extra["commands"] == ["garden water --bed tomatoes --at 06:00"]


def test_two_agents_capturing_the_same_session_id_keep_apart(postgres_url, tmp_path):
    def agent(name):
        return MemoryPalaceManager(settings=Settings.from_env(
            backend="postgres", database_url=postgres_url, agent_id=name, scope=f"agent:{name}",
            workspace_dir=str(tmp_path / name)))

    alice, bob = agent("alice"), agent("bob")
    try:
        capture_payloads(alice, "palace", [event("user_prompt", text="alice's plan: migrate the vault")])
        capture_payloads(bob, "palace", [event("user_prompt", text="bob's plan: repaint the shed"),
                                         tool("paint --colour green")])
        capture_payloads(alice, "palace", [tool("vault migrate --to v2"), event("turn_end")])
        [mine] = observations(alice)
        assert mine.summary == "alice's plan: migrate the vault"
        assert mine.extra["commands"] == ["vault migrate --to v2"]     # none of bob's events
        assert observations(bob) == []                                 # bob's turn is still open
        # by raw SQL as alice: only her spool and keys are there
        with psycopg.connect(postgres_url, autocommit=True) as raw:
            raw.execute("SELECT set_config('app.agent_id', 'alice', false)")
            scopes = [r[0] for r in raw.execute("SELECT scope FROM capture_spools")]
            assert scopes == ["agent:alice"]
            raw.execute("SELECT set_config('app.agent_id', 'bob', false)")
            [(events,)] = raw.execute("SELECT events FROM capture_spools").fetchall()
            assert "paint --colour green" in events and "vault" not in events
        capture_payloads(bob, "palace", [event("turn_end")])
        [his] = observations(bob)
        assert his.extra["commands"] == ["paint --colour green"] and his.extra["scope"] == "agent:bob"
    finally:
        alice.close()
        bob.close()


def test_a_capture_into_a_scope_the_client_may_not_write_is_a_clear_error(postgres_url, tmp_path):
    pm = MemoryPalaceManager(settings=Settings.from_env(
        backend="postgres", database_url=postgres_url, agent_id="alice", scope="agent:bob",
        workspace_dir=str(tmp_path / "ws")))
    try:
        answer = capture_payloads(pm, "palace", [event("user_prompt", text="sneak into bob's spool")])
        assert [e["error"] for e in answer["errors"]] == ["capture_failed"]
        assert "agent:bob" in answer["errors"][0]["message"] and "MEMORY_SCOPE" in answer["errors"][0]["message"]
    finally:
        pm.close()
