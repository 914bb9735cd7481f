"""A new user's first steps, as the README tells them: the demo's closing hint works as
printed in a shell that never activated .venv, and the README's list of commands that
create a palace is what the commands do."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from cli_helpers import invoke

REPO = Path(__file__).resolve().parents[2]


def _plain_env() -> dict[str, str]:
    """A user's shell: no virtual environment on PATH, no MEMORY_* settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_", "VIRTUAL_ENV"))}
    return env | {"PATH": "/usr/bin:/bin", "MEMORY_VECTOR_ENABLED": "false"}


def test_the_demo_hint_runs_as_printed_without_activating_the_venv(tmp_path):
    env = _plain_env()
    demo = subprocess.run([sys.executable, str(REPO / "scripts" / "demo.py"), "--workspace",
                           "demo-workspace"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert demo.returncode == 0, demo.stderr
    hint = demo.stdout.rsplit("try:", 1)[1].strip().splitlines()[0]  # on its line or the next
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    listed = subprocess.run(["bash", "-c", hint], cwd=elsewhere, env=env, capture_output=True,
                            text=True, timeout=120)
    assert listed.returncode == 0, (hint, listed.stderr)
    assert "PostgreSQL" in listed.stdout and "Vue 3" in listed.stdout, listed.stdout


def _readme_creators() -> set[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    sentence = re.search(r"Only ((?:`[a-z]+`(?:, | and )?)+) create a palace", readme)
    assert sentence, "README lost its list of the commands that create a palace"
    return set(re.findall(r"`([a-z]+)`", sentence.group(1)))


def test_the_readme_names_the_commands_that_create_a_palace(tmp_path):
    source = tmp_path / "export"
    invoke("add", "an exported memory", "-w", str(tmp_path / "old"))
    assert invoke("export", str(source), "-w", str(tmp_path / "old")).rc == 0
    runs = {"init": ["init"], "add": ["add", "a first memory"], "import": ["import", str(source)],
            "list": ["list"], "search": ["search", "memory"], "stats": ["stats"],
            "export": ["export", str(tmp_path / "out")]}
    created = set()
    for name, args in runs.items():
        workspace = tmp_path / f"fresh-{name}"
        workspace.mkdir()
        invoke(*args, "-w", str(workspace))
        if (workspace / "memory" / "palace").is_dir():
            created.add(name)
    assert created == _readme_creators() & set(runs), created
