"""``palace install claude-code`` / ``palace install openclaw`` on a fake home folder:
what they write, that they keep the user's own settings and a backup, that a second
install changes nothing, that the installed hook command really runs, and that
--uninstall gives back the files as they were."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hook_helpers import stop_service

from palace.integrations import install as install_module
from palace.integrations.install import COMMANDS, default_plugin_dir
from palace.manager import MemoryPalaceManager
from palace.settings import Settings

install = COMMANDS[0]

USER_SETTINGS = {
    "model": "opus",
    "env": {"FOO": "bar"},
    "hooks": {"PostToolUse": [{"matcher": "Write|Edit",
                               "hooks": [{"type": "command", "command": "prettier --write \"$FILE\""}]}]},
}
USER_STATE = {"numStartups": 12, "mcpServers": {"github": {"type": "stdio", "command": "gh-mcp", "args": []}}}


def invoke(*args: str, env: dict | None = None, input: str | None = None):
    runner = CliRunner()
    clean = {k: None for k in os.environ
             if k.startswith("MEMORY_") or k in ("OPENCLAW_CONFIG_PATH", "OPENCLAW_STATE_DIR")}
    return runner.invoke(install, list(args), env={**clean, **(env or {})}, input=input, catch_exceptions=False)


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps(USER_SETTINGS, indent=2))
    (home / ".claude.json").write_text(json.dumps(USER_STATE))
    return home


def read(path: Path):
    return json.loads(path.read_text())


def test_claude_code_install_adds_hooks_and_the_mcp_server_keeping_the_rest(home, tmp_path):
    workspace = tmp_path / "ws"
    done = invoke("claude-code", "--config-dir", str(home), "--workspace", str(workspace))
    assert done.exit_code == 0, done.output
    assert "Installed palace for claude-code" in done.output and "backup" in done.output

    settings = read(home / ".claude" / "settings.json")
    assert settings["model"] == "opus" and settings["env"] == {"FOO": "bar"}
    assert set(settings["hooks"]) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure",
                                      "PreCompact", "Stop", "SessionEnd"}
    failure = settings["hooks"]["PostToolUseFailure"][0]
    assert failure["matcher"] == "*" and " post-tool-use-failure " in failure["hooks"][0]["command"]
    post = settings["hooks"]["PostToolUse"]
    assert post[0]["hooks"][0]["command"] == 'prettier --write "$FILE"'  # the user's own hook, first
    ours = post[1]
    assert ours["matcher"] == "*"
    assert ours["hooks"][0]["command"].startswith(f"{sys.executable} -m palace.integrations.claude_code post-tool-use")
    assert f"--workspace {workspace}" in ours["hooks"][0]["command"]
    assert ours["hooks"][0]["timeout"] == 10

    state = read(home / ".claude.json")
    assert state["numStartups"] == 12 and "github" in state["mcpServers"]
    # `palace mcp`, run by that Python (`python -m palace` is the `palace` command)
    assert state["mcpServers"]["palace"] == {"type": "stdio", "command": sys.executable,
                                             "args": ["-m", "palace", "mcp", "--workspace", str(workspace)],
                                             "env": {}}
    assert f"warning: {workspace} holds no palace yet" in done.output
    backups = sorted(p.name for p in (home / ".claude").iterdir() if ".palace-backup-" in p.name)
    assert len(backups) == 1
    assert read(home / ".claude" / backups[0]) == USER_SETTINGS

    again = invoke("claude-code", "--config-dir", str(home), "--workspace", str(workspace), "--json")
    report = json.loads(again.output)
    assert {c["action"] for c in report["changes"]} == {"unchanged"}


def test_the_installed_session_start_command_runs_and_answers_with_context(home, tmp_path):
    workspace = tmp_path / "ws"
    settings = Settings.from_env(workspace_dir=str(workspace), vector_enabled=False)
    with MemoryPalaceManager(str(workspace), settings=settings, embedder=None) as pm:
        pm.store("Deploy on Fridays is forbidden.", type="decision")
        pm.store("Session 2026-11-30: moved the deploy to Thursday.", type="session")
    invoke("claude-code", "--config-dir", str(home), "--workspace", str(workspace))
    command = read(home / ".claude" / "settings.json")["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env["MEMORY_VECTOR_ENABLED"] = "false"
    payload = {"session_id": "s1", "transcript_path": "/tmp/s1.jsonl", "cwd": str(tmp_path),
               "hook_event_name": "SessionStart", "source": "startup"}
    try:  # as installed, it starts the workspace's warm service
        done = subprocess.run(command + " --no-capture", shell=True, input=json.dumps(payload), text=True,
                              capture_output=True, env=env, timeout=60)
    finally:
        stop_service(workspace)
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "moved the deploy to Thursday" in context


def test_claude_code_install_on_a_workspace_with_a_palace_warns_of_nothing(home, tmp_path):
    workspace = tmp_path / "ws"
    settings = Settings.from_env(workspace_dir=str(workspace), vector_enabled=False)
    MemoryPalaceManager(str(workspace), settings=settings, embedder=None).close()
    done = invoke("claude-code", "--config-dir", str(home), "--workspace", str(workspace))
    assert done.exit_code == 0 and "warning" not in done.output, done.output


def test_claude_code_uninstall_gives_back_the_files_as_they_were(home, tmp_path):
    invoke("claude-code", "--config-dir", str(home), "--workspace", str(tmp_path / "ws"))
    done = invoke("claude-code", "--config-dir", str(home), "--uninstall")
    assert done.exit_code == 0, done.output
    assert "remove" in done.output and "MCP server palace" in done.output
    assert read(home / ".claude" / "settings.json") == USER_SETTINGS
    assert read(home / ".claude.json") == USER_STATE


def test_doctor_speaks_of_the_hook_service_only_where_the_hooks_are_installed(home, tmp_path, monkeypatch):
    from cli_helpers import invoke as palace

    workspace, other = tmp_path / "ws", tmp_path / "other"
    for folder in (workspace, other):
        MemoryPalaceManager(str(folder), settings=Settings.from_env(workspace_dir=str(folder),
                            vector_enabled=False), embedder=None).close()
    monkeypatch.setenv("HOME", str(home))  # palace doctor reads ~/.claude/settings.json
    before = palace("doctor", "--workspace", str(workspace))
    assert before.rc == 0 and "hook service" not in before.stdout, before
    assert palace("--json", "doctor", "--workspace", str(workspace)).json()["hook_service"]["hooks_installed"] is False
    invoke("claude-code", "--config-dir", str(home), "--workspace", str(workspace))
    after = palace("doctor", "--workspace", str(workspace))
    assert "Claude Code hook service: not running (the next hook starts it)" in after.stdout, after
    elsewhere = palace("doctor", "--workspace", str(other))  # the hooks serve another workspace
    assert elsewhere.rc == 0 and "hook service" not in elsewhere.stdout, elsewhere


def test_claude_code_install_on_an_empty_home_creates_the_files(tmp_path):
    home = tmp_path / "empty-home"
    done = invoke("claude-code", "--config-dir", str(home), "--workspace", str(tmp_path / "ws"))
    assert done.exit_code == 0, done.output
    assert len(read(home / ".claude" / "settings.json")["hooks"]) == 7
    invoke("claude-code", "--config-dir", str(home), "--uninstall")
    # what install created, uninstall removes: no `{}` left behind, no backup of it
    assert not (home / ".claude" / "settings.json").exists() and not (home / ".claude.json").exists()
    assert [p.name for p in home.rglob("*") if p.is_file()] == []


def test_install_keeps_a_private_config_file_private(home, tmp_path):
    # ~/.claude.json holds the user's account state: Claude Code keeps it owner-only, and a
    # rewrite must not widen it to the umask's 0644
    (home / ".claude.json").chmod(0o600)
    (home / ".claude" / "settings.json").chmod(0o640)
    old = os.umask(0o022)
    try:
        done = invoke("claude-code", "--config-dir", str(home), "--workspace", str(tmp_path / "ws"))
    finally:
        os.umask(old)
    assert done.exit_code == 0, done.output
    assert "palace" in read(home / ".claude.json")["mcpServers"]
    assert oct((home / ".claude.json").stat().st_mode & 0o777) == "0o600"
    assert oct((home / ".claude" / "settings.json").stat().st_mode & 0o777) == "0o640"
    assert not [p for p in home.rglob(".*tmp")]  # nothing half-written left beside them


def test_install_keeps_the_newest_three_backups_of_each_file(home, tmp_path):
    for n in range(6):  # each install changes both files (another workspace): a backup each
        invoke("claude-code", "--config-dir", str(home), "--workspace", str(tmp_path / f"ws{n}"))
    for name in (".claude.json", ".claude/settings.json"):
        backups = sorted(home.glob(f"{name}.palace-backup-*"))
        assert len(backups) == 3, backups
        # the newest three states before each change, none overwritten by another
        assert [f"ws{n}" in b.read_text() for b in backups for n in (2, 3, 4)] == [
            True, False, False, False, True, False, False, False, True]


def test_install_needs_a_workspace_and_refuses_files_it_cannot_read_exactly(home, tmp_path):
    missing = invoke("claude-code", "--config-dir", str(home))
    assert missing.exit_code == 2 and "--workspace" in missing.output
    commented = '{\n  // my settings\n  "model": "opus",\n}\n'
    (home / ".claude" / "settings.json").write_text(commented)
    refused = invoke("claude-code", "--config-dir", str(home), "--workspace", str(tmp_path / "ws"))
    assert refused.exit_code == 3
    assert "is not plain JSON" in refused.output
    assert (home / ".claude" / "settings.json").read_text() == commented  # untouched


@pytest.fixture
def plugin_dir(tmp_path):
    """The OpenClaw plugin as built in integrations/openclaw, or (when node has not
    built it here) its manifest plus an entry file, which is all install looks at."""
    real = default_plugin_dir()
    if (real / "dist" / "index.js").is_file():
        return real
    copy = tmp_path / "openclaw-plugin"
    (copy / "dist").mkdir(parents=True)
    shutil.copy(real / "openclaw.plugin.json", copy / "openclaw.plugin.json")
    (copy / "dist" / "index.js").write_text("// built by integrations/openclaw/test.sh\n")
    return copy


OPENCLAW_CONFIG = {
    "agents": {"defaults": {"model": "anthropic/claude-sonnet-4-6"}},
    "plugins": {"allow": ["telegram"], "slots": {"memory": "memory-lancedb"},
                "entries": {"telegram": {"enabled": True},
                            "memory-core": {"config": {"dreaming": {"frequency": "0 4 * * *"}}}}},
}


def test_openclaw_install_takes_the_memory_slot_and_uninstall_restores_it(tmp_path, plugin_dir):
    home = tmp_path / "home"
    config_path = home / ".openclaw" / "openclaw.json"
    config_path.parent.mkdir(parents=True)
    config_path.write_text(json.dumps(OPENCLAW_CONFIG))

    done = invoke("openclaw", "--config-dir", str(home), "--workspace", str(tmp_path / "ws"),
                  "--plugin-dir", str(plugin_dir), "--url", "http://127.0.0.1:9876", "--token", "s3cret",
                  "--allow-conversation-access")
    assert done.exit_code == 0, done.output
    assert "plugins.slots.memory: palace (was memory-lancedb)" in done.output
    assert "hooks.allowConversationAccess: true" in done.output
    assert "vector-service.py --workspace" in done.output
    assert "memory-core is disabled" in done.output and "openclaw plugins install --link" in done.output
    config = read(config_path)
    plugins = config["plugins"]
    assert config["agents"] == OPENCLAW_CONFIG["agents"]
    assert plugins["slots"]["memory"] == "palace"
    assert plugins["load"]["paths"] == [str(plugin_dir.resolve())]
    assert plugins["entries"]["palace"] == {"enabled": True, "hooks": {"allowConversationAccess": True},
                                           "config": {"url": "http://127.0.0.1:9876", "token": "s3cret"}}
    # memory-core would load as the slot's dreaming companion, its memory tools clashing
    assert plugins["entries"]["memory-core"] == {"enabled": False,
                                                 "config": {"dreaming": {"frequency": "0 4 * * *"}}}
    assert plugins["entries"]["telegram"] == {"enabled": True}
    assert plugins["allow"] == ["telegram", "palace"]
    assert any(".palace-backup-" in p.name for p in config_path.parent.iterdir())

    again = invoke("openclaw", "--config-dir", str(home), "--workspace", str(tmp_path / "ws"),
                   "--plugin-dir", str(plugin_dir), "--url", "http://127.0.0.1:9876", "--token", "s3cret",
                   "--allow-conversation-access", "--json")
    assert {c["action"] for c in json.loads(again.output)["changes"]} == {"unchanged"}

    undone = invoke("openclaw", "--config-dir", str(home), "--uninstall")
    assert undone.exit_code == 0, undone.output
    assert read(config_path) == OPENCLAW_CONFIG
    assert not (config_path.parent / "palace-install.json").exists()


def test_openclaw_install_refuses_an_unbuilt_plugin(tmp_path):
    unbuilt = tmp_path / "plugin"
    unbuilt.mkdir()
    done = invoke("openclaw", "--config-dir", str(tmp_path / "home"), "--workspace", str(tmp_path / "ws"),
                  "--plugin-dir", str(unbuilt))
    assert done.exit_code == 3 and "build the plugin first" in done.output
    assert not (tmp_path / "home" / ".openclaw" / "openclaw.json").exists()


def test_openclaw_config_path_comes_from_openclaw_config_path(tmp_path, plugin_dir):
    config_path = tmp_path / "elsewhere" / "oc.json"
    done = invoke("openclaw", "--workspace", str(tmp_path / "ws"), "--plugin-dir", str(plugin_dir),
                  env={"OPENCLAW_CONFIG_PATH": str(config_path), "HOME": str(tmp_path / "home")})
    assert done.exit_code == 0, done.output
    assert read(config_path)["plugins"]["slots"]["memory"] == "palace"


def test_openclaw_conversation_access_is_asked_on_a_terminal_and_said_when_not_given(tmp_path, plugin_dir,
                                                                                     monkeypatch):
    """Without a terminal and without the flag the consent is not given, and install says
    what that costs; on a terminal install explains it and asks."""
    home = tmp_path / "home"
    config_path = home / ".openclaw" / "openclaw.json"
    args = ["openclaw", "--config-dir", str(home), "--workspace", str(tmp_path / "ws"),
            "--plugin-dir", str(plugin_dir)]
    quiet = invoke(*args)
    assert quiet.exit_code == 0, quiet.output
    assert "hooks" not in read(config_path)["plugins"]["entries"]["palace"]
    assert "recall and end-of-turn capture stay off" in quiet.output
    assert "--allow-conversation-access" in quiet.output

    monkeypatch.setattr(install_module, "_interactive", lambda: True)
    declined = invoke(*args, input="n\n")
    assert declined.exit_code == 0, declined.output
    assert "allowConversationAccess" in declined.output and "before_prompt_build" in declined.output
    assert "hooks" not in read(config_path)["plugins"]["entries"]["palace"]
    accepted = invoke(*args, input="\n")  # the default is yes
    assert accepted.exit_code == 0, accepted.output
    assert read(config_path)["plugins"]["entries"]["palace"]["hooks"] == {"allowConversationAccess": True}
    assert "recall and end-of-turn capture stay off" not in accepted.output
    # asked no more once given: a later quiet install keeps it
    assert "stay off" not in invoke(*args).output
    assert read(config_path)["plugins"]["entries"]["palace"]["hooks"] == {"allowConversationAccess": True}
    undone = invoke("openclaw", "--config-dir", str(home), "--uninstall")
    assert undone.exit_code == 0, undone.output
    assert not config_path.exists()  # install made it; emptied, it goes


def test_openclaw_config_lies_in_openclaw_state_dir(tmp_path, plugin_dir):
    state = tmp_path / "state"
    done = invoke("openclaw", "--workspace", str(tmp_path / "ws"), "--plugin-dir", str(plugin_dir),
                  env={"OPENCLAW_STATE_DIR": str(state), "HOME": str(tmp_path / "home")})
    assert done.exit_code == 0, done.output
    assert read(state / "openclaw.json")["plugins"]["slots"]["memory"] == "palace"
    assert (state / "palace-install.json").is_file()
