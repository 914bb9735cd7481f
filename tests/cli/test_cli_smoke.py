"""The real entry points as subprocesses, the way people and agents start them: the
installed ``palace`` script, ``python -m palace``, no torch on import, and what a
command waiting on a terminal says. Everything else is tested in-process
(tests/test_cli_*.py with click's CliRunner)."""

from __future__ import annotations

import json
import os
import re
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import invoke

COMMANDS = ("init", "add", "get", "list", "search", "update", "delete", "restore", "trash",
            "reindex", "sync", "stats", "config", "decay", "doctor", "export", "import", "postgres", "agent", "experience", "context",
            "bootstrap", "essence", "summary", "entity", "history", "review", "recall", "tags", "persona",
            "task", "capture", "ingest", "timeline", "theme", "tasks", "mcp", "sidecar", "serve", "install")


def _modules_after(argv, env_changes=None):
    code = ("import sys\nfrom palace.cli import main\n"
            f"rc = main({argv!r})\n"
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('torch', 'sentence_transformers', 'transformers', 'fastapi', 'mcp'))\n"
            "print('RESULT', rc, heavy)\n")
    env = dict(os.environ)
    for key, value in (env_changes or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=60)
    line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT")]
    assert line, proc.stderr
    return line[-1]


def test_python_dash_m_palace_lists_every_command_and_imports_nothing_heavy():
    proc = subprocess.run([sys.executable, "-m", "palace", "--help"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    listed = [line.split()[0] for line in proc.stdout.split("Commands:")[1].splitlines() if line.strip()]
    assert listed == list(COMMANDS)
    assert _modules_after(["--help"]) == "RESULT 0 []"


def test_the_readme_command_list_names_every_command():
    """The README's "Command line" block is where a new user looks first: a command
    missing there is a command nobody finds."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Command line", 1)[1].split("palace --workspace", 1)[0]
    named = set(re.findall(r"[a-z]+", block))
    missing = [c for c in COMMANDS if c not in named]
    assert missing in ([], ["tasks"]), missing  # `tasks` is `task`'s older name


def test_keyword_search_imports_no_torch_even_with_vectors_enabled(workspace):
    invoke("add", "torch-free search about kubernetes", "-w", str(workspace))
    line = _modules_after(["search", "kubernetes", "--workspace", str(workspace)],
                          {"MEMORY_VECTOR_ENABLED": None})  # the default: enabled, no sidecar
    assert line == "RESULT 0 []"


def test_installed_palace_script_runs_and_exits_with_the_documented_codes(workspace, tmp_path):
    script = Path(sys.executable).parent / "palace"
    assert script.is_file(), "the `palace` console script is not installed next to python"
    proc = subprocess.run([str(script), "add", "via the console script", "--workspace",
                           str(workspace), "--json"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    stored = json.loads(proc.stdout)
    assert stored["content"] == "via the console script"
    missing = subprocess.run([str(script), "get", "nope", "-w", str(workspace)],
                             capture_output=True, text=True, timeout=60)
    assert (missing.returncode, missing.stdout) == (1, "")
    assert missing.stderr.startswith("palace: no memory with id 'nope'")
    no_folder = subprocess.run([str(script), "-w", "/etc/passwd", "list"], capture_output=True,
                               text=True, timeout=60)
    assert no_folder.returncode == 2 and "is not a folder" in no_folder.stderr
    assert "Traceback" not in no_folder.stderr
    usage = subprocess.run([str(script), "list", "--no-such-flag", "-w", str(workspace)],
                           capture_output=True, text=True, timeout=60)
    assert usage.returncode == 2 and "no-such-flag" in usage.stderr


def _read_stderr_line(proc: subprocess.Popen, timeout: float = 30.0) -> str:
    ready, _, _ = select.select([proc.stderr], [], [], timeout)
    assert ready, "nothing on stderr: the command waits silently"
    return proc.stderr.readline().decode("utf-8", "replace")


def test_add_on_a_terminal_says_it_reads_stdin(workspace):
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "palace", "add", "-w", str(workspace), "--json"],
                            stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(slave)
    try:
        assert "reading memory text from stdin; end with Ctrl-D" in _read_stderr_line(proc)
        os.write(master, "typed at a terminal 终端\n".encode("utf-8"))
        os.write(master, b"\x04")  # Ctrl-D on an empty line: end of input
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        os.close(master)
    assert proc.returncode == 0, err
    assert json.loads(out)["content"] == "typed at a terminal 终端"


def test_mcp_without_the_sdk_says_how_to_install_it(workspace):
    """Without the mcp extra there is no pydantic either: the server says what to install
    (configuration, exit 3) before it imports the tools, not a traceback."""
    assert invoke("init", "-w", str(workspace)).rc == 0
    code = ("import sys\nsys.modules['mcp'] = sys.modules['pydantic'] = None  # not installed\n"
            "from palace.cli import main\n"
            f"sys.exit(main(['mcp', '-w', {str(workspace)!r}]))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 3, proc.stderr
    assert "pip install 'palace-memory[mcp]'" in proc.stderr and "Traceback" not in proc.stderr


def test_mcp_on_a_terminal_says_what_it_waits_for(workspace):
    pytest.importorskip("mcp", reason="pip install 'palace-memory[mcp]'")
    assert invoke("init", "-w", str(workspace)).rc == 0
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "palace", "mcp", "-w", str(workspace)],
                            stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(slave)
    try:
        line = _read_stderr_line(proc)
        assert "serving MCP" in line and "an agent's MCP client starts this command" in line
        assert proc.poll() is None  # still serving
    finally:
        proc.kill()
        proc.wait(timeout=30)
        os.close(master)
