"""The SVG charts are pure functions of the data and ``now``."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta, timezone

from palace import decay
from palace.viewer import charts

NS = {"svg": "http://www.w3.org/2000/svg"}
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
PARAMS = decay.DecayParams()


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # well-formed XML, or this raises


def test_decay_curve_crossing_is_the_day_decay_archives_it():
    accesses = [T0 + timedelta(days=5), T0 + timedelta(days=20)]
    now = T0 + timedelta(days=30)
    curve = charts.decay_curve(created_at=T0, importance=0.3, accesses=accesses, now=now, params=PARAMS)
    state = decay.replay(T0, 0.3, accesses, PARAMS)
    assert curve.crosses_at == decay.archive_due_at(state, PARAMS)
    assert math.isclose(curve.score_now, decay.current_score(T0, 0.3, accesses, now, PARAMS))
    root = parse(curve.svg)
    assert len(root.findall(".//svg:line[@class='threshold']", NS)) == 1
    assert len(root.findall(".//svg:circle[@class='access']", NS)) == 2
    assert len(root.findall(".//svg:line[@class='crossing']", NS)) == 1
    assert curve.crosses_at.strftime("%Y-%m-%d") in root.find("svg:desc", NS).text


def test_decay_curve_of_a_pinned_memory_has_no_threshold_or_crossing():
    curve = charts.decay_curve(created_at=T0, importance=1.0, accesses=[], now=T0 + timedelta(days=400),
                               params=PARAMS)
    assert curve.pinned and curve.crosses_at is None and curve.score_now == 1.0
    root = parse(curve.svg)
    assert root.findall(".//svg:line[@class='threshold']", NS) == []
    assert "Pinned" in root.find("svg:desc", NS).text


def test_decay_curve_of_an_overdue_memory_says_it_fell_under():
    now = T0 + timedelta(days=400)
    curve = charts.decay_curve(created_at=T0, importance=0.0, accesses=[], now=now, params=PARAMS)
    assert curve.score_now < PARAMS.archive_threshold and curve.crosses_at < now
    assert "fell under" in parse(curve.svg).find("svg:desc", NS).text


def test_histogram_counts_and_threshold():
    scores = [0.05, 0.08, 0.15, 0.5, 0.55, 0.99, 1.0]
    root = parse(charts.decay_histogram(scores, 0.1))
    bars = root.findall(".//svg:rect[@class='bin']", NS)
    assert [b.find("svg:title", NS).text.split(": ")[1] for b in bars] == \
        ["2", "1", "0", "0", "0", "2", "0", "0", "0", "2"]
    assert "2 under the archive threshold" in root.find("svg:desc", NS).text


def test_rooms_over_time_is_cumulative_and_escapes_room_names():
    created = {"<b>room</b>": {"2026-01": 1, "2026-02": 1}, "notes": {"2026-03": 1}}
    svg = charts.rooms_over_time(created)
    assert "<b>" not in svg and "&lt;b&gt;room" in svg
    desc = parse(svg).find("svg:desc", NS).text
    assert "<b>room</b> 2" in desc and "notes 1" in desc
    assert "No memories yet" in charts.rooms_over_time({})


def test_query_timeline_marks_the_range_and_results():
    svg = charts.query_timeline(start=T0, end=T0 + timedelta(days=7), now=T0 + timedelta(days=10),
                                hits=[(T0 + timedelta(days=2), "inside"), (T0 - timedelta(days=30), "outside")],
                                label="上周")
    root = parse(svg)
    assert len(root.findall(".//svg:rect[@class='range']", NS)) == 1
    assert len(root.findall(".//svg:circle", NS)) == 2
    assert "1 of 2 results" in root.find("svg:desc", NS).text


def test_rooms_over_time_sums_small_rooms_as_other():
    per_month = {f"room{i}": {"2026-01": i + 1} for i in range(9)}
    desc = parse(charts.rooms_over_time(per_month, max_series=6)).find("svg:desc", NS).text
    assert "room8 9" in desc and "room3 4" in desc
    assert "other rooms 6" in desc  # rooms 0, 1, 2: 1 + 2 + 3
