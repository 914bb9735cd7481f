#!/usr/bin/env python3
"""Fact extraction scored on the held-out set ``scripts/data/extract_holdout.json``.

The set (344 zh/en sentences, written blind: see its description) states, for each
sentence, the relations a careful reader records, the people it names, the words a
careless tagger takes for people, and the change it states. This script feeds each
sentence to palace's extraction exactly as ``store`` does (``with_extracted`` on the
text, no tags, no frontmatter) and prints, per half (``_bench_common.half_of`` on the
case id: tune on "tune" only, report both), per kind and per language:

- **relations**: precision and recall of the *current* relations palace writes (a
  relation marked ended, or with a ``validTo``, is not current: it is scored as a change);
- **persons**: of the entities palace types as a person (``person``, ``name``), the share
  that are not persons (the target: <= 2 %), and the share of the named persons found;
- **changes** (end to end, through a real palace): for each case whose change names the
  old value, a memory stating that old value is stored first (frontmatter, a year earlier);
  after the case's sentence is stored, is the old relation retired (validTo set), queued
  for review, or left current? And for the non-fact and project-fact cases: the user's
  own facts (lives in, works at, uses, likes) stored first must stay untouched (neither
  retired nor queued);
- **cost**: extraction time per memory (p50, p95) on the set's sentences and on real
  memories (LongMemEval-S dev user turns, when ``--lme`` exists).

**Span matching, decided before the first score and not changed after it.** Two spans
(subjects or objects) match when, after NFKC, case folding, dropping a leading article or
possessive (the, a, an, my, our, 我的) and trailing punctuation, they are equal ignoring
spaces ("3 月 14 号" = "3月14号", "VS Code" = "vs code"), or one contains the other with
little to spare: in Chinese (a span with a CJK character) at most 4 characters more
(素食 / 素食主义者, 上海 / 上海浦东, 咖啡 / 手冲咖啡), in English whole words only and at
most 2 words more ("Orion" / "Orion project", never "Google" / "Googler"). The shorter
span needs 2 characters at least. Subjects: the set writes ``user`` for the speaker and
``project`` for the unnamed team or project of "we"; palace's names for them are read
through the fixed sets USER_NAMES / PROJECT_NAMES below. Predicates must be equal (after
lowercasing, spaces and dashes to ``_``); the purpose, species and kin fields are not
scored. Each gold relation is matched at most once. A strict figure (spans equal ignoring
spaces) is printed beside the lenient one.

    python scripts/bench_extract.py                 # both halves, per kind and language
    python scripts/bench_extract.py --half tune --misses   # what the tuning half misses
    python scripts/bench_extract.py --no-changes    # skip the end-to-end change part
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import sys
import tempfile
import time
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _bench_common import half_of  # noqa: E402

from palace import MemoryPalaceManager  # noqa: E402
from palace.graph.extract import with_extracted  # noqa: E402
from palace.graph.facts import read_facts  # noqa: E402
from palace.settings import Settings  # noqa: E402

HOLDOUT = HERE / "data" / "extract_holdout.json"
DEFAULT_LME = HERE.parent.parent / "shared" / "bench" / "longmemeval_s_dev.json.gz"
T0 = datetime(2025, 1, 10, 9, 0)

# How the set's two reserved subjects may be written by palace (fixed with the scorer).
USER_NAMES = frozenset({"user", "用户", "我", "i", "me", "本人", "自己"})
PROJECT_NAMES = frozenset({"project", "项目", "本项目", "我们", "咱们", "we", "us", "team", "团队",
                           "the team", "our team", "the project"})
PERSON_TYPES = frozenset({"person", "name"})
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LEADING = re.compile(r"^(?:the|a|an|my|our|我的|我们的)\s+|^(?:我的|我们的)", re.IGNORECASE)
_EDGE_PUNCT = " \t\n.,;:!?，。；：！？、\"'“”‘’()（）[]【】`"
CJK_SPARE = 4
WORD_SPARE = 2


# ---------------------------------------------------------------------- matching

def normal(span: str) -> str:
    text = unicodedata.normalize("NFKC", str(span)).casefold().strip(_EDGE_PUNCT)
    text = _LEADING.sub("", text).strip(_EDGE_PUNCT)
    return re.sub(r"[\s_\-]+", " ", text)


def reserved(span: str) -> str:
    """``user`` / ``project`` for palace's names of the speaker and the team, else the span."""
    key = normal(span)
    if key in USER_NAMES:
        return "user"
    if key in PROJECT_NAMES:
        return "project"
    return key


def spans_match(a: str, b: str, *, strict: bool = False) -> bool:
    na, nb = reserved(a), reserved(b)
    ca, cb = na.replace(" ", ""), nb.replace(" ", "")
    if ca == cb:
        return bool(ca)
    if strict:
        return False
    (short, short_c), (long, long_c) = sorted(((na, ca), (nb, cb)), key=lambda pair: len(pair[1]))
    if len(short_c) < 2 or short in ("user", "project") or long in ("user", "project"):
        return False
    if _CJK.search(short) or _CJK.search(long):
        return short_c in long_c and len(long_c) - len(short_c) <= CJK_SPARE
    sw, lw = short.split(), long.split()
    if len(lw) - len(sw) > WORD_SPARE:
        return False
    return any(lw[i:i + len(sw)] == sw for i in range(len(lw) - len(sw) + 1))


def predicate_of(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", str(name).strip().casefold())


Triple = tuple[str, str, str]


def matched(predicted: list[Triple], gold: list[Triple], *, strict: bool = False) -> int:
    """How many predicted triples match a gold triple, each gold one used once."""
    free = list(gold)
    hits = 0
    for subject, predicate, obj in predicted:
        for index, (g_subject, g_predicate, g_obj) in enumerate(free):
            if (predicate_of(predicate) == predicate_of(g_predicate)
                    and spans_match(subject, g_subject, strict=strict)
                    and spans_match(obj, g_obj, strict=strict)):
                hits += 1
                del free[index]
                break
    return hits


# ---------------------------------------------------------------------- palace's output

@dataclass
class Extracted:
    current: list[Triple]
    ended: list[Triple]
    entities: list[tuple[str, str | None]]
    seconds: float


def extract(text: str) -> Extracted:
    started = time.perf_counter()
    extra = with_extracted({}, text, ())
    seconds = time.perf_counter() - started
    entities, relations = read_facts(extra, text, created_at=T0, tz=timezone.utc, strict=False)
    current: list[Triple] = []
    ended: list[Triple] = []
    for item, relation in zip(extra.get("relations") or [], relations):
        triple = (relation.subject, relation.predicate, relation.object)
        finished = relation.valid_to is not None or bool(isinstance(item, dict) and item.get("ended"))
        bucket = ended if finished else current
        if triple not in bucket:
            bucket.append(triple)
    typed = [(e.name, e.type) for e in entities]
    return Extracted(current, ended, typed, seconds)


# ---------------------------------------------------------------------- scoring

@dataclass
class Tally:
    cases: int = 0
    gold: int = 0
    predicted: int = 0
    hits: int = 0
    strict_hits: int = 0
    exact_cases: int = 0          # every relation right, nothing more
    persons_typed: int = 0
    persons_wrong: int = 0
    gold_persons: int = 0
    gold_persons_found: int = 0
    not_persons: int = 0
    not_persons_as_person: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, case: dict[str, Any], out: Extracted) -> None:
        gold = [(r["subject"], r["predicate"], r["object"]) for r in case["relations"]]
        hits = matched(out.current, gold)
        self.cases += 1
        self.gold += len(gold)
        self.predicted += len(out.current)
        self.hits += hits
        self.strict_hits += matched(out.current, gold, strict=True)
        self.exact_cases += int(hits == len(gold) == len(out.current))
        persons = [name for name, kind in out.entities if kind in PERSON_TYPES]
        wrong = [name for name in persons if not any(spans_match(name, p) for p in case["persons"])]
        self.persons_typed += len(persons)
        self.persons_wrong += len(wrong)
        self.gold_persons += len(case["persons"])
        self.gold_persons_found += sum(any(spans_match(name, p) for name in persons) for p in case["persons"])
        self.not_persons += len(case["not_persons"])
        self.not_persons_as_person += sum(any(spans_match(name, np, strict=True) for name in persons)
                                          for np in case["not_persons"])
        if hits != len(gold) or hits != len(out.current) or wrong:
            self.misses.append(
                f"{case['id']} {case['text']}\n      gold: {fmt(gold)}\n      got:  {fmt(out.current)}"
                + (f"  ended: {fmt(out.ended)}" if out.ended else "")
                + (f"\n      persons wrongly: {', '.join(wrong)}" if wrong else ""))

    def row(self) -> dict[str, float]:
        return {
            "cases": self.cases,
            "precision": ratio(self.hits, self.predicted),
            "recall": ratio(self.hits, self.gold),
            "strict P": ratio(self.strict_hits, self.predicted),
            "strict R": ratio(self.strict_hits, self.gold),
            "exact": ratio(self.exact_cases, self.cases),
            "non-person": ratio(self.persons_wrong, self.persons_typed),
            "person R": ratio(self.gold_persons_found, self.gold_persons),
            "np->person": ratio(self.not_persons_as_person, self.not_persons),
        }


def fmt(triples: Iterable[Triple]) -> str:
    return "; ".join(f"{s} {p} {o}" for s, p, o in triples) or "-"


def ratio(a: int, b: int) -> float:
    return a / b if b else float("nan")


COLUMNS = ("cases", "precision", "recall", "strict P", "strict R", "exact", "non-person", "person R",
           "np->person")


def print_rows(title: str, rows: dict[str, dict[str, float]]) -> None:
    print(f"\n{title}")
    print(f"{'':<16}" + "".join(f"{c:>11}" for c in COLUMNS))
    for label, row in rows.items():
        cells = "".join(f"{int(row[c]):>11}" if c == "cases" else f"{row[c]:>11.3f}" for c in COLUMNS)
        print(f"{label:<16}{cells}")


# ---------------------------------------------------------------------- changes, end to end

def _settings(tmp: str) -> Settings:
    return Settings.from_env({}, workspace_dir=tmp, vector_enabled=False, graph_extract=True,
                             decay_enabled=False)


USER_PRIORS = (("lives_in", "Oldtown"), ("works_at", "OldCo"), ("uses", "emacs"), ("likes", "茶"),
               ("role", "accountant"))


def _state(pm: MemoryPalaceManager, memory_id: str) -> str:
    memory = pm.get(memory_id, record_access=False)
    assert memory is not None
    relation = (memory.extra.get("relations") or [{}])[0]
    if relation.get("validTo"):
        return "retired"
    if any(item.old_memory == memory_id for item in pm.graph.queue.items()):
        return "queued"
    return "current"


def change_outcome(case: dict[str, Any]) -> list[str]:
    """Stores the prior fact(s), then the case; the state of each prior afterwards."""
    change = case["change"]
    with tempfile.TemporaryDirectory(prefix="palace-extract-") as tmp:
        pm = MemoryPalaceManager(tmp, settings=_settings(tmp), embedder=None)
        try:
            if change is not None:
                priors = [(change.get("subject") or "user", change["predicate"], change["old"])]
            else:
                priors = [("user", predicate, obj) for predicate, obj in USER_PRIORS]
            ids = [pm.store(f"(earlier) {subject} {predicate} {obj}", created_at=T0, extra={
                "relations": [{"subject": "用户" if subject == "user" else subject, "predicate": predicate,
                               "object": obj}]}).id for subject, predicate, obj in priors]
            pm.store(case["text"], created_at=T0 + timedelta(days=365))
            return [_state(pm, memory_id) for memory_id in ids]
        finally:
            pm.close()


def run_changes(cases: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for half in ("tune", "check"):
        mine = [c for c in cases if half_of(c["id"]) == half]
        named = [c for c in mine if c["change"] is not None and c["change"]["old"]]
        states = [change_outcome(c)[0] for c in named]
        untouched_cases = [c for c in mine if c["kind"] in ("non_fact", "project_fact")]
        touched = [s for c in untouched_cases for s in change_outcome(c)]
        out[half] = {
            "old named": len(named),
            "retired": ratio(states.count("retired"), len(states)),
            "queued": ratio(states.count("queued"), len(states)),
            "left current": ratio(states.count("current"), len(states)),
            "non-fact cases": len(untouched_cases),
            "user facts touched": ratio(sum(s != "current" for s in touched), len(touched)),
        }
    return out


# ---------------------------------------------------------------------- cost

def real_memories(path: Path, count: int) -> list[str]:
    if not path.exists():
        return []
    with gzip.open(path) as handle:
        questions = json.load(handle)
    texts: dict[str, None] = {}
    for question in questions:
        for session in question["haystack_sessions"]:
            for turn in session:
                if turn.get("role") == "user" and turn.get("content", "").strip():
                    texts.setdefault(turn["content"], None)
                if len(texts) >= count:
                    return list(texts)
    return list(texts)


def timings(texts: list[str], repeat: int = 3) -> tuple[float, float]:
    per_text = []
    for text in texts:
        runs = []
        for _ in range(repeat):
            started = time.perf_counter()
            with_extracted({}, text, ())
            runs.append(time.perf_counter() - started)
        per_text.append(min(runs) * 1000)
    per_text.sort()
    return statistics.median(per_text), per_text[int(0.95 * (len(per_text) - 1))]


# ---------------------------------------------------------------------- main

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(HOLDOUT))
    parser.add_argument("--half", choices=("tune", "check", "all"), default="all",
                        help="which half's misses to list (every table shows both halves)")
    parser.add_argument("--misses", action="store_true", help="list the cases not fully right")
    parser.add_argument("--no-changes", action="store_true", help="skip the end-to-end change part")
    parser.add_argument("--lme", default=str(DEFAULT_LME), help="real memories for the cost figure")
    parser.add_argument("--real", type=int, default=500, help="how many real memories to time")
    args = parser.parse_args()
    cases = json.loads(Path(args.data).read_text("utf-8"))["cases"]
    with_extracted({}, "预热 warm-up 我住在北京", ())   # the segmenter's dictionary loads once
    by_half: dict[str, Tally] = defaultdict(Tally)
    by_kind: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    by_lang: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    for case in cases:
        out = extract(case["text"])
        half = half_of(case["id"])
        for tally in (by_half[half], by_half["all"], by_kind[half][case["kind"]], by_lang[half][case["lang"]]):
            tally.add(case, out)
    print(f"held-out extraction set: {len(cases)} cases ({args.data})")
    print_rows("by half", {h: by_half[h].row() for h in ("tune", "check", "all")})
    for half in ("tune", "check"):
        print_rows(f"{half} half, by language", {k: v.row() for k, v in sorted(by_lang[half].items())})
        print_rows(f"{half} half, by kind", {k: v.row() for k, v in sorted(by_kind[half].items())})
    if not args.no_changes:
        print("\nchanges, end to end (a prior fact stored a year before the case)")
        table = run_changes(cases)
        names = list(table["tune"])
        print(f"{'':<8}" + "".join(f"{n:>20}" for n in names))
        for half, row in table.items():
            print(f"{half:<8}" + "".join(f"{row[n]:>20.3f}" if isinstance(row[n], float) else f"{row[n]:>20}"
                                          for n in names))
    p50, p95 = timings([c["text"] for c in cases])
    print(f"\nextraction per memory, held-out sentences: p50 {p50:.3f} ms, p95 {p95:.3f} ms")
    real = real_memories(Path(args.lme), args.real)
    if real:
        p50, p95 = timings(real, repeat=1)
        mean_chars = statistics.mean(len(t) for t in real)
        print(f"extraction per memory, {len(real)} LongMemEval user turns (mean {mean_chars:.0f} chars): "
              f"p50 {p50:.3f} ms, p95 {p95:.3f} ms")
    if args.misses:
        halves = ("tune", "check") if args.half == "all" else (args.half,)
        for half in halves:
            print(f"\n{half} half, not fully right ({len(by_half[half].misses)}):")
            for line in by_half[half].misses:
                print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
