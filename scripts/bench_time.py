"""Score time reasoning on the shared case table: palace, dateparser and jionlp side by side.

Every case of ``tests/data/time_cases.yaml`` (the table the unit tests use) goes to
each system with the case's ``now``:

- ``palace``:     ``palace.time_reasoning.parse_time``;
- ``dateparser``: ``dateparser.search.search_dates`` (languages zh+en, RELATIVE_BASE=now,
  PREFER_DATES_FROM=past); the first date found is read again with ``DateDataParser``
  (whose date is often better and which tells the period) and becomes a range of
  that natural granularity (year, month, week, otherwise the day);
- ``jionlp``:     ``jionlp.ner.extract_time`` finds the first time span, then
  ``jionlp.parse_time(span, time_base=now)`` resolves it; its inclusive end
  ("…23:59:59") is made exclusive, and its open ends (-inf/inf) become the table's
  (1970-01-01 and the end of today, which is what "up to now" means there).

A case is correct when the predicted ``[start, end)`` equals the expected one, and
for a query without a time expression when nothing is found.  The exact score
punishes a different but defensible convention (下午 from 13:00 rather than 12:00,
"up to now" ending now rather than at midnight) as hard as a wrong answer, so two
kinder scores are printed too: ``<=now`` compares ranges cut at ``now`` (a memory
store holds nothing later, so [3/1, now) and [3/1, midnight) find the same things),
and ``loose`` counts a time case when the predicted range overlaps the expected one
with an intersection-over-union of at least 0.5.

    python scripts/bench_time.py [--table PATH] [--misses SYSTEM] [--min-accuracy 0.97] [--by-kind]

``--by-kind`` adds, for a table whose cases carry a ``kind`` (time_cases_new_3.yaml),
each system's exact score per kind and per half (the half is fixed by the case's text:
``half_of``, the first byte of its SHA-256, even for tune and odd for check).

Exits with status 1 when palace scores below ``--min-accuracy`` or does not beat
both other systems, so the script can guard a change.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import logging
import re
import statistics
import sys
import time
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable, Optional

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_TABLE = ROOT / "tests" / "data" / "time_cases.yaml"
Range = Optional[tuple]  # (start, end) or None
FOUND_NO_RANGE = ("found", "no range")  # a system found something it could not turn into a range
OPEN_START = datetime(1970, 1, 1)  # palace's start for "before X"


@dataclass
class Case:
    query: str
    now: datetime
    expected: Range
    lang: str
    kind: str = ""


@dataclass
class Score:
    name: str
    predictions: list = field(default_factory=list)
    seconds: list = field(default_factory=list)
    import_seconds: float = 0.0


def load_cases(path: Path) -> list[Case]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    nows = {name: datetime.fromisoformat(value) for name, value in data["nows"].items()}
    cases = []
    for raw in data["cases"]:
        expected = None if raw.get("none") else (datetime.fromisoformat(raw["start"]),
                                                 datetime.fromisoformat(raw["end"]))
        cases.append(Case(raw["q"], nows[raw.get("now", "A")], expected,
                          raw.get("lang") or guess_language(raw["q"]), raw.get("kind", "")))
    return cases


def half_of(query: str) -> str:
    """The fixed tune/check split of a held-out table: the first byte of sha256(query)."""
    return "tune" if hashlib.sha256(query.encode("utf-8")).digest()[0] % 2 == 0 else "check"


def guess_language(text: str) -> str:
    has_cjk = bool(re.search(r"[\u4e00-\u9fff]", text))
    has_latin = bool(re.search(r"[A-Za-z]{2,}", text))
    return "mixed" if has_cjk and has_latin else "zh" if has_cjk else "en"


# --- the systems ---------------------------------------------------------------------


def load_palace() -> Callable[[str, datetime], Range]:
    from palace.time_reasoning import parse_time

    def predict(query: str, now: datetime) -> Range:
        found = parse_time(query, now=now)
        return None if found is None else (found.start, found.end)

    return predict


def load_dateparser() -> Callable[[str, datetime], Range]:
    from dateparser.date import DateDataParser
    from dateparser.search import search_dates

    def predict(query: str, now: datetime) -> Range:
        settings = {"RELATIVE_BASE": now, "PREFER_DATES_FROM": "past",
                    "RETURN_AS_TIMEZONE_AWARE": False}
        try:
            found = search_dates(query, languages=["zh", "en"], settings=settings)
        except Exception:  # a crash on a query is a miss, not the end of the run
            return None
        if not found:
            return None
        text, moment = found[0]
        try:  # re-read the span: DateDataParser knows its period and is often more right
            data = DateDataParser(languages=["zh", "en"], settings=settings).get_date_data(text)
            moment, period = data.date_obj or moment, data.period or "day"
        except Exception:
            period = "day"
        try:
            return natural_range(moment, period)
        except (ValueError, OverflowError):
            return FOUND_NO_RANGE

    return predict


def natural_range(moment: datetime, period: str) -> tuple[datetime, datetime]:
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "year":
        start = day.replace(month=1, day=1)
        return start, start.replace(year=start.year + 1)
    if period == "month":
        start = day.replace(day=1)
        return start, (start + timedelta(days=32)).replace(day=1)
    if period == "week":
        start = day - timedelta(days=day.weekday())
        return start, start + timedelta(days=7)
    return day, day + timedelta(days=1)  # "day", and "time" as its day


def load_jionlp() -> Callable[[str, datetime], Range]:
    with contextlib.redirect_stdout(io.StringIO()):  # jionlp greets on import
        import jionlp

    def predict(query: str, now: datetime) -> Range:
        try:
            spans = jionlp.ner.extract_time(query, time_base=now, with_parsing=False)
        except Exception:
            return None
        if not spans:
            return None
        try:
            parsed = jionlp.parse_time(spans[0]["text"], time_base=now)
        except Exception:
            return FOUND_NO_RANGE
        return jionlp_range(parsed, now)

    return predict


def jionlp_range(parsed: dict, now: datetime) -> Range:
    if parsed.get("type") not in ("time_point", "time_span"):
        return FOUND_NO_RANGE  # a duration ("一周年") or a period ("每周五")
    first, last = parsed["time"]
    # Open ends mean what the table's conventions say: an open start is 1970-01-01,
    # an open end "up to now", i.e. the end of today.
    start = OPEN_START if first == "-inf" else datetime.fromisoformat(first)
    if last == "inf":
        return start, now.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)
    end = datetime.fromisoformat(last)
    if end.second == 59:  # inclusive to the second
        end += timedelta(seconds=1)
    return start, end


SYSTEMS = {"palace": load_palace, "dateparser": load_dateparser, "jionlp": load_jionlp}


# --- scoring -----------------------------------------------------------------------------


def run(name: str, loader: Callable, cases: list[Case]) -> Score:
    score = Score(name)
    started = time.perf_counter()
    predict = loader()
    score.import_seconds = time.perf_counter() - started
    predict(cases[0].query, cases[0].now)  # warm caches (compiled rules, language models)
    for case in cases:
        started = time.perf_counter()
        score.predictions.append(predict(case.query, case.now))
        score.seconds.append(time.perf_counter() - started)
    return score


def exact(case: Case, predicted) -> bool:
    return predicted is None if case.expected is None else predicted == case.expected


def up_to_now(case: Case, predicted) -> bool:
    if case.expected is None or predicted is None or predicted == FOUND_NO_RANGE:
        return exact(case, predicted)
    return cut_at(case.expected, case.now) == cut_at(predicted, case.now)


def cut_at(value: tuple, now: datetime) -> tuple:
    start, end = value
    return (start, min(end, now)) if start < now else value


def loose(case: Case, predicted) -> bool:
    if case.expected is None:
        return predicted is None
    if predicted is None or predicted == FOUND_NO_RANGE:
        return False
    (s1, e1), (s2, e2) = case.expected, predicted
    overlap = (min(e1, e2) - max(s1, s2)).total_seconds()
    union = (max(e1, e2) - min(s1, s2)).total_seconds()
    return overlap > 0 and overlap / union >= 0.5


def percent(hits: int, total: int) -> str:
    return f"{100 * hits / total:5.1f}%" if total else "    –"


def report(cases: list[Case], scores: list[Score]) -> dict[str, float]:
    languages = sorted({c.lang for c in cases}, key=["zh", "en", "mixed"].index)
    positives = [i for i, c in enumerate(cases) if c.expected is not None]
    negatives = [i for i, c in enumerate(cases) if c.expected is None]
    by_lang = {lang: [i for i, c in enumerate(cases) if c.lang == lang] for lang in languages}
    print(f"{len(cases)} cases: {len(positives)} with a time expression, {len(negatives)} without; "
          + ", ".join(f"{lang} {len(ids)}" for lang, ids in by_lang.items()))
    print()
    header = (f"{'system':<11} {'overall':>8} {'with time':>10} {'no time':>8} "
              + " ".join(f"{lang:>7}" for lang in languages)
              + f" {'<=now':>7} {'loose':>7} {'ms/parse':>9} {'p95 ms':>7} {'import s':>9}")
    print(header)
    print("-" * len(header))
    overall = {}
    for score in scores:
        right = [exact(c, p) for c, p in zip(cases, score.predictions)]
        cut = [up_to_now(c, p) for c, p in zip(cases, score.predictions)]
        roughly = [loose(cases[i], score.predictions[i]) for i in positives]
        millis = sorted(s * 1000 for s in score.seconds)
        overall[score.name] = sum(right) / len(cases)
        print(f"{score.name:<11} {percent(sum(right), len(cases)):>8} "
              f"{percent(sum(right[i] for i in positives), len(positives)):>10} "
              f"{percent(sum(right[i] for i in negatives), len(negatives)):>8} "
              + " ".join(f"{percent(sum(right[i] for i in ids), len(ids)):>7}" for ids in by_lang.values())
              + f" {percent(sum(cut), len(cases)):>7} {percent(sum(roughly), len(positives)):>7}"
              f" {statistics.mean(millis):9.3f}"
              f" {millis[int(0.95 * (len(millis) - 1))]:7.2f} {score.import_seconds:9.2f}")
    print()
    print("overall, with time, no time, zh, en, mixed: exact [start, end), or nothing found for a "
          "query without time;\n<=now: all cases, ranges compared after cutting them at now;\n"
          "loose: time cases whose predicted range overlaps the expected one with IoU >= 0.5;\n"
          "ms/parse, p95 ms: wall time of one call after a warm-up call; import s: loading the system.")
    return overall


def report_by_kind(cases: list[Case], scores: list[Score]) -> None:
    kinds = list(dict.fromkeys(c.kind for c in cases))
    print("\nexact score per kind, tune / check / both (cases):")
    for kind in kinds:
        ids = [i for i, c in enumerate(cases) if c.kind == kind]
        tune = [i for i in ids if half_of(cases[i].query) == "tune"]
        check = [i for i in ids if half_of(cases[i].query) == "check"]
        print(f"  {kind or '(no kind)'}  ({len(tune)} / {len(check)} / {len(ids)})")
        for score in scores:
            right = [exact(c, p) for c, p in zip(cases, score.predictions)]
            print(f"    {score.name:<11} " + " / ".join(
                percent(sum(right[i] for i in group), len(group)).strip() for group in (tune, check, ids)))
    print("  all kinds")
    for score in scores:
        right = [exact(c, p) for c, p in zip(cases, score.predictions)]
        groups = [[i for i, c in enumerate(cases) if half_of(c.query) == h] for h in ("tune", "check")]
        groups.append(list(range(len(cases))))
        print(f"    {score.name:<11} " + " / ".join(
            percent(sum(right[i] for i in g), len(g)).strip() for g in groups))


def show_misses(cases: list[Case], score: Score) -> None:
    print(f"\nmisses of {score.name}:")
    for case, predicted in zip(cases, score.predictions):
        if not exact(case, predicted):
            print(f"  {case.query!r} @ {case.now:%Y-%m-%d %H:%M}: expected {fmt(case.expected)}, "
                  f"got {fmt(predicted)}")


def fmt(value) -> str:
    if value is None:
        return "nothing"
    if value == FOUND_NO_RANGE:
        return "a time with no range"
    return f"[{value[0]:%Y-%m-%d %H:%M}, {value[1]:%Y-%m-%d %H:%M})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--table", type=Path, default=DEFAULT_TABLE, help="YAML case table")
    parser.add_argument("--systems", default="palace,dateparser,jionlp",
                        help="comma-separated, from: " + ", ".join(SYSTEMS))
    parser.add_argument("--misses", action="append", default=[], metavar="SYSTEM",
                        help="list the cases SYSTEM gets wrong (repeatable)")
    parser.add_argument("--min-accuracy", type=float, default=0.97,
                        help="palace's overall accuracy below this fails the run")
    parser.add_argument("--by-kind", action="store_true",
                        help="also score each kind of case, on the tune and check halves")
    args = parser.parse_args(argv)

    warnings.filterwarnings("ignore")  # dateparser and jionlp are chatty:
    logging.disable(logging.CRITICAL)  # jionlp logs a traceback for each string it cannot parse
    cases = load_cases(args.table)
    names = [n.strip() for n in args.systems.split(",") if n.strip()]
    scores = []
    for name in names:
        print(f"running {name}…", file=sys.stderr)
        with contextlib.redirect_stdout(io.StringIO()):
            scores.append(run(name, SYSTEMS[name], cases))
    overall = report(cases, scores)
    if args.by_kind:
        report_by_kind(cases, scores)
    for score in scores:
        if score.name in args.misses:
            show_misses(cases, score)
    if "palace" in overall:
        rivals = [v for k, v in overall.items() if k != "palace"]
        if overall["palace"] < args.min_accuracy or any(overall["palace"] <= v for v in rivals):
            print(f"\nFAIL: palace {overall['palace']:.1%} (needs >= {args.min_accuracy:.0%} "
                  "and above every other system)")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
