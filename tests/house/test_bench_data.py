"""The hand-written query sets under scripts/data are well-formed, and the benchmarks can load
the held-out ones (issue 11: a set that silently fails to load measures nothing).

Validity is checked with the benchmark's own validator (``bench_retrieval_zh.dataset_problems``),
so a set that passes here is one the benchmark accepts. The fourth, fifth and sixth held-out
sets (``new_queries_4.json``, ``new_queries_5.json``, ``new_queries_6.json``) are also checked for
what their brief asks (the same brief for all three): enough queries of every kind,
enough unanswerable ones in both languages, multi-answer ones, long memories and chat logs, and
dates in the fourteen months before its ``now``.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path
from types import ModuleType

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
DATA = SCRIPTS / "data"
QUERY_SETS = ["zh_retrieval.json", "new_queries.json", "new_queries_2.json",
              "new_queries_3.json", "new_queries_4.json", "new_queries_5.json",
              "new_queries_6.json"]
BRIEFED_SETS = ["4", "5", "6"]  # held-out sets written to the brief checked below
CJK = re.compile(r"[\u4e00-\u9fff]")
CHAT_LINE = re.compile(r"^[^\s:：]{1,20}[:：]\s*\S")


def load_script(path: Path) -> ModuleType:
    """Import a script by path (scripts/ is not a package); it finds its own siblings."""
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(f"_test_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up while it runs
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(path.parent))


@pytest.fixture(scope="module")
def bench_zh() -> ModuleType:
    return load_script(SCRIPTS / "bench_retrieval_zh.py")


@pytest.fixture(scope="module")
def bench_precision() -> ModuleType:
    return load_script(SCRIPTS / "bench_precision.py")


@pytest.fixture(scope="module", params=BRIEFED_SETS)
def briefed(request: pytest.FixtureRequest) -> tuple[str, dict]:
    """(round, data) of each held-out set written to the brief."""
    return request.param, json.loads((DATA / f"new_queries_{request.param}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", QUERY_SETS)
def test_every_query_set_passes_the_benchmarks_validator(name: str, bench_zh: ModuleType) -> None:
    data = json.loads((DATA / name).read_text(encoding="utf-8"))
    assert bench_zh.dataset_problems(data) == []
    assert data["memories"] and data["queries"]


def test_bench_precision_loads_every_held_out_set_it_names(bench_precision: ModuleType) -> None:
    held_out = [name for name in bench_precision.SETS if name.startswith("new")]
    assert {"new_4", "new_5", "new_6", "new_7"} <= set(held_out) and "sessions" in bench_precision.SETS
    for name in held_out:
        path = DATA / ("new_queries.json" if name == "new" else f"new_queries_{name.split('_')[1]}.json")
        data = json.loads(path.read_text(encoding="utf-8"))
        (haystack,) = bench_precision.json_haystack(path)
        assert bench_precision.RECALL_K.get(name, 5) == 5
        assert len(haystack.docs) == len(data["memories"])
        unanswerable = [q for q in haystack.questions if q.relevant is None and not q.prompt]
        assert len(unanswerable) == sum(q["kind"] == "unanswerable" for q in data["queries"]) > 0


def test_generator_and_json_agree(briefed: tuple[str, dict]) -> None:
    round_, data = briefed
    generator = load_script(DATA / f"make_new_queries_{round_}.py")
    assert generator.data == data


def test_every_kind_of_question_is_asked(briefed: tuple[str, dict]) -> None:
    queries = briefed[1]["queries"]
    kinds = Counter(q["kind"] for q in queries)
    assert len(queries) >= 80
    for kind in ("keyword", "paraphrase", "concept", "cross-lingual", "temporal"):
        assert kinds[kind] >= 5, kind
    unanswerable = [q for q in queries if q["kind"] == "unanswerable"]
    assert len(unanswerable) >= 30
    assert all(q["relevant"] == [] for q in unanswerable)
    english = sum(q["lang"] == "en" for q in unanswerable)
    assert 0.4 <= english / len(unanswerable) <= 0.6  # about half of them in English
    multi = [q for q in queries if len(q["relevant"]) >= 2]
    assert len(multi) >= 8 and all(len(q["relevant"]) <= 3 for q in multi)
    assert len({q["query"] for q in queries}) == len(queries)  # no question asked twice


def test_language_tags_match_the_text(briefed: tuple[str, dict]) -> None:
    for query in briefed[1]["queries"]:
        has_cjk = bool(CJK.search(query["query"]))
        assert has_cjk == (query["lang"] in ("zh", "mixed")), query["id"]
    cross = [q for q in briefed[1]["queries"] if q["kind"] == "cross-lingual"]
    assert {q["lang"] for q in cross} >= {"zh", "en"}  # both directions


def test_memories_span_fourteen_months_with_long_notes_and_chats(briefed: tuple[str, dict]) -> None:
    data = briefed[1]
    memories = data["memories"]
    now = datetime.fromisoformat(data["queries"][0]["now"])
    assert all(q["now"] == data["queries"][0]["now"] for q in data["queries"])
    created = [datetime.fromisoformat(m["created_at"]) for m in memories]
    assert all(now - timedelta(days=14 * 31) <= when < now for when in created)
    assert max(created) - min(created) >= timedelta(days=365)
    chinese = sum(bool(CJK.search(m["content"])) for m in memories)
    assert 45 <= len(memories) <= 60 and chinese >= len(memories) / 2
    long = [m for m in memories if 600 <= len(m["content"]) <= 2500]
    assert len(long) >= 5
    chats = [m for m in memories
             if sum(bool(CHAT_LINE.match(line)) for line in m["content"].splitlines()) >= 10]
    assert len(chats) >= 3
    used = {i for q in data["queries"] for i in q["relevant"]}
    assert len(used) >= 0.75 * len(memories)  # most memories are the answer to something


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9']+", text.lower()))


def asks_an_amount(query: str) -> bool:
    lowered = query.lower()
    return "多少" in query or any(cue in lowered for cue in ("how much", "price", "cost"))


def test_sixth_set_asks_what_its_brief_adds() -> None:
    """new_6's extras: English list questions over three memories that share no word with the
    question, and amounts asked both where a memory states them and where none does."""
    data = json.loads((DATA / "new_queries_6.json").read_text(encoding="utf-8"))
    content = {m["id"]: m["content"] for m in data["memories"]}
    lists = [q for q in data["queries"] if q["lang"] == "en" and len(q["relevant"]) == 3
             and not any(words(q["query"]) & words(content[i]) for i in q["relevant"])]
    assert len(lists) >= 2
    amounts = [q for q in data["queries"] if asks_an_amount(q["query"])]
    stated = [q for q in amounts if q["relevant"]]
    missing = Counter(q["lang"] for q in amounts if not q["relevant"])
    assert len(stated) >= 5 and missing["en"] >= 3 and missing["zh"] >= 3
