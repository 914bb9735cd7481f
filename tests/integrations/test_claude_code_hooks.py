"""Claude Code's hook commands (python -m palace.integrations.claude_code EVENT) as
Claude Code runs them: a subprocess with the hook payload on stdin, JSON on stdout.
These run the direct path (--no-service); tests/integrations/test_hook_service.py runs the same hooks
through the warm service they start as installed."""

import json
import os
import subprocess
import sys
import time

import pytest
from hook_helpers import HOOK, SESSION, additional_context, payload, run_hook, stop_service

from palace.features.context import set_essence
from palace.manager import MemoryPalaceManager
from palace.settings import Settings


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
    ("post-tool-use-failure", "PostToolUseFailure", {
        "tool_name": "Bash", "tool_input": {"command": "npm test"}, "tool_use_id": "toolu_01ABC",
        "error": "Command exited with non-zero status code 1", "is_interrupt": False}),
    ("pre-compact", "PreCompact", {"trigger": "auto", "custom_instructions": ""}),
    ("stop", "Stop", {"stop_hook_active": False, "last_assistant_message": "Done."}),
    ("session-end", "SessionEnd", {"reason": "prompt_input_exit"}),
])
def test_each_capture_event_is_taken_quietly(workspace, tmp_path, event, name, fields):
    done = run_hook(event, workspace, payload(name, tmp_path, **fields))
    assert done.returncode == 0 and done.stdout == "" and done.stderr == "", done.stderr


def test_capture_events_store_what_the_session_did(workspace, tmp_path):
    run_hook("user-prompt-submit", workspace, payload(
        "UserPromptSubmit", tmp_path, prompt="Fix the flaky upload test in uploader.py"), "--no-recall")
    done = run_hook("post-tool-use", workspace, payload(
        "PostToolUse", tmp_path, tool_name="Bash", tool_input={"command": "pytest tests/test_uploader.py"},
        tool_response={"stdout": "FAILED test_retry - TimeoutError: upload took 31s", "stderr": ""}))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    settings = Settings.from_env(workspace_dir=str(workspace), vector_enabled=False)
    with MemoryPalaceManager(str(workspace), settings=settings, embedder=None) as pm:
        assert not pm.search("flaky upload TimeoutError", top_k=5)  # the turn is still open
    done = run_hook("session-end", workspace, payload("SessionEnd", tmp_path, reason="prompt_input_exit"))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    with MemoryPalaceManager(str(workspace), settings=settings, embedder=None) as pm:
        found = pm.search("flaky upload TimeoutError", top_k=5)
        assert found, "the captured turn should be searchable"
        assert any("uploader.py" in (h.memory.content + (h.memory.summary or "")) for h in found)
        sessions = [m for m in pm.list(type="session") if (m.extra or {}).get("sessionId") == SESSION]
    assert sessions, "SessionEnd writes the session summary"


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


PLUGIN_ROOT = __import__("pathlib").Path(__file__).resolve().parents[2] / "integrations" / "claude-code"


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
    # Run one the way Claude Code does: through the shell, which expands CLAUDE_PLUGIN_ROOT
    # (as installed: it starts the workspace's warm service, stopped below).
    start = hooks["SessionStart"][0]["hooks"][0]["command"]
    try:
        done = subprocess.run(start + " --no-capture", shell=True, env=env, text=True, capture_output=True,
                              input=json.dumps(payload("SessionStart", tmp_path, source="startup")), timeout=60)
        assert "pg_dump at 03:00" in additional_context(done, "SessionStart")
    finally:
        stop_service(workspace)
    mcp = json.loads((PLUGIN_ROOT / ".mcp.json").read_text())["mcpServers"]["palace"]
    assert mcp["args"] == ["-m", "palace", "mcp"]  # `palace mcp`, the one entry point


# --------------------------------------------------------------------------- Stop's answer

def transcript_lines(prompt: str, answer: str | None, *, tools: int = 1) -> list[dict]:
    """A Claude Code transcript (~/.claude/projects/<slug>/<session>.jsonl) of one turn:
    the prompt, tool_use / tool_result pairs, then the answer's text block."""
    common = {"sessionId": SESSION, "cwd": "/home/me/shop", "version": "2.1.0", "isSidechain": False,
              "userType": "external", "timestamp": "2026-12-01T10:00:00.000Z"}
    lines = [{"type": "user", "uuid": "u0", "parentUuid": None, **common,
              "message": {"role": "user", "content": prompt}}]
    for i in range(tools):
        lines.append({"type": "assistant", "uuid": f"a{i}", **common, "message": {
            "id": f"msg_{i}", "role": "assistant", "model": "claude-sonnet-4-5", "content": [
                {"type": "tool_use", "id": f"toolu_{i}", "name": "Bash", "input": {"command": "pytest -q"}}]}})
        lines.append({"type": "user", "uuid": f"r{i}", **common, "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": "FAILED test_retry"}]}})
    if answer:
        lines.append({"type": "assistant", "uuid": "final", **common, "message": {
            "id": "msg_final", "role": "assistant", "content": [{"type": "text", "text": answer}]}})
    return lines


def write_transcript(path, lines) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_the_final_answer_comes_from_the_transcript_only_once_it_holds_the_turn(tmp_path):
    from palace.capture.transcripts import claude_code_final_answer

    path = tmp_path / "t.jsonl"
    prompt = "Fix the flaky upload test"
    write_transcript(path, transcript_lines("an earlier question", "an earlier answer")
                     + transcript_lines(prompt, "Raised the upload timeout to 60 s; the test passes."))
    assert claude_code_final_answer(path, prompt, tool_calls=1) == \
        "Raised the upload timeout to 60 s; the test passes."
    # the host has not written this turn yet: the file ends with the previous one
    write_transcript(path, transcript_lines("an earlier question", "an earlier answer"))
    assert claude_code_final_answer(path, prompt) is None
    # it has written the prompt and one tool call, but the hooks saw two
    write_transcript(path, transcript_lines(prompt, "an answer written before the second call"))
    assert claude_code_final_answer(path, prompt, tool_calls=2) is None
    # it ends on a tool result: the answer is still to come
    write_transcript(path, transcript_lines(prompt, None))
    assert claude_code_final_answer(path, prompt, tool_calls=1) is None
    assert claude_code_final_answer(tmp_path / "missing.jsonl", prompt) is None


def test_stop_without_last_assistant_message_stores_the_answer_from_the_transcript(workspace, tmp_path):
    prompt = "Fix the flaky upload test in uploader.py"
    answer = "Raised the upload timeout to 60 s in uploader.py; test_retry passes now."
    transcript = tmp_path / f"{SESSION}.jsonl"
    write_transcript(transcript, transcript_lines("an earlier question", "an earlier answer"))
    run_hook("user-prompt-submit", workspace, payload("UserPromptSubmit", tmp_path, prompt=prompt), "--no-recall")
    run_hook("post-tool-use", workspace, payload(
        "PostToolUse", tmp_path, tool_name="Bash", tool_input={"command": "pytest -q"}, tool_use_id="toolu_0",
        tool_response={"stdout": "FAILED test_retry", "stderr": "", "interrupted": False}))
    # Claude Code fires Stop before it writes the answer to the transcript: Stop only
    # spools, and the turn is stored later, when the file holds it
    done = run_hook("stop", workspace, payload("Stop", tmp_path, stop_hook_active=False))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    write_transcript(transcript, transcript_lines("an earlier question", "an earlier answer")
                     + transcript_lines(prompt, answer))
    run_hook("session-end", workspace, payload("SessionEnd", tmp_path, reason="prompt_input_exit"))
    settings = Settings.from_env(workspace_dir=str(workspace), vector_enabled=False)
    with MemoryPalaceManager(str(workspace), settings=settings, embedder=None) as pm:
        [observation] = [m for m in pm.list(type="observation") if m.extra.get("sessionId") == SESSION]
    assert "Answer: Raised the upload timeout to 60 s" in observation.content
    assert "an earlier answer" not in observation.content
