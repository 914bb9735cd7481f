#!/usr/bin/env python3
"""End to end through both hosts, on a fresh workspace (docs/integrations.md).

1. a palace sidecar (scripts/vector-service.py) on a temporary workspace;
2. a Claude Code session: its hook payloads, as Claude Code writes them, piped to
   ``python -m palace.integrations.claude_code EVENT``;
3. an OpenClaw session: the plugin driven through OpenClaw's hook runner and its
   tools (integrations/openclaw/scripts/demo-session.mjs; needs the plugin built);
4. a new Claude Code session: what SessionStart and the first prompt get back.

    MEMORY_VECTOR_MODEL=/path/to/model python scripts/integrations_demo.py

Prints every hook's output and how long it took.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from vector_helpers import start_sidecar  # noqa: E402

PLUGIN = REPO / "integrations" / "openclaw"


def hook(event: str, payload: dict, workspace: Path, env: dict) -> str:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "palace.integrations.claude_code", event,
                           "--workspace", str(workspace), "--bootstrap-tokens", "400",
                           "--prompt-tokens", "250"],
                          input=json.dumps(payload), capture_output=True, text=True, env=env, timeout=60)
    took = time.monotonic() - started
    print(f"→ {event} ({took:.2f} s, exit {done.returncode})")
    if done.stdout.strip():
        context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
        print("  additionalContext:\n" + "\n".join("    " + line for line in context.splitlines()))
    for line in done.stderr.splitlines():
        print(f"  stderr: {line}")
    return done.stdout


def claude_payload(session: str, cwd: str, event: str, **fields) -> dict:
    return {"session_id": session, "transcript_path": f"/home/me/.claude/projects/-srv-infra/{session}.jsonl",
            "cwd": cwd, "permission_mode": "default", "hook_event_name": event, **fields}


def main() -> int:
    model = os.environ.get("MEMORY_VECTOR_MODEL")
    if not model:
        print("set MEMORY_VECTOR_MODEL to a local model folder (see docs/integrations.md)", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="palace-demo-"))
    workspace = tmp / "workspace"
    sidecar = start_sidecar(tmp, model, "--workspace", str(workspace), env={"MEMORY_TIMEZONE": "Asia/Shanghai"})
    try:
        sidecar.wait_until_ready()
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
        env.update({"MEMORY_VECTOR_SERVICE_URL": sidecar.url, "MEMORY_VECTOR_MODEL": model,
                    "MEMORY_TIMEZONE": "Asia/Shanghai", "HF_HUB_OFFLINE": "1"})
        print(f"# sidecar {sidecar.url}, workspace {workspace}\n")

        print("## 1. A Claude Code session")
        s1, cwd = "5b0c7d1e-2f4a-4c1b-9e0d-3a6f8b2c4d10", "/srv/infra"
        hook("session-start", claude_payload(s1, cwd, "SessionStart", source="startup"), workspace, env)
        hook("user-prompt-submit", claude_payload(s1, cwd, "UserPromptSubmit",
             prompt="The restore test of the Postgres backup failed: pg_restore says 'invalid archive'. Fix it."),
             workspace, env)
        hook("post-tool-use", claude_payload(s1, cwd, "PostToolUse", tool_name="Bash",
             tool_input={"command": "pg_restore -l /srv/backups/2026-11-29.dump"},
             tool_response={"stdout": "", "stderr": "pg_restore: error: input file appears to be a text "
                            "format dump. Please use psql.", "interrupted": False}), workspace, env)
        hook("post-tool-use", claude_payload(s1, cwd, "PostToolUse", tool_name="Edit",
             tool_input={"file_path": "/srv/infra/backup.sh", "old_string": "pg_dump mydb >",
                         "new_string": "pg_dump --format=custom mydb -f"},
             tool_response={"filePath": "/srv/infra/backup.sh", "success": True}), workspace, env)
        hook("stop", claude_payload(s1, cwd, "Stop", stop_hook_active=False), workspace, env)
        hook("session-end", claude_payload(s1, cwd, "SessionEnd", reason="prompt_input_exit"), workspace, env)

        print("\n## 2. An OpenClaw session")
        started = time.monotonic()
        node = subprocess.run(["node", str(PLUGIN / "scripts" / "demo-session.mjs"), sidecar.url],
                              capture_output=True, text=True, timeout=120, cwd=PLUGIN)
        print(node.stdout.rstrip())
        if node.returncode:
            print(node.stderr.rstrip())
        print(f"(node session: {time.monotonic() - started:.2f} s)")

        print("\n## 3. A new Claude Code session")
        s2 = "9d2e4f60-7a1b-4c3d-8e5f-0a1b2c3d4e5f"
        hook("session-start", claude_payload(s2, cwd, "SessionStart", source="startup"), workspace, env)
        hook("user-prompt-submit", claude_payload(s2, cwd, "UserPromptSubmit",
             prompt="Where do the db-2 backups go now, and how is the dump written?"), workspace, env)
    finally:
        from palace.integrations import hook_client

        hook_client.stop(str(workspace.resolve()))  # the hooks' warm service the first hook started
        sidecar.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
