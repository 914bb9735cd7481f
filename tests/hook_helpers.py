"""Claude Code hooks as Claude Code runs them, and the warm services they start: every
test that lets a hook start one stops it and checks, in /proc, that no palace hook
process of its workspace is left."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from palace.integrations import hook_client

HOOK = [sys.executable, "-m", "palace.integrations.claude_code"]
SESSION = "6f1c9a52-4b7e-4d0e-9a51-0c2f3e5d7b11"


def hook_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update({"MEMORY_VECTOR_ENABLED": "false", "MEMORY_TIMEZONE": "Asia/Shanghai", **extra})
    return env


def payload(event: str, tmp_path: Path, **fields) -> dict:
    """A payload shaped like Claude Code's (common fields plus the event's own)."""
    return {"session_id": SESSION, "transcript_path": str(tmp_path / f"{SESSION}.jsonl"),
            "cwd": str(tmp_path / "project"), "permission_mode": "default",
            "hook_event_name": event, **fields}


def run_hook(event: str, workspace, data, *extra: str, service: bool = False, timeout: float = 60,
             env: dict[str, str] | None = None):
    """One hook command, payload on stdin. ``service``: as installed (the warm service,
    started when none runs); else ``--no-service`` (the direct path)."""
    stdin = data if isinstance(data, (bytes, str)) else json.dumps(data)
    flags = [] if service else ["--no-service"]
    started = time.monotonic()
    done = subprocess.run([*HOOK, event, "--workspace", str(workspace), *extra, *flags], input=stdin,
                          capture_output=True, text=True, env=env or hook_env(), timeout=timeout)
    done.seconds = time.monotonic() - started
    return done


def hook_processes(workspace) -> list[int]:
    """Pids of live palace hook processes (the service, or a hook) naming this workspace."""
    needle = str(Path(workspace).resolve())
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if "palace.integrations" in cmdline and needle in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def wait_until(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def stop_service(workspace, seconds: float = 20.0) -> None:
    """Stop the workspace's service (it stores what waits first) and insist nothing is left.
    A hook still running (a host may exit before its last hook does) can start a service
    again after the stop: stopped too."""
    deadline = time.monotonic() + seconds
    while True:
        hook_client.stop(str(Path(workspace).resolve()))
        if wait_until(lambda: not hook_processes(workspace), 2):
            return
        assert time.monotonic() < deadline, f"palace hook processes left behind: {hook_processes(workspace)}"


def additional_context(done, event: str) -> str:
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)
    assert output["hookSpecificOutput"]["hookEventName"] == event
    return output["hookSpecificOutput"]["additionalContext"]
