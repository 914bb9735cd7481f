"""Marks for the tests of issue 12 that were written before their fix: each is an
``xfail(strict=True)`` (so a fix that makes it pass must also remove the mark)."""

from __future__ import annotations

from typing import Any, Iterable

import pytest


def pending(reason: str):
    return pytest.mark.xfail(strict=True, reason=f"issue 12: {reason}")


def cases(values: Iterable[Any], failing: Iterable[Any], reason: str) -> list[Any]:
    """``values`` for parametrize, those in ``failing`` marked pending."""
    failing = list(failing)
    return [pytest.param(v, marks=pending(reason)) if any(v is f or v == f for f in failing) else v
            for v in values]
