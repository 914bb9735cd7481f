"""Server-side SVG charts: pure functions from data (and an explicit ``now``) to markup.

Every chart is a standalone ``<svg role="img">`` with a <title> and <desc> that
say in words what the picture shows, so a screen reader (or a test) gets the
same facts as the eye. All text that comes from memories is escaped.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from html import escape
from typing import Mapping, Sequence

from palace import decay as decay_model

WIDTH, HEIGHT = 640, 240
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 48, 16, 16, 40
# Colours chosen for >= 4.5:1 contrast on white (WCAG AA), also for the lines.
INK = "#1f2328"
MUTED = "#57606a"
PAST = "#0550ae"
PROJECTED = "#8250df"
THRESHOLD = "#a40e26"
NOW = "#1a7f37"
BAND = "#ddf4ff"
SERIES = ("#0550ae", "#a40e26", "#1a7f37", "#8250df", "#953800", "#1b7c83", "#57606a")
CURVE_SAMPLES = 160
# A projection is drawn at most this far past now; a crossing later than that is
# named in the caption rather than squeezing the past into a sliver.
MAX_PROJECTION_DAYS = 3 * 365


@dataclass(frozen=True)
class DecayCurve:
    """The facts a memory's decay chart shows, also printed next to it."""

    svg: str
    score_now: float
    crosses_at: datetime | None      # when the score reaches the archive threshold, if ever
    crossing_in_view: bool           # whether that day is inside the chart
    pinned: bool
    scaled: bool = False             # past and future drawn to different time scales


class _Axis:
    """Maps a value range to a pixel range."""

    def __init__(self, lo: float, hi: float, px_lo: float, px_hi: float):
        self.lo, self.hi = lo, (hi if hi > lo else lo + 1.0)
        self.px_lo, self.px_hi = px_lo, px_hi

    def __call__(self, value: float) -> float:
        share = (value - self.lo) / (self.hi - self.lo)
        return round(self.px_lo + share * (self.px_hi - self.px_lo), 2)


def _svg_open(title: str, desc: str, css_class: str, width: int = WIDTH, height: int = HEIGHT) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {css_class}" role="img" '
            f'viewBox="0 0 {width} {height}" width="100%" preserveAspectRatio="xMidYMid meet" '
            f'aria-label="{escape(title)}" font-family="system-ui, -apple-system, \'Segoe UI\', '
            f'\'Noto Sans\', \'PingFang SC\', \'Microsoft YaHei\', sans-serif">'
            f"<title>{escape(title)}</title><desc>{escape(desc)}</desc>")


def _text(x: float, y: float, label: str, *, anchor: str = "middle", css: str = "label",
          fill: str = INK) -> str:
    return (f'<text x="{x}" y="{y}" text-anchor="{anchor}" class="{css}" fill="{fill}" '
            f'font-size="12">{escape(label)}</text>')


def _date_ticks(moments: Sequence[datetime], x, y_px: float) -> str:
    span = (max(moments) - min(moments)).total_seconds()
    parts = []
    for i, moment in enumerate(moments):
        px = x(moment.timestamp())
        parts.append(f'<line x1="{px}" y1="{y_px}" x2="{px}" y2="{y_px + 4}" stroke="{MUTED}"/>')
        label = moment.strftime("%Y-%m-%d") if span > 2 * 86400 else moment.strftime("%m-%d %H:%M")
        anchor = "start" if i == 0 else "end" if i == len(moments) - 1 else "middle"
        parts.append(_text(px, y_px + 18, label, anchor=anchor, fill=MUTED))
    return "".join(parts)


class _SplitAxis:
    """A time axis in two linear parts meeting at ``now``, so that a few days of past
    stay readable next to a year of projected fall. Each part gets at least
    ``min_share`` of the width; the chart says so in its tick labels (both parts
    are labelled)."""

    def __init__(self, start: float, now: float, end: float, px_lo: float, px_hi: float,
                 min_share: float = 0.35):
        past, future = max(now - start, 1.0), max(end - now, 1.0)
        share = min(max(past / (past + future), min_share), 1.0 - min_share)
        split = px_lo + share * (px_hi - px_lo)
        self.now = now
        self.before = _Axis(start, now, px_lo, split)
        self.after = _Axis(now, end, split, px_hi)
        self.scaled = abs(share - past / (past + future)) > 0.02

    def __call__(self, value: float) -> float:
        return self.before(value) if value <= self.now else self.after(value)


def _score_axis(y: _Axis, x0: float, x1: float) -> str:
    parts = []
    for value in (0.0, 0.25, 0.5, 0.75, 1.0):
        py = y(value)
        parts.append(f'<line x1="{x0}" y1="{py}" x2="{x1}" y2="{py}" stroke="#d0d7de" stroke-width="1"/>')
        parts.append(_text(x0 - 6, py + 4, f"{value:.2f}", anchor="end", fill=MUTED))
    return "".join(parts)


def _polyline(points: Sequence[tuple[float, float]], colour: str, css: str, *, dashed: bool = False) -> str:
    if not points:
        return ""
    coords = " ".join(f"{px},{py}" for px, py in points)
    dash = ' stroke-dasharray="6 4"' if dashed else ""
    return (f'<polyline class="{css}" points="{coords}" fill="none" stroke="{colour}" '
            f'stroke-width="2"{dash}/>')


def decay_curve(*, created_at: datetime, importance: float, accesses: Sequence[datetime],
                now: datetime, params: decay_model.DecayParams, pinned: bool = False) -> DecayCurve:
    """A memory's score from creation to now (jumping up at each access), its
    projected fall if nothing uses it again, the archive threshold and the day the
    projection crosses it. Built from palace.decay's pure functions only."""
    pinned = decay_model.is_pinned(importance, pinned)
    accesses = sorted((a for a in accesses if a >= created_at), key=lambda a: a.timestamp())
    state = decay_model.replay(created_at, importance, accesses, params)
    score_now = decay_model.score_at(state, now, params, pinned=pinned)
    crosses_at = None if pinned else decay_model.archive_due_at(state, params)
    end, crossing_in_view = _curve_horizon(created_at, now, crosses_at)
    x = _SplitAxis(created_at.timestamp(), now.timestamp(), end.timestamp(), MARGIN_LEFT, WIDTH - MARGIN_RIGHT)
    y = _Axis(0.0, 1.0, HEIGHT - MARGIN_BOTTOM, MARGIN_TOP)

    def score(st: decay_model.DecayState, at: datetime) -> float:
        return decay_model.score_at(st, at, params, pinned=pinned)

    past, markers = _past_curve(created_at, importance, accesses, now, params, score, x, y)
    fstep = (end - now) / 80  # the future: the fall from now if nothing reinforces the memory
    future = [(x((now + fstep * i).timestamp()), y(score(state, now + fstep * i))) for i in range(81)]
    desc = _curve_description(score_now, crosses_at, len(accesses), now, params, pinned=pinned)
    if x.scaled:
        desc += " Past and future are drawn to different time scales, meeting at now."
    parts = [_svg_open("Decay curve", desc, "decay-curve"),
             *_curve_frame(x, y, [created_at, now, now + (end - now) / 2, end], params, pinned=pinned),
             _polyline(past, PAST, "past"), _polyline(future, PROJECTED, "projection", dashed=True),
             *_curve_marks(x, y, markers, now, crosses_at if crossing_in_view else None,
                           params.archive_threshold),
             "</svg>"]
    return DecayCurve(svg="".join(parts), score_now=score_now, crosses_at=crosses_at,
                      crossing_in_view=crossing_in_view, pinned=pinned, scaled=x.scaled)


def _curve_horizon(created_at: datetime, now: datetime, crosses_at: datetime | None) -> tuple[datetime, bool]:
    """How far into the future the curve is drawn, and whether the crossing lies in view."""
    lived = max(now - created_at, timedelta(days=1))
    horizon = now + max(lived * 0.5, timedelta(days=30))
    if crosses_at is not None and crosses_at <= now + timedelta(days=MAX_PROJECTION_DAYS):
        return max(horizon, crosses_at + (crosses_at - now) * 0.1 + timedelta(days=1)), True
    return horizon, False


def _past_curve(created_at: datetime, importance: float, accesses: Sequence[datetime], now: datetime,
                params: decay_model.DecayParams, score, x, y):
    """The past, piecewise (each piece the fall from one reinforcement to the next), and
    the (moment, score after) of each access."""
    past: list[tuple[float, float]] = []
    markers = []
    st = decay_model.initial_state(created_at, importance, params)
    step = max((now - created_at) / CURVE_SAMPLES, timedelta(minutes=1))
    cursor = created_at
    for index, moment in enumerate([*accesses, now]):
        while cursor < moment:
            past.append((x(cursor.timestamp()), y(score(st, cursor))))
            cursor += step
        past.append((x(moment.timestamp()), y(score(st, moment))))
        if index < len(accesses):
            st = decay_model.reinforce(st, moment, params)
            after = score(st, moment)
            past.append((x(moment.timestamp()), y(after)))
            markers.append((moment, after))
    return past, markers


def _curve_description(score_now: float, crosses_at: datetime | None, accesses: int, now: datetime,
                       params: decay_model.DecayParams, *, pinned: bool) -> str:
    """The curve in words (the SVG's description, read by screen readers)."""
    threshold = params.archive_threshold
    if pinned:
        return "Pinned: the score stays at 1.00 and the memory is never archived."
    if crosses_at is None:
        return (f"Score now {score_now:.2f}; with this stability it will not reach the archive "
                f"threshold {threshold:.2f}.")
    if crosses_at <= now:
        return (f"Score now {score_now:.2f}; {accesses} past accesses; it fell under the "
                f"archive threshold {threshold:.2f} on "
                f"{crosses_at.strftime('%Y-%m-%d')}, so the next decay run archives it.")
    return (f"Score now {score_now:.2f}; {accesses} past accesses; if unused it falls "
            f"under the archive threshold {threshold:.2f} on "
            f"{crosses_at.strftime('%Y-%m-%d')}.")


def _curve_frame(x, y, ticks: list[datetime], params: decay_model.DecayParams, *, pinned: bool) -> list[str]:
    """The axes, the date ticks and (when decay can archive it) the threshold line."""
    x0, x1, y0 = MARGIN_LEFT, WIDTH - MARGIN_RIGHT, HEIGHT - MARGIN_BOTTOM
    parts = [_score_axis(y, x0, x1), f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}" stroke="{MUTED}"/>',
             _date_ticks(ticks, x, y0)]
    if params.enabled and not pinned:
        threshold_y = y(params.archive_threshold)
        parts.append(f'<line class="threshold" x1="{x0}" y1="{threshold_y}" x2="{x1}" '
                     f'y2="{threshold_y}" stroke="{THRESHOLD}" stroke-width="1.5" stroke-dasharray="2 3"/>')
        parts.append(_text(x0 + 4, threshold_y - 5, f"archive threshold {params.archive_threshold:.2f}",
                           anchor="start", fill=THRESHOLD))
    return parts


def _curve_marks(x, y, markers, now: datetime, crossing: datetime | None, threshold: float) -> list[str]:
    """The accesses, the now line and, when in view, the day the score crosses the threshold."""
    y0, y1 = HEIGHT - MARGIN_BOTTOM, MARGIN_TOP
    parts = [f'<circle class="access" cx="{x(moment.timestamp())}" cy="{y(after)}" r="4" '
             f'fill="{PAST}"><title>accessed {escape(moment.strftime("%Y-%m-%d %H:%M"))}'
             f"</title></circle>" for moment, after in markers]
    now_x = x(now.timestamp())
    parts.append(f'<line class="now" x1="{now_x}" y1="{y1}" x2="{now_x}" y2="{y0}" stroke="{NOW}" '
                 f'stroke-width="1.5"/>')
    parts.append(_text(now_x + 4, y0 - 6, "now", anchor="start", fill=NOW))
    if crossing is not None:
        cx, threshold_y = x(crossing.timestamp()), y(threshold)
        parts.append(f'<line class="crossing" x1="{cx}" y1="{threshold_y}" x2="{cx}" y2="{y0}" '
                     f'stroke="{THRESHOLD}" stroke-width="1.5"/>')
        parts.append(f'<circle cx="{cx}" cy="{threshold_y}" r="4" fill="{THRESHOLD}"/>')
        parts.append(_text(cx, threshold_y - 18, f"archive due {crossing.strftime('%Y-%m-%d')}",
                           anchor="end" if cx > WIDTH * 0.7 else "middle", fill=THRESHOLD))
    return parts


def decay_histogram(scores: Sequence[float], threshold: float, *, bins: int = 10,
                    as_of: datetime | None = None) -> str:
    """How many memories hold each decay score (bins of 0.1), with the archive threshold."""
    counts = [0] * bins
    for value in scores:
        counts[min(bins - 1, max(0, int(value * bins)))] += 1
    below = sum(1 for value in scores if value < threshold)
    x0, x1 = MARGIN_LEFT, WIDTH - MARGIN_RIGHT
    y0, y1 = HEIGHT - MARGIN_BOTTOM, MARGIN_TOP + 12
    x = _Axis(0.0, 1.0, x0, x1)
    top = max(counts) or 1
    y = _Axis(0.0, float(top), y0, y1)
    desc = (f"{len(scores)} memories by decay score; {below} under the archive threshold "
            f"{threshold:.2f}. " + ", ".join(f"{i / bins:.1f}-{(i + 1) / bins:.1f}: {c}"
                                           for i, c in enumerate(counts)))
    if as_of is not None:
        desc += f" Computed {as_of.strftime('%Y-%m-%d %H:%M')}."
    parts = [_svg_open("Decay distribution", desc, "decay-histogram"),
             f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}" stroke="{MUTED}"/>']
    width = (x1 - x0) / bins
    for i, count in enumerate(counts):
        left = x(i / bins)
        top_px = y(count)
        parts.append(f'<rect class="bin" x="{left + 1}" y="{top_px}" width="{round(width - 2, 2)}" '
                     f'height="{round(y0 - top_px, 2)}" fill="{PAST}"><title>{i / bins:.1f}–'
                     f"{(i + 1) / bins:.1f}: {count}</title></rect>")
        if count:
            parts.append(_text(left + width / 2, top_px - 4, f"{count:,}"))
    for i in range(0, bins + 1, 2):
        parts.append(_text(x(i / bins), y0 + 18, f"{i / bins:.1f}", fill=MUTED))
    tx = x(threshold)
    parts.append(f'<line class="threshold" x1="{tx}" y1="{MARGIN_TOP}" x2="{tx}" y2="{y0}" '
                 f'stroke="{THRESHOLD}" stroke-width="2" stroke-dasharray="4 3"/>')
    parts.append(_text(tx + 4, MARGIN_TOP + 8, f"archive threshold ({below:,} under)", anchor="start",
                       fill=THRESHOLD))
    axis_label = "decay score" + (f" (as of {as_of.strftime('%Y-%m-%d %H:%M')})" if as_of else "")
    parts.append(_text((x0 + x1) / 2, HEIGHT - 6, axis_label, fill=MUTED))
    parts.append("</svg>")
    return "".join(parts)


def rooms_over_time(per_month: Mapping[str, Mapping[str, int]], *, max_series: int = 6) -> str:
    """Memories per room over time: one cumulative line per room (the biggest rooms;
    the rest summed as "other rooms"), from {room: {"YYYY-MM": count}}."""
    totals = sorted(per_month, key=lambda room: (-sum(per_month[room].values()), room))
    series: dict[str, dict[str, int]] = {room: dict(per_month[room]) for room in totals[:max_series]}
    if totals[max_series:]:
        rest: dict[str, int] = {}
        for room in totals[max_series:]:
            for month, count in per_month[room].items():
                rest[month] = rest.get(month, 0) + count
        series["other rooms"] = rest
    months = sorted({month for counts in series.values() for month in counts})
    x0, x1 = MARGIN_LEFT, WIDTH - 200
    y0, y1 = HEIGHT - MARGIN_BOTTOM, MARGIN_TOP
    if not months:
        return (_svg_open("Memories per room over time", "No memories yet.", "rooms-over-time")
                + _text(WIDTH / 2, HEIGHT / 2, "no memories yet", fill=MUTED) + "</svg>")
    cumulative: dict[str, list[int]] = {}
    for room, counts in series.items():
        running, total = [], 0
        for month in months:
            total += counts.get(month, 0)
            running.append(total)
        cumulative[room] = running
    top = max(values[-1] for values in cumulative.values()) or 1
    x = _Axis(0.0, float(max(1, len(months) - 1)), x0, x1)
    y = _Axis(0.0, float(top), y0, y1)
    desc = "Cumulative memories by month of creation: " + "; ".join(
        f"{room} {values[-1]}" for room, values in cumulative.items())
    parts = [_svg_open("Memories per room over time", desc, "rooms-over-time"),
             f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}" stroke="{MUTED}"/>']
    for value in (0, top // 2, top):
        parts.append(_text(x0 - 6, y(value) + 4, f"{value:,}", anchor="end", fill=MUTED))
    ticks = sorted({0, len(months) // 2, len(months) - 1})
    for i in ticks:
        parts.append(_text(x(i), y0 + 18, months[i], fill=MUTED))
    for n, (room, values) in enumerate(cumulative.items()):
        colour = SERIES[n % len(SERIES)]
        points = [(x(i), y(v)) for i, v in enumerate(values)]
        if len(points) == 1:
            points.append((x1, points[0][1]))
        parts.append(_polyline(points, colour, "room-series"))
        ly = MARGIN_TOP + 16 * n + 8
        parts.append(f'<rect x="{x1 + 10}" y="{ly - 8}" width="10" height="10" fill="{colour}"/>')
        parts.append(_text(x1 + 24, ly + 1, f"{_clip_left(room, 20)} ({values[-1]:,})", anchor="start"))
    parts.append("</svg>")
    return "".join(parts)


def query_timeline(*, start: datetime | None, end: datetime | None, now: datetime,
                   hits: Sequence[tuple[datetime, str | None]] = (), label: str | None = None) -> str:
    """The time range a query resolved to, on a timeline with now and the results'
    creation days (hits are (created_at, placement))."""
    moments = [m for m in (start, end, now) if m is not None] + [h[0] for h in hits]
    lo, hi = min(moments, key=lambda m: m.timestamp()), max(moments, key=lambda m: m.timestamp())
    pad = max((hi - lo) * 0.08, timedelta(hours=12))
    lo, hi = lo - pad, hi + pad
    height = 110
    x0, x1 = MARGIN_LEFT, WIDTH - MARGIN_RIGHT
    axis_y = 62
    x = _Axis(lo.timestamp(), hi.timestamp(), x0, x1)
    span = f"{start.strftime('%Y-%m-%d %H:%M') if start else '…'} to " \
           f"{end.strftime('%Y-%m-%d %H:%M') if end else '…'} (end exclusive)"
    inside = sum(1 for _, placement in hits if placement == "inside")
    desc = (f"{('“' + label + '” resolved to ') if label else 'Time range '}{span}; "
            f"{inside} of {len(hits)} results were created inside it.")
    parts = [_svg_open("Time range of the query", desc, "query-timeline", height=height)]
    band_lo = x((start or lo).timestamp())
    band_hi = x((end or hi).timestamp())
    parts.append(f'<rect class="range" x="{band_lo}" y="{axis_y - 26}" width="{max(2.0, band_hi - band_lo)}" '
                 f'height="40" fill="{BAND}" stroke="{PAST}"/>')
    parts.append(_text((band_lo + band_hi) / 2, axis_y - 32, label or "range", fill=PAST))
    parts.append(f'<line x1="{x0}" y1="{axis_y}" x2="{x1}" y2="{axis_y}" stroke="{MUTED}"/>')
    for created, placement in hits:
        colour = PAST if placement in ("inside", None) else PROJECTED
        parts.append(f'<circle class="hit {escape(placement or "")}" cx="{x(created.timestamp())}" '
                     f'cy="{axis_y}" r="4" fill="{colour}"><title>result created '
                     f'{escape(created.strftime("%Y-%m-%d"))} ({escape(placement or "no range")})</title></circle>')
    nx = x(now.timestamp())
    parts.append(f'<line class="now" x1="{nx}" y1="{axis_y - 30}" x2="{nx}" y2="{axis_y + 16}" stroke="{NOW}" '
                 f'stroke-width="1.5"/>')
    parts.append(_text(nx, axis_y + 30, "now", fill=NOW))
    parts.append(_text(x0, height - 4, lo.strftime("%Y-%m-%d"), anchor="start", fill=MUTED))
    parts.append(_text(x1, height - 4, hi.strftime("%Y-%m-%d"), anchor="end", fill=MUTED))
    parts.append("</svg>")
    return "".join(parts)


def _clip_left(text: str, width: int) -> str:
    # rooms nest, so their last part tells them apart: "…palace/ops", not "projects/pal…"
    return text if len(text) <= width else "…" + text[-(width - 1):]
