"""``serve``: the click command (in a small group, as the main ``palace`` group will
hold it) and a real process serving a real workspace."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import click
import httpx
from click.testing import CliRunner

from palace.manager import MemoryPalaceManager
from palace.viewer.cli import COMMANDS


@click.group()
def palace_group():
    """Stands in for the main palace group."""


for command in COMMANDS:
    palace_group.add_command(command)


def test_serve_is_offered_with_its_options():
    result = CliRunner().invoke(palace_group, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--workspace", "-w", "--host", "--port", "--token", "MEMORY_VIEWER_TOKEN"):
        assert option in result.output


def test_serve_refuses_a_public_address_without_a_token(tmp_path):
    result = CliRunner().invoke(palace_group, ["serve", "-w", str(tmp_path), "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "refusing to serve the viewer on 0.0.0.0" in result.output
    assert not (tmp_path / "memory").exists()  # refused before opening anything


def test_serve_rejects_a_bad_port(tmp_path):
    result = CliRunner().invoke(palace_group, ["serve", "-w", str(tmp_path), "--port", "70000"])
    assert result.exit_code == 2


def test_serve_in_a_real_process(workspace):
    pm = MemoryPalaceManager(workspace)
    memory = pm.store("served by a real process", location="projects")
    pm.close()
    env = {**os.environ, "MEMORY_WORKSPACE_DIR": str(workspace), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-c", "from palace.viewer.cli import serve; serve()", "--port", "0"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()  # printed once the socket is bound
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, (line, process.stderr.read() if process.poll() is not None else "")
        url = match.group(0)
        page = httpx.get(url, timeout=10)
        assert page.status_code == 200 and "served by a real process" in page.text
        assert re.search(r"projects</a>\s*<span class=\"count\">1</span>", page.text)
        one = httpx.get(f"{url}memories/{memory.id}", timeout=10)
        assert one.status_code == 200 and 'class="chart decay-curve"' in one.text
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    assert process.returncode is not None
