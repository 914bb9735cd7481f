"""The package as others see it: its version, its type information, its public names."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import palace

PACKAGE = Path(palace.__file__).resolve().parent


def test_the_version_is_the_installed_distributions():
    assert palace.__version__ == importlib.metadata.version("palace-memory")


def test_the_package_says_it_is_typed():
    """PEP 561: type checkers read palace's annotations only when py.typed ships with it."""
    assert (PACKAGE / "py.typed").is_file()
    pyproject = (PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert '"py.typed"' in pyproject
