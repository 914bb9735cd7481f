"""Drive the ``palace`` click group in this process with click's CliRunner: the
same parsing, rendering and exit codes as the console script, without paying an
interpreter start per command. A few subprocess smoke tests (tests/cli/test_cli_smoke.py)
keep the real entry points honest."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from conftest import CliResult

from palace.cli import cli as palace_group

NOT_FOUND, BAD_INPUT, BAD_CONFIG = 1, 2, 3


def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # click 8.1; 8.2+ always keeps stderr apart
    except TypeError:
        return CliRunner()


def invoke(*args: str, input: str | bytes | None = None) -> CliResult:
    result = _runner().invoke(palace_group, list(args), input=input, catch_exceptions=False)
    return CliResult(result.exit_code, result.stdout, result.stderr, tuple(args))


def cli_on(workspace: Path):
    """``cli("add", "text", "--json")``: palace against ``workspace``."""

    def run(*args: str, **kwargs) -> CliResult:
        return invoke(*args, "--workspace", str(workspace), **kwargs)

    return run


def assert_failed(result: CliResult, code: int, *needles: str) -> None:
    assert result.rc == code, result
    assert result.stdout == "", result
    assert "Traceback" not in result.stderr, result
    assert result.stderr.startswith("palace: "), result
    for needle in needles:
        assert needle in result.stderr, result
