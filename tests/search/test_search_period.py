"""Issue 24: a question asking for everything in a period ("what happened last week",
上周发生了什么) lists the period's memories, newest first, while a question with a real
topic and a period still ranks its topic first, and one about a topic no memory
mentions stays quiet. The cases are held out in tests/data/period_questions.yaml; each
runs on the keyword-only palace the CLI searches and on one with MiniLM vectors, as the
library searches by default."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from palace import MemoryPalaceManager, Settings

pytest_plugins = ["conftest_vectors"]

DATA = yaml.safe_load((Path(__file__).parents[1] / "data" / "period_questions.yaml").read_text(encoding="utf-8"))
NOW = DATA["now"]
CASES = DATA["cases"]
LISTED = "time-only query"          # the note of a period listed newest first
WIDENED = "showing matches from any time"


def half_of(index: int) -> str:
    """The fixed split the data file declares: even place → tune, odd → check."""
    return "tune" if index % 2 == 0 else "check"


def _fill(workspace: Path, **settings: Any) -> MemoryPalaceManager:
    pm = MemoryPalaceManager(workspace, settings=Settings.from_env(
        workspace_dir=str(workspace), timezone="Asia/Shanghai", **settings))
    for memory in DATA["memories"]:
        pm.store(memory["text"], id=memory["id"], created_at=memory["at"])
    return pm


@pytest.fixture(scope="module")
def keyword_palace(tmp_path_factory):
    pm = _fill(tmp_path_factory.mktemp("keyword"), vector_enabled=False)
    yield pm
    pm.close()


@pytest.fixture(scope="module")
def vector_palace(tmp_path_factory, minilm_path):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        pm = _fill(tmp_path_factory.mktemp("vectors"), vector_enabled=True, vector_mode="inprocess",
                   vector_model=minilm_path)
        yield pm
    pm.close()


def failure(case: dict, results: Any) -> str | None:
    """Why the answer to ``case`` is wrong (None: it is right), in the user's terms."""
    ids = [r.memory.id for r in results]
    notes = " | ".join(results.notes)
    strong = [r.memory.id for r in results if r.explanation.confidence == "strong"]
    if case["kind"] == "period":
        if ids != case["expect"] or WIDENED in notes:
            return f"listed {ids}, notes {notes!r}; the period holds {case['expect']} (newest first)"
    elif case["kind"] == "topic":
        if not ids or ids[0] != case["expect"] or LISTED in notes:
            return f"first {ids[:1]}, notes {notes!r}; the topic is {case['expect']!r}"
    elif strong or LISTED in notes:
        return f"strong {strong}, notes {notes!r}; no memory is about this topic"
    return None


def _params() -> list[Any]:
    """One per case, named by its place, half, kind and language; a known miss (its
    ``gap``) is expected to fail, strictly: the day it passes, its mark must go."""
    params = []
    for index, case in enumerate(CASES):
        marks = [pytest.mark.xfail(strict=True, reason=case["gap"])] if case.get("gap") else []
        params.append(pytest.param(index, marks=marks, id=f"{index}-{half_of(index)}-{case['kind']}-{case['lang']}"))
    return params


@pytest.mark.parametrize("index", _params())
def test_keyword_palace_answers_the_period_question(keyword_palace, index):
    case = CASES[index]
    assert failure(case, keyword_palace.search(case["q"], now=NOW)) is None, case["q"]


@pytest.mark.parametrize("index", _params())
def test_vector_palace_answers_the_period_question(vector_palace, index):
    case = CASES[index]
    assert failure(case, vector_palace.search(case["q"], now=NOW)) is None, case["q"]


def test_the_cases_cover_both_languages_and_every_kind_in_both_halves():
    seen = {(half_of(i), c["kind"], c["lang"]) for i, c in enumerate(CASES)}
    for half in ("tune", "check"):
        for kind in ("period", "topic", "absent"):
            assert {(half, kind, "en"), (half, kind, "zh")} <= seen, (half, kind)
    counts = {kind: sum(c["kind"] == kind for c in CASES) for kind in ("period", "topic", "absent")}
    assert counts["period"] >= 16 and counts["topic"] >= 8 and counts["absent"] >= 4
