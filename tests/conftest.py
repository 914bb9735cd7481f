"""Shared fixtures for the core tests: isolated environment, real workspaces, the CLI.

Every test runs with no ``MEMORY_*`` variable inherited from the machine, with
vectors off (core tests never load a model; vector tests turn them on
explicitly), in a fixed time zone, and with the current directory inside
``tmp_path`` so that a bug that ignores the workspace cannot write into the
checkout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from palace.manager import MemoryPalaceManager
from palace.settings import Settings

TIMEZONE = "Asia/Shanghai"

# Property tests: random examples on a developer's machine (new cases get found),
# a fixed sequence in CI (HYPOTHESIS_PROFILE=ci, set by .ci/run) so that a run is
# repeatable; "thorough" for a long hunt before a release.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("ci", derandomize=True, deadline=None)
_hypothesis_settings.register_profile("thorough", max_examples=1000, deadline=None)
_hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch, tmp_path):
    """No MEMORY_* setting leaks in from the machine; vectors are off by default."""
    for name in list(os.environ):
        if name.startswith("MEMORY_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("MEMORY_VECTOR_ENABLED", "false")
    monkeypatch.setenv("MEMORY_TIMEZONE", TIMEZONE)
    # Time reasoning and concept expansion stay on (their defaults): a feature that is
    # broken must fail the suite, not be switched off quietly.
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    yield


@pytest.fixture
def workspace(tmp_path) -> Path:
    return tmp_path / "ws"


@pytest.fixture
def palace_root(workspace) -> Path:
    return workspace / "memory" / "palace"


@pytest.fixture
def make_pm(workspace):
    """Open (fresh) managers on the workspace; all are closed at the end."""
    opened: list[MemoryPalaceManager] = []

    def make(ws: Path | None = None, **kwargs: Any) -> MemoryPalaceManager:
        pm = MemoryPalaceManager(ws if ws is not None else workspace, **kwargs)
        opened.append(pm)
        return pm

    yield make
    for pm in opened:
        try:
            pm.close()
        except Exception:
            pass


@pytest.fixture
def pm(make_pm) -> MemoryPalaceManager:
    return make_pm()


def settings(**overrides: Any) -> Settings:
    return Settings.from_env(**overrides)


def no_hang(fn, *args: Any, timeout: float = 15.0, **kwargs: Any) -> Any:
    """Call ``fn`` in a daemon thread and fail (instead of hanging the suite) when it
    has not returned after ``timeout`` seconds: a deadlock becomes a test failure."""
    import threading

    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # re-raised in the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise AssertionError(f"{getattr(fn, '__qualname__', fn)} did not return within "
                             f"{timeout} s (deadlock?)")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


# --------------------------------------------------------------------------- files

def memory_files(root: Path) -> list[Path]:
    """Every memory file in the rooms (palace's own dot-folders excluded)."""
    return sorted(p for p in root.rglob("*.md")
                  if not any(part.startswith(".") for part in p.relative_to(root).parts))


def stray_files(root: Path) -> list[Path]:
    """Temp files an interrupted or sloppy write would leave behind."""
    return sorted(p for p in root.rglob("*") if p.is_file() and (p.name.endswith(".tmp")
                                                                 or ".tmp" in p.suffixes))


def write_file(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- the CLI

@dataclass
class CliResult:
    rc: int
    stdout: str
    stderr: str
    args: tuple[str, ...]

    def json(self) -> Any:
        assert self.rc == 0, f"palace {' '.join(self.args)} failed ({self.rc}): {self.stderr}"
        return json.loads(self.stdout)

    def __repr__(self) -> str:  # readable assertion failures
        return f"CliResult(rc={self.rc}, stdout={self.stdout[-2000:]!r}, stderr={self.stderr[-2000:]!r})"


def run_palace(*args: str, input: str | bytes | None = None, env: dict[str, str] | None = None,
               cwd: Path | str | None = None, timeout: float = 60.0) -> CliResult:
    """Run ``python -m palace.cli ARGS`` in a real subprocess, as a user would."""
    data = input.encode("utf-8") if isinstance(input, str) else input
    proc = subprocess.run([sys.executable, "-m", "palace.cli", *args], input=data,
                          capture_output=True, env=dict(os.environ if env is None else env),
                          cwd=str(cwd) if cwd is not None else None, timeout=timeout)
    return CliResult(proc.returncode, proc.stdout.decode("utf-8", "replace"),
                     proc.stderr.decode("utf-8", "replace"), tuple(args))


@pytest.fixture
def cli(workspace):
    """``cli("add", "text", "--json")`` runs palace against the test workspace."""

    def run(*args: str, **kwargs: Any) -> CliResult:
        return run_palace(*args, "--workspace", str(workspace), **kwargs)

    return run
