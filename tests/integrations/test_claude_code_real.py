"""palace in real Claude Code (the npm package's native binary, installed by
integrations/claude-code/test/install.sh), as a user gets it from docs/integrations.md:
``palace install claude-code`` into a fresh HOME, then ``claude -p`` sessions against a
model stub on loopback (tests/anthropic_stub.py; no model and no network needed).

What a user must see: the memories reach the model (SessionStart's bootstrap and
UserPromptSubmit's context, as ``additionalContext`` in the request Claude Code sends),
the session is captured (its prompt, the command the model ran, the answer), the next
session starts with it, ``claude mcp list`` shows palace connected, and no palace
process is left behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from anthropic_stub import StubModel
from hook_helpers import hook_processes, stop_service, wait_until

from palace.features.context import set_essence
from palace.integrations import hook_client
from palace.manager import MemoryPalaceManager
from palace.settings import Settings

HARNESS = Path(__file__).resolve().parents[2] / "integrations" / "claude-code" / "test"
ANSWER = "The Postgres backups are kept for 14 days in /srv/backups; backups-ok."


def claude_binary() -> Path | None:
    for candidate in (HARNESS / "node_modules" / "@anthropic-ai" / "claude-code-linux-x64" / "claude",
                      HARNESS / "node_modules" / ".bin" / "claude"):
        if candidate.is_file() and candidate.stat().st_size > 1_000_000:  # not the npm placeholder
            return candidate
    return None


CLAUDE = claude_binary()
if CLAUDE is None:
    if os.environ.get("PALACE_CLAUDE_CODE_REQUIRED"):
        raise RuntimeError("real Claude Code is not installed: bash integrations/claude-code/test/install.sh")
    pytest.skip("real Claude Code is not installed (bash integrations/claude-code/test/install.sh; "
                ".ci/run installs it and requires this test)", allow_module_level=True)


@pytest.fixture
def setup(tmp_path):
    workspace, home, project = tmp_path / "ws", tmp_path / "home", tmp_path / "shop"
    project.mkdir()
    settings = Settings.from_env(workspace_dir=str(workspace), vector_enabled=False, timezone="Asia/Shanghai")
    with MemoryPalaceManager(str(workspace), settings=settings, embedder=None) as pm:
        set_essence(pm, "User: Wang Xiaoming, backend engineer. Never push to main.")
        pm.store("Postgres backups are kept for 14 days in /srv/backups.", type="decision", tags=["database"])
    done = subprocess.run([sys.executable, "-m", "palace", "install", "claude-code", "--config-dir", str(home),
                           "--workspace", str(workspace)], capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")})
    assert done.returncode == 0, done.stderr
    yield workspace, home, project
    stop_service(workspace)


def claude(args: list[str], *, home: Path, cwd: Path, model_url: str, timeout: float = 120):
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "ANTHROPIC_BASE_URL": model_url,
           "ANTHROPIC_API_KEY": "sk-ant-stub", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
           "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1",
           "MEMORY_VECTOR_ENABLED": "false", "MEMORY_TIMEZONE": "Asia/Shanghai"}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]  # the palace under test, not another checkout's
    return subprocess.run([str(CLAUDE), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def test_palace_in_real_claude_code_recalls_captures_and_carries_over(setup):
    workspace, home, project = setup
    prompt = "How long do we keep the postgres backups?"
    with StubModel(ANSWER, "echo backups-ok") as model:
        first = claude(["-p", prompt, "--allowedTools", "Bash(echo:*)", "--output-format", "json"],
                       home=home, cwd=project, model_url=model.url)
        assert first.returncode == 0, first.stderr
        result = json.loads(first.stdout)
        assert result["result"] == ANSWER and result["num_turns"] >= 2, result  # a tool call, then the answer
        sent = model.sent()
        # the hooks' additionalContext, in the request Claude Code sent the model
        assert 'SessionStart hook additional context: <palace-memory kind=\\"bootstrap\\"' in sent
        assert "Never push to main" in sent
        assert 'UserPromptSubmit hook additional context: <palace-memory kind=\\"context\\"' in sent
        assert "Postgres backups are kept for 14 days in /srv/backups." in sent
        session = result["session_id"]

        # the service stores the session a moment after SessionEnd; a user's next session
        # comes later than this test's, so wait for it here
        assert wait_until(lambda: hook_client.status(str(workspace)).get("sessions_waiting") == 0, 30), \
            hook_client.status(str(workspace))
        second = claude(["-p", "What did we do last time?", "--output-format", "json"],
                        home=home, cwd=project, model_url=model.url)
        assert second.returncode == 0, second.stderr
        carried = json.dumps(model.requests[-1], ensure_ascii=False)
        assert "# Recent sessions" in carried and prompt in carried

    # one warm service answered both sessions (Claude Code may exit before its SessionEnd
    # hook process has: give that one a moment)
    assert wait_until(lambda: len(hook_processes(workspace)) == 1, 15), hook_processes(workspace)
    stop_service(workspace)
    settings = Settings.from_env(workspace_dir=str(workspace), vector_enabled=False)
    with MemoryPalaceManager(str(workspace), settings=settings, embedder=None) as pm:
        [observation] = [m for m in pm.list(type="observation") if m.extra.get("sessionId") == session]
        summaries = [m for m in pm.list(type="session") if m.extra.get("sessionId") == session]
    assert prompt in observation.content and "`echo backups-ok`" in observation.content
    assert f"Answer: {ANSWER}" in observation.content
    assert summaries


def test_a_workspace_without_a_palace_is_connected_and_its_first_session_captured(tmp_path):
    fresh, home, project = tmp_path / "not-yet", tmp_path / "home", tmp_path / "shop"  # a new user's
    project.mkdir()
    done = subprocess.run([sys.executable, "-m", "palace", "install", "claude-code", "--config-dir", str(home),
                           "--workspace", str(fresh)], capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")})
    assert done.returncode == 0 and "holds no palace yet" in done.stdout, done.stdout + done.stderr
    try:
        with StubModel(ANSWER, "true") as model:
            listed = claude(["mcp", "list"], home=home, cwd=project, model_url=model.url)
            assert listed.returncode == 0, listed.stderr
            line = listed.stdout.split("palace:", 1)[1].splitlines()[0]
            assert line.startswith(f" {sys.executable} -m palace mcp --workspace {fresh}") and "Connected" in line
            # the first session: the hooks create the palace and capture the turn
            prompt = "Are the postgres backups fine?"
            first = claude(["-p", prompt, "--allowedTools", "Bash(true)", "--output-format", "json"],
                           home=home, cwd=project, model_url=model.url)
            assert first.returncode == 0, first.stderr
            session = json.loads(first.stdout)["session_id"]
    finally:
        stop_service(fresh)  # `claude mcp list` runs the session hooks too, which capture into it
    settings = Settings.from_env(workspace_dir=str(fresh), vector_enabled=False)
    with MemoryPalaceManager(str(fresh), settings=settings, embedder=None) as pm:
        [observation] = [m for m in pm.list(type="observation") if m.extra.get("sessionId") == session]
    assert prompt in observation.content and f"Answer: {ANSWER}" in observation.content


def test_the_plugin_folder_recalls_captures_and_connects(tmp_path):
    """The other install docs/integrations.md gives: ``claude --plugin-dir
    integrations/claude-code`` with PALACE_PYTHON and MEMORY_WORKSPACE_DIR in the settings' env."""
    workspace, home, project = tmp_path / "ws", tmp_path / "home", tmp_path / "shop"
    project.mkdir()
    (home / ".claude").mkdir(parents=True)
    settings = Settings.from_env(workspace_dir=str(workspace), vector_enabled=False)
    with MemoryPalaceManager(str(workspace), settings=settings, embedder=None) as pm:
        pm.store("Postgres backups are kept for 14 days in /srv/backups.", type="decision")
    (home / ".claude" / "settings.json").write_text(json.dumps({"env": {
        "PALACE_PYTHON": sys.executable, "MEMORY_WORKSPACE_DIR": str(workspace)}}))
    plugin = ["--plugin-dir", str(HARNESS.parent)]
    prompt = "How long do we keep the postgres backups?"
    try:
        with StubModel(ANSWER, "echo backups-ok") as model:
            done = claude([*plugin, "-p", prompt, "--allowedTools", "Bash(echo:*)", "--output-format", "json"],
                          home=home, cwd=project, model_url=model.url)
            assert done.returncode == 0, done.stderr
            session = json.loads(done.stdout)["session_id"]
            sent = model.sent()
            assert 'UserPromptSubmit hook additional context: <palace-memory kind=\\"context\\"' in sent
            assert "Postgres backups are kept for 14 days in /srv/backups." in sent
            listed = claude([*plugin, "mcp", "list"], home=home, cwd=project, model_url=model.url)
            line = next(x for x in listed.stdout.splitlines() if "palace mcp" in x)
            assert line.startswith("plugin:palace:palace:") and "Connected" in line, listed.stdout
    finally:
        stop_service(workspace)
    with MemoryPalaceManager(str(workspace), settings=settings, embedder=None) as pm:
        [observation] = [m for m in pm.list(type="observation") if m.extra.get("sessionId") == session]
    assert prompt in observation.content and f"Answer: {ANSWER}" in observation.content
