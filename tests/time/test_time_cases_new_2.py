"""The second held-out batch of time cases (issue 11) is well formed.

This checks the data only: palace's TimeReasoner is scored on it by scripts/bench_time.py,
not here, so that the batch stays held out.
"""
from __future__ import annotations

import importlib.util
import re
from datetime import datetime
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "data" / "time_cases_new_2.yaml"
GENERATOR = ROOT / "scripts" / "data" / "make_time_cases_new_2.py"
STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}( \d{2}:\d{2})?$")


def _load() -> dict:
    return yaml.safe_load(CASES.read_text(encoding="utf-8"))


def _parse(stamp: str) -> datetime:
    assert STAMP.match(stamp), stamp
    return datetime.fromisoformat(stamp)


def test_the_batch_has_enough_cases_of_each_sort():
    data = _load()
    cases = data["cases"]
    assert len(cases) >= 120
    assert sum(1 for c in cases if c.get("none")) >= 20
    langs = {c["lang"] for c in cases}
    assert langs == {"zh", "en", "mixed"}


def test_every_case_has_its_fields_and_a_forward_range():
    data = _load()
    nows = {k: _parse(v) for k, v in data["nows"].items()}
    seen = set()
    for c in data["cases"]:
        assert isinstance(c["q"], str) and c["q"].strip(), c
        assert c["q"] not in seen, f"duplicate query {c['q']!r}"
        seen.add(c["q"])
        assert c["now"] in nows, c
        assert c["lang"] in ("zh", "en", "mixed"), c
        if c.get("none"):
            assert "start" not in c and "end" not in c, c
            continue
        start, end = _parse(c["start"]), _parse(c["end"])
        assert start < end, c
        if c.get("past", True):
            assert start <= nows[c["now"]], f"{c['q']!r} starts after its now but is not past: false"


def test_writer_chosen_cases_name_a_convention_listed_in_the_header():
    text = CASES.read_text(encoding="utf-8")
    header = text.split("\nnows:", 1)[0]
    listed = set(re.findall(r"^#\s+(C\d+)\s", header, flags=re.M))
    used = set(re.findall(r"# chosen: (C\d+)$", text, flags=re.M))
    assert used and used <= listed, used - listed


def test_the_file_is_what_its_generator_writes():
    spec = importlib.util.spec_from_file_location("make_time_cases_new_2", GENERATOR)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.render() == CASES.read_text(encoding="utf-8"), (
        "tests/data/time_cases_new_2.yaml is stale: run scripts/data/make_time_cases_new_2.py")
