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


def _readme_public_names() -> list[str]:
    """The names in README's paragraph that starts "Public names (`palace.__all__`):"."""
    import re

    readme = (PACKAGE.parent / "README.md").read_text(encoding="utf-8")
    marker = "Public names (`palace.__all__`):"
    assert marker in readme, "README lost its list of public names"
    paragraph = readme.split(marker, 1)[1].split("\n\n", 1)[0]
    paragraph = paragraph.split("Everything else", 1)[0]
    return re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", paragraph)


def test_the_public_names_are_the_ones_the_readme_documents():
    documented = _readme_public_names()
    assert len(documented) == len(set(documented))
    assert sorted(palace.__all__) == sorted(documented)
    for name in palace.__all__:
        assert hasattr(palace, name), name
