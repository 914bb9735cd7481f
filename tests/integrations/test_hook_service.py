"""The Claude Code hooks as installed: the first hook of a workspace starts its warm
service (palace.integrations.hook_service), the hooks after it are answered by that
service through the stdlib-only client, and the service never outlives its use.
Real processes, a real Unix socket, real files; each test stops what it started and
checks /proc for leftovers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import invoke
from hook_helpers import (HOOK, SESSION, hook_env, hook_processes, payload, run_hook, stop_service,
                          wait_until)

from palace.features.context import set_essence
from palace.index import INDEX_DIR
from palace.integrations import hook_client
from palace.integrations.install import install_claude_code
from palace.manager import MemoryPalaceManager
from palace.settings import Settings

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    settings = Settings.from_env(workspace_dir=str(ws), vector_enabled=False, timezone="Asia/Shanghai")
    with MemoryPalaceManager(str(ws), settings=settings, embedder=None) as pm:
        set_essence(pm, "User: Wang Xiaoming, backend engineer. Never push to main.")
        pm.store("Session 2026-11-27: wired the backup cron job (pg_dump at 03:00); next: test a restore.",
                 type="session", created_at="2026-11-27T18:30:00+08:00")
        pm.store("Postgres backups are kept for 14 days in /srv/backups.", type="decision",
                 tags=["database"], location="projects/palace")
    yield ws
    stop_service(ws)


def served(workspace) -> int:
    status = hook_client.status(str(workspace))
    assert status["running"], status
    return status["hooks_served"]


def test_the_client_looks_for_the_service_in_the_palace_s_own_index_folder(workspace):
    # hook_client reads palace.store.layout (no palace import); the palace's layers declare the
    # same two names: they must agree, or hooks would look for the service elsewhere
    with MemoryPalaceManager(str(workspace), settings=Settings.from_env(workspace_dir=str(workspace),
                             vector_enabled=False), embedder=None) as pm:
        assert hook_client.service_dir(str(workspace.resolve())) == str(pm.root.resolve() / INDEX_DIR)


def test_the_warm_service_answers_exactly_as_the_direct_path(workspace, tmp_path):
    start = payload("SessionStart", tmp_path, source="startup")
    prompt = payload("UserPromptSubmit", tmp_path, prompt="How long do we keep the postgres backups?")
    direct = [run_hook("session-start", workspace, start, "--no-capture"),
              run_hook("user-prompt-submit", workspace, prompt, "--no-capture")]
    assert not hook_processes(workspace)  # --no-service starts nothing
    first = run_hook("session-start", workspace, start, "--no-capture", service=True)  # starts it
    warm = [run_hook("session-start", workspace, start, "--no-capture", service=True),
            run_hook("user-prompt-submit", workspace, prompt, "--no-capture", service=True)]
    for done in (*direct, first, *warm):
        assert done.returncode == 0 and done.stderr == "", done.stderr
    assert first.stdout == warm[0].stdout == direct[0].stdout
    assert warm[1].stdout == direct[1].stdout
    assert "14 days in /srv/backups" in json.loads(warm[1].stdout)["hookSpecificOutput"]["additionalContext"]
    assert served(workspace) == 3
    assert len(hook_processes(workspace)) == 1


def test_a_hook_through_the_service_loads_no_palace_code(workspace, tmp_path):
    data = json.dumps(payload("UserPromptSubmit", tmp_path, prompt="postgres backups"))
    run_hook("user-prompt-submit", workspace, data, "--no-capture", service=True)  # the service is up
    done = subprocess.run([sys.executable, "-X", "importtime", *HOOK[1:], "user-prompt-submit", "--workspace",
                           str(workspace), "--no-capture"], input=data, capture_output=True, text=True,
                          env=hook_env(), timeout=60)
    assert done.returncode == 0
    assert "14 days in /srv/backups" in done.stdout
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "palace.integrations.hook_client" in imported
    heavy = {"palace.manager", "palace.store.files", "palace.index", "palace.search", "palace.capture",
             "palace.settings", "sqlite3", "yaml", "numpy", "detect_secrets"}
    assert not heavy & imported, heavy & imported


def test_a_memory_written_by_hand_reaches_the_warm_prompt_hook(workspace, tmp_path):
    prompt = payload("UserPromptSubmit", tmp_path, prompt="Which port does the staging gateway listen on?")
    first = run_hook("user-prompt-submit", workspace, prompt, "--no-capture", service=True)  # starts it
    assert "8443" not in first.stdout
    room = workspace / "memory" / "palace" / "projects" / "gateway"
    room.mkdir(parents=True)
    (room / "staging-port.md").write_text(
        "---\nid: staging-port\ntype: fact\ncreated_at: 2026-11-30T10:00:00+08:00\n---\n"
        "The staging gateway listens on port 8443.\n", encoding="utf-8")
    # the service's worker syncs in a pause between hooks, so no hook pays for it
    for _ in range(10):
        time.sleep(1)  # a user's pause between prompts
        if "8443" in run_hook("user-prompt-submit", workspace, prompt, "--no-capture", service=True).stdout:
            break
    else:
        raise AssertionError("the hand-written memory never reached the prompt hook")
    assert served(workspace) >= 2


def transcript_of_one_turn(prompt: str, answer: str) -> str:
    common = {"sessionId": SESSION, "cwd": "/home/me/shop", "isSidechain": False,
              "timestamp": "2026-12-01T10:00:00.000Z"}
    lines = [{"type": "user", "uuid": "u0", **common, "message": {"role": "user", "content": prompt}},
             {"type": "assistant", "uuid": "a0", **common, "message": {"role": "assistant", "content": [
                 {"type": "tool_use", "id": "toolu_0", "name": "Bash", "input": {"command": "pytest -q"}}]}},
             {"type": "user", "uuid": "r0", **common, "message": {"role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": "toolu_0", "content": "FAILED"}]}},
             {"type": "assistant", "uuid": "a1", **common, "message": {"role": "assistant", "content": [
                 {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "npm run lint"}}]}},
             {"type": "user", "uuid": "r1", **common, "message": {"role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": "toolu_1", "content": "exit 1", "is_error": True}]}},
             {"type": "assistant", "uuid": "a2", **common, "message": {"role": "assistant", "content": [
                 {"type": "text", "text": answer}]}}]
    return "".join(json.dumps(line) + "\n" for line in lines)


def test_a_session_through_the_service_is_captured(workspace, tmp_path, monkeypatch):
    prompt = "Fix the flaky upload test in uploader.py"
    answer = "Raised the upload timeout to 60 s in uploader.py; test_retry passes now."
    hooks = [
        ("session-start", payload("SessionStart", tmp_path, source="startup", model="claude-sonnet-4-5")),
        ("user-prompt-submit", payload("UserPromptSubmit", tmp_path, prompt=prompt)),
        ("post-tool-use", payload("PostToolUse", tmp_path, tool_name="Bash", tool_use_id="toolu_0",
                                  tool_input={"command": "pytest tests/test_uploader.py"},
                                  tool_response={"stdout": "FAILED test_retry - TimeoutError: upload took 31s",
                                                 "stderr": "", "interrupted": False, "isImage": False})),
        ("post-tool-use-failure", payload("PostToolUseFailure", tmp_path, tool_name="Bash", tool_use_id="toolu_1",
                                          tool_input={"command": "npm run lint"},
                                          error="Command exited with non-zero status code 1",
                                          is_interrupt=False)),
        ("stop", payload("Stop", tmp_path, stop_hook_active=False)),  # no last_assistant_message
    ]
    for event, data in hooks:
        done = run_hook(event, workspace, data, service=True)
        assert done.returncode == 0 and done.stderr == "", (event, done.stderr)
    # Claude Code writes the transcript after the Stop hook; the service stores the turn later
    (tmp_path / f"{SESSION}.jsonl").write_text(transcript_of_one_turn(prompt, answer), encoding="utf-8")
    done = run_hook("session-end", workspace, payload("SessionEnd", tmp_path, reason="prompt_input_exit"),
                    service=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert served(workspace) == len(hooks) + 1
    doctor = invoke("doctor", "--workspace", str(workspace))
    assert "Claude Code hook service: running" in doctor.stdout, doctor
    stop_service(workspace)  # stores what still waits, then exits
    home = tmp_path / "home"  # a stopped service is reported where the hooks are installed
    install_claude_code(home, workspace=str(workspace.resolve()), python=sys.executable, uninstall=False)
    monkeypatch.setenv("HOME", str(home))
    doctor = invoke("doctor", "--workspace", str(workspace))
    assert "Claude Code hook service: not running" in doctor.stdout, doctor

    settings = Settings.from_env(workspace_dir=str(workspace), vector_enabled=False)
    with MemoryPalaceManager(str(workspace), settings=settings, embedder=None) as pm:
        [observation] = [m for m in pm.list(type="observation") if m.extra.get("sessionId") == SESSION]
        sessions = [m for m in pm.list(type="session") if m.extra.get("sessionId") == SESSION]
        found = pm.search("flaky upload TimeoutError", top_k=5)
    assert "uploader.py" in observation.content and "npm run lint" in observation.content
    assert f"Answer: {answer}" in observation.content
    assert sessions, "SessionEnd writes the session summary"
    assert any(r.memory.id == observation.id for r in found)


def test_one_service_per_workspace_however_many_hooks_start_at_once(workspace, tmp_path):
    data = json.dumps(payload("UserPromptSubmit", tmp_path, prompt="postgres backups"))
    processes = [subprocess.Popen([*HOOK, "user-prompt-submit", "--workspace", str(workspace), "--no-capture"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=hook_env()) for _ in range(4)]
    outputs = [p.communicate(data, timeout=60) for p in processes]
    for process, (stdout, stderr) in zip(processes, outputs):
        assert process.returncode == 0 and stderr == "", stderr
        assert "14 days in /srv/backups" in stdout
    assert wait_until(lambda: len(hook_processes(workspace)) == 1, 5), hook_processes(workspace)
    pid = hook_client.status(str(workspace))["pid"]
    assert hook_processes(workspace) == [pid]


def test_the_service_exits_after_its_idle_time(workspace, tmp_path):
    env = hook_env(MEMORY_HOOK_SERVICE_IDLE="1")
    data = payload("UserPromptSubmit", tmp_path, prompt="postgres backups")
    done = run_hook("user-prompt-submit", workspace, data, "--no-capture", service=True, env=env)
    assert done.returncode == 0 and "14 days" in done.stdout
    folder = Path(hook_client.service_dir(str(workspace)))
    assert (folder / hook_client.STATE_FILE).is_file()
    assert wait_until(lambda: not hook_processes(workspace), 15), "still running after its idle time"
    assert not (folder / hook_client.SOCKET_FILE).exists()
    assert not (folder / hook_client.STATE_FILE).exists()
    assert "exiting: idle for 1 s" in (folder / hook_client.LOG_FILE).read_text()


def test_the_service_exits_when_its_workspace_is_deleted(workspace, tmp_path):
    run_hook("session-start", workspace, payload("SessionStart", tmp_path, source="startup"), service=True)
    assert len(hook_processes(workspace)) == 1
    shutil.rmtree(workspace)
    assert wait_until(lambda: not hook_processes(workspace), 10), "outlived its workspace"
    assert not workspace.exists()  # and did not bring it back while storing what waited


def test_other_settings_make_the_service_give_way(workspace, tmp_path):
    data = payload("UserPromptSubmit", tmp_path, prompt="postgres backups")
    run_hook("user-prompt-submit", workspace, data, "--no-capture", service=True)
    old = hook_client.status(str(workspace))["pid"]
    # a hook with another MEMORY_* setting: answered (directly), and the old service leaves
    done = run_hook("user-prompt-submit", workspace, data, "--no-capture", service=True,
                    env=hook_env(MEMORY_TIMEZONE="UTC"))
    assert done.returncode == 0 and "14 days" in done.stdout and done.stderr == ""
    assert wait_until(lambda: old not in hook_processes(workspace), 10)
    run_hook("user-prompt-submit", workspace, data, "--no-capture", service=True, env=hook_env(MEMORY_TIMEZONE="UTC"))
    assert hook_client.status(str(workspace))["pid"] not in (None, old)


def test_changed_code_on_disk_stops_the_service(workspace, tmp_path):
    """An upgrade or a `git pull` under a running service: it must not serve old code."""
    copy = tmp_path / "install"
    shutil.copytree(REPO / "palace", copy / "palace", ignore=shutil.ignore_patterns("__pycache__"))
    env = hook_env(PYTHONPATH=str(copy))
    data = payload("UserPromptSubmit", tmp_path, prompt="postgres backups")
    done = run_hook("user-prompt-submit", workspace, data, "--no-capture", service=True, env=env)
    assert done.returncode == 0 and "14 days" in done.stdout, done.stderr
    status = hook_client.status(str(workspace))
    assert status["running"]
    changed = copy / "palace" / "features" / "context.py"
    changed.write_text(changed.read_text() + "\n# upgraded\n")
    assert wait_until(lambda: not hook_processes(workspace), 10), "kept serving old code"
    log = (Path(hook_client.service_dir(str(workspace))) / hook_client.LOG_FILE).read_text()
    assert "exiting: palace's code changed on disk" in log


def test_the_service_command_says_whether_it_runs_and_stops_it(workspace, tmp_path):
    run_hook("session-start", workspace, payload("SessionStart", tmp_path, source="startup"), "--no-capture",
             service=True)
    command = [sys.executable, "-m", "palace.integrations.hook_service", "--workspace", str(workspace)]
    status = json.loads(subprocess.run([*command, "--status"], capture_output=True, text=True, env=hook_env(),
                                       timeout=30).stdout)
    assert status["running"] and hook_processes(workspace) == [status["pid"]]
    stopped = subprocess.run([*command, "--stop"], capture_output=True, text=True, env=hook_env(), timeout=30)
    assert stopped.stdout.strip() == "stopped"
    assert not hook_processes(workspace)
    again = subprocess.run([*command, "--stop"], capture_output=True, text=True, env=hook_env(), timeout=30)
    assert again.stdout.strip() == "not running"


def test_a_bad_payload_through_the_service_is_the_same_one_line(workspace):
    direct = run_hook("session-start", workspace, "not json")
    warm = run_hook("session-start", workspace, "not json", service=True)
    assert len(hook_processes(workspace)) == 1  # it went through the service
    for done in (direct, warm):
        assert done.returncode == 0 and done.stdout == ""
    assert warm.stderr == direct.stderr and "not JSON" in warm.stderr and warm.stderr.count("\n") == 1


def test_a_new_workspace_gets_its_palace_first_and_its_service_next(tmp_path):
    workspace = tmp_path / "new-ws"
    try:
        first = run_hook("session-start", workspace, payload("SessionStart", tmp_path, source="startup"),
                         service=True)
        assert first.returncode == 0 and first.stderr == "", first.stderr
        assert (workspace / "memory" / "palace").is_dir()  # the direct path made it
        assert not hook_processes(workspace)
        second = run_hook("user-prompt-submit", workspace, payload("UserPromptSubmit", tmp_path, prompt="hello"),
                          service=True)
        assert second.returncode == 0 and second.stderr == "", second.stderr
        assert len(hook_processes(workspace)) == 1
    finally:
        stop_service(workspace)


def test_a_workspace_too_deep_for_a_socket_path_still_gets_its_service(tmp_path):
    workspace = tmp_path / ("a-rather-deeply-nested-project-folder-" * 3) / "ws"
    socket = hook_client.socket_path(str(workspace))
    assert len(os.fsencode(str(workspace / "memory/palace/.palace/hooks.sock"))) > hook_client.MAX_SOCKET_PATH
    assert len(os.fsencode(socket)) <= hook_client.MAX_SOCKET_PATH
    try:
        for event, data in (("session-start", payload("SessionStart", tmp_path, source="startup")),
                            ("user-prompt-submit", payload("UserPromptSubmit", tmp_path, prompt="hello")),
                            ("user-prompt-submit", payload("UserPromptSubmit", tmp_path, prompt="hello"))):
            done = run_hook(event, workspace, data, service=True)
            assert done.returncode == 0 and done.stderr == "", done.stderr
        assert hook_client.status(str(workspace))["socket"] == socket
        assert oct(os.stat(os.path.dirname(socket)).st_mode & 0o777) == "0o700"
    finally:
        stop_service(workspace)
    assert not os.path.exists(socket)
