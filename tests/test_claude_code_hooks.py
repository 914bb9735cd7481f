"""Claude Code's hook commands (python -m palace.integrations.claude_code EVENT) as
Claude Code runs them: a subprocess with the hook payload on stdin, JSON on stdout."""

import json
import os
import subprocess
import sys
import time

import pytest

from palace.context import set_essence
from palace.manager import MemoryPalaceManager
from palace.settings import Settings

HOOK = [sys.executable, "-m", "palace.integrations.claude_code"]
SESSION = "6f1c9a52-4b7e-4d0e-9a51-0c2f3e5d7b11"


def payload(event: str, tmp_path, **fields) -> dict:
    """A payload shaped like Claude Code's (common fields plus the event's own)."""
    return {"session_id": SESSION, "transcript_path": str(tmp_path / f"{SESSION}.jsonl"),
            "cwd": str(tmp_path / "project"), "permission_mode": "default",
            "hook_event_name": event, **fields}


def run_hook(event: str, workspace, data, *extra: str, timeout: float = 60):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update({"MEMORY_VECTOR_ENABLED": "false", "MEMORY_TIMEZONE": "Asia/Shanghai"})
    stdin = data if isinstance(data, (bytes, str)) else json.dumps(data)
    started = time.monotonic()
    done = subprocess.run([*HOOK, event, "--workspace", str(workspace), *extra], input=stdin,
                          capture_output=True, text=True, env=env, timeout=timeout)
    done.seconds = time.monotonic() - started
    return done


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    settings = Settings.from_env(workspace_dir=str(ws), vector_enabled=False, timezone="Asia/Shanghai")
    with MemoryPalaceManager(str(ws), settings=settings, embedder=None) as pm:
        set_essence(pm, "User: Wang Xiaoming, backend engineer. Never push to main.")
        pm.store("Session 2026-11-27: wired the backup cron job (pg_dump at 03:00); next: test a restore.",
                 type="session", created_at="2026-11-27T18:30:00+08:00")
        pm.store("Write the restore runbook for PostgreSQL", type="task")
        pm.store("Postgres backups are kept for 14 days in /srv/backups.", type="decision",
                 tags=["database"], location="projects/palace")
        pm.store("The cat only eats the salmon flavoured food.", location="life")
    return ws


def additional_context(done, event: str) -> str:
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)
    assert output["hookSpecificOutput"]["hookEventName"] == event
    return output["hookSpecificOutput"]["additionalContext"]


def test_session_start_returns_the_bootstrap_as_additional_context(workspace, tmp_path):
    done = run_hook("session-start", workspace, payload("SessionStart", tmp_path, source="startup"),
                    "--bootstrap-tokens", "300", "--no-capture")
    context = additional_context(done, "SessionStart")
    assert context.startswith('<palace-memory kind="bootstrap"')
    assert context.index("# Essence") < context.index("# Recent sessions") < context.index("# Open tasks")
    assert "Never push to main" in context and "pg_dump at 03:00" in context
    assert "restore runbook" in context
    assert "salmon" not in context  # nothing was asked about: no unrelated memory
    assert done.stderr == ""


def test_user_prompt_submit_returns_the_memories_relevant_to_the_prompt(workspace, tmp_path):
    prompt = "How long do we keep the postgres backups?"
    done = run_hook("user-prompt-submit", workspace, payload("UserPromptSubmit", tmp_path, prompt=prompt),
                    "--prompt-tokens", "120", "--no-capture")
    context = additional_context(done, "UserPromptSubmit")
    assert context.startswith('<palace-memory kind="context"')
    assert "14 days in /srv/backups" in context
    assert "salmon" not in context
    tokens = int(context.split('tokens="')[1].split('"')[0])
    assert 0 < tokens <= 120


def test_a_prompt_nothing_matches_adds_no_context(workspace, tmp_path):
    done = run_hook("user-prompt-submit", workspace,
                    payload("UserPromptSubmit", tmp_path, prompt="zzqx vvkw"), "--no-capture")
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""


@pytest.mark.parametrize("event, name, fields", [
    ("post-tool-use", "PostToolUse", {"tool_name": "Bash", "tool_input": {"command": "pytest -q"},
                                      "tool_response": {"stdout": "3 passed", "stderr": "", "interrupted": False}}),
    ("pre-compact", "PreCompact", {"trigger": "auto", "custom_instructions": ""}),
    ("stop", "Stop", {"stop_hook_active": False}),
    ("session-end", "SessionEnd", {"reason": "prompt_input_exit"}),
])
def test_capture_events_without_palace_capture_say_so_and_exit_0(workspace, tmp_path, event, name, fields):
    try:
        import palace.capture  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("palace.capture is installed: test_capture_events_store_observations covers it")
    done = run_hook(event, workspace, payload(name, tmp_path, **fields))
    assert done.returncode == 0 and done.stdout == ""
    assert f"palace hook {event}: this palace has no capture module (palace.capture)" in done.stderr


def test_capture_events_store_what_the_session_did(workspace, tmp_path):
    pytest.importorskip("palace.capture", reason="palace.capture (issue 13) is not in this build")
    run_hook("user-prompt-submit", workspace, payload(
        "UserPromptSubmit", tmp_path, prompt="Fix the flaky upload test in uploader.py"), "--no-recall")
    done = run_hook("post-tool-use", workspace, payload(
        "PostToolUse", tmp_path, tool_name="Bash", tool_input={"command": "pytest tests/test_uploader.py"},
        tool_response={"stdout": "FAILED test_retry - TimeoutError: upload took 31s", "stderr": ""}))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    run_hook("session-end", workspace, payload("SessionEnd", tmp_path, reason="prompt_input_exit"))
    settings = Settings.from_env(workspace_dir=str(workspace), vector_enabled=False)
    with MemoryPalaceManager(str(workspace), settings=settings, embedder=None) as pm:
        found = pm.search("flaky upload TimeoutError", top_k=5)
    assert found, "the captured turn should be searchable"


@pytest.mark.parametrize("stdin, fragment", [
    ("not json", "not JSON"),
    ("[1, 2]", "not a JSON object"),
])
def test_a_bad_payload_is_one_line_on_stderr_and_exit_0(workspace, stdin, fragment):
    done = run_hook("session-start", workspace, stdin)
    assert done.returncode == 0 and done.stdout == ""
    assert fragment in done.stderr and done.stderr.count("\n") == 1


def test_an_unknown_event_or_missing_workspace_never_fails_the_session(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    unknown = subprocess.run([*HOOK, "pre-tool-use"], input="{}", capture_output=True, text=True, env=env)
    assert unknown.returncode == 0 and "unknown event 'pre-tool-use'" in unknown.stderr
    nowhere = subprocess.run([*HOOK, "session-start"], input="{}", capture_output=True, text=True, env=env,
                             cwd=tmp_path)
    assert nowhere.returncode == 0 and "no workspace" in nowhere.stderr
    assert not (tmp_path / "memory").exists()  # nothing written into the project folder


def test_a_hook_that_hangs_gives_up_after_its_timeout(workspace):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    # stdin left open and empty: reading the payload would wait for ever.
    process = subprocess.Popen([*HOOK, "session-start", "--workspace", str(workspace), "--timeout", "1"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env)
    started = time.monotonic()
    try:
        process.wait(timeout=20)  # not communicate(): it would close stdin
    finally:
        process.stdin.close()
    stdout, stderr = process.stdout.read(), process.stderr.read()
    assert process.returncode == 0
    assert 1 <= time.monotonic() - started < 10
    assert "gave up after 1 s" in stderr and stdout == ""


PLUGIN_ROOT = __import__("pathlib").Path(__file__).resolve().parents[1] / "integrations" / "claude-code"


def test_the_plugin_layout_wires_every_event_to_the_hook_command(workspace, tmp_path):
    manifest = json.loads((PLUGIN_ROOT / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "palace"
    hooks = json.loads((PLUGIN_ROOT / "hooks" / "hooks.json").read_text())["hooks"]
    from palace.integrations.claude_code import EVENTS

    assert set(hooks) == set(EVENTS.values())
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update({"CLAUDE_PLUGIN_ROOT": str(PLUGIN_ROOT), "PALACE_PYTHON": sys.executable,
                "MEMORY_WORKSPACE_DIR": str(workspace), "MEMORY_VECTOR_ENABLED": "false"})
    for argument, event in EVENTS.items():
        [group] = hooks[event]
        [hook] = group["hooks"]
        assert hook["type"] == "command" and hook["timeout"] <= 15
        assert hook["command"] == f'"${{CLAUDE_PLUGIN_ROOT}}/hooks/palace-hook" {argument}'
    # Run one the way Claude Code does: through the shell, which expands CLAUDE_PLUGIN_ROOT.
    start = hooks["SessionStart"][0]["hooks"][0]["command"]
    done = subprocess.run(start + " --no-capture", shell=True, env=env, text=True, capture_output=True,
                          input=json.dumps(payload("SessionStart", tmp_path, source="startup")), timeout=60)
    assert "pg_dump at 03:00" in additional_context(done, "SessionStart")
    mcp = json.loads((PLUGIN_ROOT / ".mcp.json").read_text())["mcpServers"]["palace"]
    assert mcp["args"] == ["-m", "palace.mcp_server"]
