"""Helpers for the capture tests: a click group with the capture commands, fixture paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from click.testing import CliRunner

from palace.capture.cli import COMMANDS

DATA = Path(__file__).parent / "data" / "capture"
CLAUDE_SESSION = DATA / "claude_code_session.jsonl"
CLAUDE_HOOKS = DATA / "claude_code_hooks.jsonl"
OPENCLAW_SESSION = DATA / "openclaw_session.jsonl"
OPENCLAW_HOOKS = DATA / "openclaw_hooks.jsonl"
KIMI_WIRE = DATA / "kimi" / "0f3c2a9e-6b1d-4c5e-9a8f-2d7e1b4c6a30" / "wire.jsonl"
MESSAGES = DATA / "messages.jsonl"


@click.group()
def palace_group() -> None:
    """The capture commands, as the main ``palace`` group will carry them."""


for _command in COMMANDS:
    palace_group.add_command(_command)


def invoke(*args: str, input: str | bytes | None = None, env: dict[str, str] | None = None):
    runner = CliRunner()
    return runner.invoke(palace_group, list(args), input=input, env=env, catch_exceptions=False)


def invoke_json(*args: str, input: str | bytes | None = None) -> Any:
    result = invoke(*args, "--json", input=input)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
