"""The decay model: hand-computed examples, then hypothesis properties."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given, settings as hypothesis_settings, strategies as st

from palace.decay import (
    DecayParams,
    DecayState,
    archive_due_at,
    current_score,
    initial_state,
    is_pinned,
    reinforce,
    replay,
    score_at,
    should_archive,
)
from palace.errors import ConfigError
from palace.settings import Settings

CREATED = datetime(2026, 1, 1, 9, 0, tzinfo=timezone.utc)
DEFAULTS = DecayParams()


def day(n: float, start: datetime = CREATED) -> datetime:
    """``n`` days of elapsed time after ``start``, kept in ``start``'s zone.

    Added in UTC: Python adds a timedelta to a zoned datetime by wall clock,
    which is an hour off across a DST change.
    """
    return (start.astimezone(timezone.utc) + timedelta(days=n)).astimezone(start.tzinfo)


# --- examples computed by hand ----------------------------------------------------


def test_fresh_memory_scores_exactly_one():
    assert current_score(CREATED, 0.0, [], CREATED, DEFAULTS) == 1.0


def test_importance_zero_after_one_stability_period_is_e_to_minus_one():
    # S0 = 30 x (1 + 4 x 0) = 30; R = exp(-30/30)
    assert current_score(CREATED, 0.0, [], day(30), DEFAULTS) == pytest.approx(math.exp(-1), rel=1e-12)


def test_importance_half_triples_stability():
    # S0 = 30 x (1 + 4 x 0.5) = 90
    assert initial_state(CREATED, 0.5, DEFAULTS).stability_days == pytest.approx(90.0)
    assert current_score(CREATED, 0.5, [], day(90), DEFAULTS) == pytest.approx(math.exp(-1), rel=1e-12)
    assert current_score(CREATED, 0.5, [], day(45), DEFAULTS) == pytest.approx(math.exp(-0.5), rel=1e-12)


def test_one_access_after_thirty_days():
    state = replay(CREATED, 0.0, [day(30)], DEFAULTS)
    score_before = math.exp(-1)                               # 0.367879...
    assert state.anchor == day(30)
    assert state.access_count == 1
    assert state.anchor_score == pytest.approx(0.9 * score_before + 0.2)            # 0.531091...
    assert state.anchor_score == pytest.approx(0.5310915, abs=1e-7)
    # 1 - e^-1 = 0.632121 had been forgotten: S = 30 x (1 + 0.5 x 0.632121) = 39.48181
    assert state.stability_days == pytest.approx(30 * (1 + 0.5 * (1 - math.exp(-1))))
    assert state.stability_days == pytest.approx(39.48181, abs=1e-5)
    later = day(30 + state.stability_days)
    assert score_at(state, later, DEFAULTS) == pytest.approx(0.5310915 * math.exp(-1), abs=1e-7)


def test_access_right_after_creation_keeps_stability_and_caps_score():
    state = replay(CREATED, 0.0, [CREATED], DEFAULTS)
    # min(1, 1 x 0.9 + 0.2) = 1; nothing forgotten, so S stays 30
    assert state == DecayState(anchor=CREATED, anchor_score=1.0, stability_days=30.0, access_count=1)


def test_recovery_is_capped_at_one():
    # after 1 day: e^(-1/30) = 0.96722; 0.9 x 0.96722 + 0.2 = 1.0705 -> 1
    assert replay(CREATED, 0.0, [day(1)], DEFAULTS).anchor_score == 1.0


def test_low_recovery_factor_never_lets_an_access_lower_the_score():
    params = DecayParams(recovery_factor=0.05)
    state = initial_state(CREATED, 0.0, params)
    at = day(30 * math.log(1 / 0.9))         # score 0.9 here; the bare rule gives 0.86
    assert score_at(state, at, params) == pytest.approx(0.9)
    assert reinforce(state, at, params).anchor_score == pytest.approx(0.9)


def test_days_until_archived_without_access():
    # threshold 0.1: exp(-d/S0) = 0.1  <=>  d = S0 x ln 10
    expected_days = {0.0: 69.0776, 0.5: 207.2327, 0.9: 317.7567}
    for importance, days in expected_days.items():
        due = archive_due_at(initial_state(CREATED, importance, DEFAULTS), DEFAULTS)
        assert (due - CREATED) / timedelta(days=1) == pytest.approx(days, abs=1e-4)
        assert not should_archive(current_score(CREATED, importance, [], day(days - 0.01), DEFAULTS), DEFAULTS)
        assert should_archive(current_score(CREATED, importance, [], day(days + 0.01), DEFAULTS), DEFAULTS)


def test_archive_due_at_edge_cases():
    state = initial_state(CREATED, 0.0, DEFAULTS)
    assert archive_due_at(state, DEFAULTS, pinned=True) is None
    assert archive_due_at(state, DecayParams(enabled=False)) is None
    assert archive_due_at(state, DecayParams(archive_threshold=0.0)) is None
    faded = DecayState(anchor=CREATED, anchor_score=0.05, stability_days=30.0, access_count=3)
    assert archive_due_at(faded, DEFAULTS) == CREATED


def test_spaced_accesses_outlast_crammed_ones():
    # Both start on day 1 with four accesses: at growing intervals vs within three hours.
    spaced = replay(CREATED, 0.0, [day(1), day(3), day(7), day(15)], DEFAULTS)
    crammed = replay(CREATED, 0.0, [day(1), day(1 + 1 / 24), day(1 + 2 / 24), day(1 + 3 / 24)], DEFAULTS)
    for later in (30, 60, 90):
        assert score_at(spaced, day(later), DEFAULTS) > score_at(crammed, day(later), DEFAULTS)
    assert score_at(spaced, day(60), DEFAULTS) == pytest.approx(0.2666, abs=1e-4)
    assert score_at(crammed, day(60), DEFAULTS) == pytest.approx(0.1456, abs=1e-4)
    assert archive_due_at(spaced, DEFAULTS) > archive_due_at(crammed, DEFAULTS)


def test_spacing_builds_more_stability_than_cramming_with_the_same_last_access():
    # Same count, same last access (day 75): intervals 5, 10, 20, 40 vs one a day.
    spaced = replay(CREATED, 0.0, [day(5), day(15), day(35), day(75)], DEFAULTS)
    crammed = replay(CREATED, 0.0, [day(72), day(73), day(74), day(75)], DEFAULTS)
    assert spaced.stability_days == pytest.approx(57.479, abs=1e-3)
    assert crammed.stability_days == pytest.approx(45.122, abs=1e-3)


def test_now_before_the_anchor_counts_as_no_time_passed():
    state = replay(CREATED, 0.0, [day(30)], DEFAULTS)
    assert score_at(state, day(10), DEFAULTS) == state.anchor_score
    assert current_score(CREATED, 0.0, [], day(-5), DEFAULTS) == 1.0


def test_accesses_before_creation_are_ignored():
    assert replay(CREATED, 0.3, [day(-2), day(-1)], DEFAULTS) == initial_state(CREATED, 0.3, DEFAULTS)


def test_pinned_memories_never_fade():
    ten_years = day(3650)
    assert current_score(CREATED, 1.0, [], ten_years, DEFAULTS) == 1.0
    assert current_score(CREATED, 0.0, [], ten_years, DEFAULTS, pinned=True) == 1.0
    assert score_at(initial_state(CREATED, 0.0, DEFAULTS), ten_years, DEFAULTS, pinned=True) == 1.0
    assert is_pinned(1.0, False) and is_pinned(0.2, True) and is_pinned(0.2, None) is False


def test_disabled_decay_keeps_everything_and_archives_nothing():
    params = DecayParams(enabled=False)
    assert current_score(CREATED, 0.0, [], day(3650), params) == 1.0
    assert not should_archive(0.0, params)
    assert should_archive(0.0999, DEFAULTS) and not should_archive(0.1, DEFAULTS)


def test_elapsed_time_is_exact_across_a_dst_change():
    berlin = ZoneInfo("Europe/Berlin")
    created = datetime(2026, 3, 28, 12, 0, tzinfo=berlin)      # CET, UTC+1
    now = datetime(2026, 3, 29, 12, 0, tzinfo=berlin)          # CEST, UTC+2: 23 h later
    expected = math.exp(-(23 / 24) / 30)
    assert current_score(created, 0.0, [], now, DEFAULTS) == pytest.approx(expected, rel=1e-12)


def test_timestamps_in_other_zones_are_the_same_instants():
    shanghai = CREATED.astimezone(ZoneInfo("Asia/Shanghai"))
    assert current_score(shanghai, 0.0, [day(10)], day(40), DEFAULTS) == pytest.approx(
        current_score(CREATED, 0.0, [day(10)], day(40), DEFAULTS), rel=1e-15)


def test_mixing_naive_and_aware_timestamps_says_so():
    with pytest.raises(TypeError, match="time zone"):
        current_score(CREATED, 0.0, [], datetime(2026, 2, 1), DEFAULTS)


def test_naive_timestamps_work_on_their_own():
    created = datetime(2026, 1, 1)
    assert current_score(created, 0.0, [], created + timedelta(days=30), DEFAULTS) == pytest.approx(math.exp(-1))


def test_out_of_range_importance_is_clamped():
    assert initial_state(CREATED, -0.5, DEFAULTS).stability_days == 30.0
    assert initial_state(CREATED, float("nan"), DEFAULTS).stability_days == 30.0
    assert initial_state(CREATED, 7.0, DEFAULTS).stability_days == 150.0


def test_params_from_settings():
    env = {
        "MEMORY_DECAY_ENABLED": "false",
        "MEMORY_DECAY_ARCHIVE_THRESHOLD": "0.05",
        "MEMORY_DECAY_RECOVERY_FACTOR": "0.3",
        "MEMORY_DECAY_BASE_STABILITY_DAYS": "14",
        "MEMORY_DECAY_IMPORTANCE_BOOST": "2",
        "MEMORY_DECAY_ACCESS_GROWTH": "1.5",
    }
    assert DecayParams.from_settings(Settings.from_env(env)) == DecayParams(
        enabled=False, archive_threshold=0.05, recovery_factor=0.3,
        base_stability_days=14.0, importance_boost=2.0, access_growth=1.5)
    assert DecayParams.from_settings(Settings.from_env({})) == DEFAULTS


@pytest.mark.parametrize("bad", [
    {"base_stability_days": 0.0},
    {"base_stability_days": float("inf")},
    {"archive_threshold": 1.5},
    {"recovery_factor": -0.1},
    {"importance_boost": -1.0},
    {"access_growth": float("nan")},
])
def test_unusable_params_are_refused(bad):
    with pytest.raises(ConfigError, match="MEMORY_DECAY_"):
        DecayParams(**bad)


# --- properties -------------------------------------------------------------------

params_strategy = st.builds(
    DecayParams,
    enabled=st.just(True),
    archive_threshold=st.floats(0.0, 1.0),
    recovery_factor=st.floats(0.0, 1.0),
    base_stability_days=st.floats(0.01, 3650.0),
    importance_boost=st.floats(0.0, 20.0),
    access_growth=st.floats(0.0, 5.0),
)
created_strategy = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.timezones())
importance_strategy = st.floats(0.0, 0.999)
offset_days = st.floats(0.0, 3650.0)
offsets_strategy = st.lists(offset_days, max_size=12)


def at_offsets(created: datetime, offsets: list[float]) -> list[datetime]:
    return [day(offset, created) for offset in offsets]


@given(params_strategy, created_strategy, importance_strategy, offsets_strategy,
       st.floats(-100.0, 8000.0))
def test_score_stays_within_zero_and_one(params, created, importance, offsets, now_offset):
    score = current_score(created, importance, at_offsets(created, offsets), day(now_offset, created), params)
    assert 0.0 <= score <= 1.0


@given(params_strategy, created_strategy, importance_strategy)
def test_score_is_exactly_one_at_creation(params, created, importance):
    assert current_score(created, importance, [], created, params) == 1.0


@given(params_strategy, created_strategy, importance_strategy, offsets_strategy, offset_days, offset_days)
def test_score_never_rises_without_an_access(params, created, importance, offsets, first, second):
    state = replay(created, importance, at_offsets(created, offsets), params)
    earlier, later = sorted((first, second))
    assert score_at(state, day(earlier, created), params) >= score_at(state, day(later, created), params)


@given(params_strategy, created_strategy, importance_strategy, offsets_strategy, offset_days, offset_days)
def test_an_access_never_lowers_the_score_afterwards(params, created, importance, offsets, access, extra):
    """Adding an access anywhere in the history never lowers any later score."""
    history = at_offsets(created, offsets)
    accessed_at = day(access, created)
    now = day(extra, max([accessed_at, *history]))
    without = current_score(created, importance, history, now, params)
    with_access = current_score(created, importance, [*history, accessed_at], now, params)
    assert with_access >= without - 1e-12


@given(params_strategy, created_strategy, importance_strategy, importance_strategy,
       offsets_strategy, offset_days)
def test_more_importance_never_decays_faster(params, created, first, second, offsets, extra):
    history = at_offsets(created, offsets)
    now = day(extra, max([created, *history]))
    lower, higher = sorted((first, second))
    assert (current_score(created, higher, history, now, params)
            >= current_score(created, lower, history, now, params) - 1e-12)


@given(params_strategy, created_strategy, importance_strategy, offsets_strategy, offset_days,
       st.booleans())
def test_pinned_memories_always_score_one(params, created, importance, offsets, now_offset, by_importance):
    history = at_offsets(created, offsets)
    now = day(now_offset, created)
    if by_importance:
        assert current_score(created, 1.0, history, now, params) == 1.0
    else:
        assert current_score(created, importance, history, now, params, pinned=True) == 1.0


@given(params_strategy, created_strategy, importance_strategy, offsets_strategy, offset_days)
def test_an_access_applies_the_recovery_rule(params, created, importance, offsets, gap):
    state = replay(created, importance, at_offsets(created, offsets), params)
    accessed_at = day(gap, state.anchor)
    before = score_at(state, accessed_at, params)
    rule = min(1.0, before * 0.9 + params.recovery_factor)
    after = reinforce(state, accessed_at, params)
    if rule >= before:
        assert after.anchor_score == rule
    else:  # only possible with recovery_factor < 0.1: the access keeps the score instead
        assert params.recovery_factor < 0.1
        assert after.anchor_score == before
    assert score_at(after, accessed_at, params) == after.anchor_score
    assert after.access_count == state.access_count + 1


@given(params_strategy, created_strategy, importance_strategy, offsets_strategy, offset_days, offset_days)
def test_a_later_access_grows_stability_at_least_as_much(params, created, importance, offsets, first, second):
    state = replay(created, importance, at_offsets(created, offsets), params)
    sooner, later = sorted((first, second))
    assert (reinforce(state, day(sooner, state.anchor), params).stability_days
            <= reinforce(state, day(later, state.anchor), params).stability_days)


@given(params_strategy, created_strategy, importance_strategy,
       st.lists(st.floats(-30.0, 3650.0), max_size=12), st.randoms(use_true_random=False))
def test_replay_ignores_the_order_of_the_journal(params, created, importance, offsets, random):
    history = at_offsets(created, offsets)
    shuffled = list(history)
    random.shuffle(shuffled)
    assert replay(created, importance, shuffled, params) == replay(created, importance, sorted(history), params)


@given(params_strategy, created_strategy, importance_strategy, offsets_strategy, offset_days)
def test_extending_a_cached_state_equals_a_full_replay(params, created, importance, offsets, gap):
    history = at_offsets(created, offsets)
    cached = replay(created, importance, history, params)
    new_access = day(gap, cached.anchor)
    assert reinforce(cached, new_access, params) == replay(created, importance, [*history, new_access], params)


@hypothesis_settings(max_examples=50)
@given(params_strategy, created_strategy, importance_strategy, offsets_strategy)
@example(  # found by a CI run: neither threshold nor stability extreme, yet past year 9999
    params=DecayParams(enabled=True, archive_threshold=1.175494351e-38, recovery_factor=0.0,
                       base_stability_days=2065.0, importance_boost=20.0, access_growth=0.0),
    created=datetime(2100, 1, 1, tzinfo=ZoneInfo("UTC")), importance=0.75, offsets=[])
def test_archive_due_at_is_where_the_score_meets_the_threshold(params, created, importance, offsets):
    state = replay(created, importance, at_offsets(created, offsets), params)
    due = archive_due_at(state, params)
    if due is None:  # a threshold of 0 is never met; otherwise the date lies past year 9999
        if params.archive_threshold > 0:
            days = state.stability_days * math.log(state.anchor_score / params.archive_threshold)
            assert days > (datetime.max.replace(tzinfo=timezone.utc) - state.anchor).days - 2
    elif due > state.anchor:
        assert score_at(state, due, params) == pytest.approx(params.archive_threshold, rel=1e-6, abs=1e-9)
