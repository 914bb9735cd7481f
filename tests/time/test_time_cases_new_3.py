"""Issue 27's held-out time cases (five kinds palace missed) are well formed.

The data only: scripts/bench_time.py --by-kind scores palace on them per kind and half.
"""
from __future__ import annotations

import importlib.util
import re
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "data" / "time_cases_new_3.yaml"
GENERATOR = ROOT / "scripts" / "data" / "make_time_cases_new_3.py"
STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}( \d{2}:\d{2})?$")
KINDS = {"two-digit years", "dotted dates", "parts of a month", "holiday windows", "titles and names"}


def _generator():
    spec = importlib.util.spec_from_file_location("make_time_cases_new_3", GENERATOR)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load() -> dict:
    return yaml.safe_load(CASES.read_text(encoding="utf-8"))


def test_each_kind_has_enough_cases_in_both_languages_and_both_halves():
    cases = _load()["cases"]
    half_of = _generator().half_of
    assert {c["kind"] for c in cases} == KINDS
    for kind in KINDS:
        mine = [c for c in cases if c["kind"] == kind]
        assert len(mine) >= 15, kind
        assert {"zh", "en"} <= {c["lang"] for c in mine}, kind
        assert Counter(half_of(c["q"]) for c in mine).keys() == {"tune", "check"}, kind


def test_every_case_has_its_fields_and_a_forward_range():
    data = _load()
    nows = {k: datetime.fromisoformat(v) for k, v in data["nows"].items()}
    queries = [c["q"] for c in data["cases"]]
    assert len(queries) == len(set(queries))
    for c in data["cases"]:
        assert c["now"] in nows and c["lang"] in ("zh", "en", "mixed"), c
        if c.get("none"):
            assert "start" not in c and "end" not in c, c
            continue
        assert STAMP.match(c["start"]) and STAMP.match(c["end"]), c
        start, end = datetime.fromisoformat(c["start"]), datetime.fromisoformat(c["end"])
        assert start < end and start <= nows[c["now"]], c


def test_the_split_is_the_one_the_benchmark_uses():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import bench_time
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    half_of = _generator().half_of
    for c in _load()["cases"]:
        assert bench_time.half_of(c["q"]) == half_of(c["q"])


def test_the_file_is_what_its_generator_writes():
    assert _generator().render() == CASES.read_text(encoding="utf-8"), (
        "tests/data/time_cases_new_3.yaml is stale: run scripts/data/make_time_cases_new_3.py")
