"""Experiences: lessons that earn trust by verification and use (palace/features/experiences.py)."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from palace.cli import main as palace_main
from palace.errors import InvalidInputError, MemoryNotFoundError
from palace.features.experiences import (
    EFFECTIVENESS_WEIGHT,
    ExperienceManager,
    effectiveness_score,
    format_experience,
    parse_experience,
)
from palace.index import INDEX_DIR, INDEX_FILE
from palace.manager import MemoryPalaceManager
from palace.settings import Settings

TZ = ZoneInfo("Asia/Shanghai")
T0 = datetime(2026, 11, 2, 10, 0, tzinfo=TZ)


def at(days: float = 0, hours: float = 0) -> datetime:
    return T0 + timedelta(days=days, hours=hours)


def open_palace(workspace: Path) -> MemoryPalaceManager:
    settings = Settings.from_env({}, vector_enabled=False, timezone="Asia/Shanghai")
    return MemoryPalaceManager(workspace, settings=settings)


@pytest.fixture
def pm(tmp_path):
    with open_palace(tmp_path / "ws") as manager:
        yield manager


def record_port_lesson(pm, **kwargs):
    return pm.experiences.record(
        "docker compose up fails with 'port 5432 is already allocated'",
        "stop the old postgres container first: docker rm -f pg-old",
        tags=["docker", "postgres"], context="staging host, compose v2", created_at=T0, **kwargs)


# --------------------------------------------------------------------------- the formula

@pytest.mark.parametrize("worked, failed, usage, expected", [
    (0, 0, 0, 0.0),
    (1, 0, 0, 0.3),
    (2, 0, 0, 0.6),
    (3, 0, 0, 0.9),
    (4, 0, 0, 1.0),    # capped at 1
    (0, 0, 3, 0.3),    # each use adds 0.1
    (2, 0, 5, 1.0),
    (1, 1, 0, 0.2),    # a failure takes 0.1 back
    (2, 1, 1, 0.6),
    (0, 3, 0, 0.0),    # never below 0
    (1, 5, 1, 0.0),
])
def test_effectiveness_formula(worked, failed, usage, expected):
    assert effectiveness_score(worked, failed, usage) == pytest.approx(expected)


def test_manager_property_builds_one_experience_manager(pm):
    assert isinstance(pm.experiences, ExperienceManager)
    assert pm.experiences is pm.experiences


# --------------------------------------------------------------------------- record

def test_record_stores_a_readable_experience_memory(pm):
    memory = record_port_lesson(pm)
    assert memory.type == "experience" and memory.location == "experiences"
    assert memory.importance == 0.6 and memory.tags == ("docker", "postgres")
    assert memory.created_at == T0
    assert memory.content == (
        "What happened: docker compose up fails with 'port 5432 is already allocated'\n\n"
        "What worked: stop the old postgres container first: docker rm -f pg-old\n\n"
        "Context: staging host, compose v2")
    text = memory.path.read_text(encoding="utf-8")
    assert 'type: "experience"' in text and "What worked: stop the old postgres" in text
    assert memory.path.parent.name == "experiences"
    stats = pm.experiences.stats(memory.id)
    assert (stats.verified_count, stats.failed_count, stats.usage_count) == (0, 0, 0)
    assert stats.effectiveness == 0.0 and not stats.verified


def test_record_without_context_and_with_options(pm):
    memory = pm.experiences.record("pip 安装报错 externally-managed-environment", "用 venv 安装",
                                   location="lessons/python", importance=0.9)
    assert memory.content == ("What happened: pip 安装报错 externally-managed-environment\n\n"
                              "What worked: 用 venv 安装")
    assert memory.location == "lessons/python" and memory.importance == 0.9


@pytest.mark.parametrize("happened, worked, context", [
    ("", "x", None), ("   ", "x", None), ("x", "", None), (None, "x", None), ("x", "y", 3),
])
def test_record_rejects_empty_or_wrong_input(pm, happened, worked, context):
    with pytest.raises(InvalidInputError):
        pm.experiences.record(happened, worked, context=context)
    assert pm.list(type="experience") == []


def test_parse_experience_reads_the_layout_back():
    content = format_experience("it broke\nwith two lines", "fixed it", "prod")
    assert parse_experience(content) == {"what_happened": "it broke\nwith two lines",
                                         "what_worked": "fixed it", "context": "prod"}
    assert parse_experience("just a sentence someone wrote") == {
        "what_happened": "just a sentence someone wrote", "what_worked": None, "context": None}
    assert parse_experience("what happened:  a\nWHAT WORKED: b")["what_worked"] == "b"


# --------------------------------------------------------------------------- verify

def test_verify_writes_the_verification_into_the_file(pm):
    memory = record_port_lesson(pm)
    stats = pm.experiences.verify(memory.id, True, "worked on staging", now=at(1))
    assert (stats.verified_count, stats.failed_count, stats.effectiveness) == (1, 0, 0.3)
    assert stats.last_verified_at == at(1)
    text = memory.path.read_text(encoding="utf-8")
    assert "verifications:" in text and "worked on staging" in text
    entries = pm.get(memory.id, record_access=False).extra["verifications"]
    assert entries == [{"at": at(1).isoformat(), "effective": True, "note": "worked on staging"}]
    # the lesson itself is untouched
    assert pm.get(memory.id, record_access=False).content == memory.content


def test_two_positive_verifications_make_it_verified(pm):
    memory = record_port_lesson(pm)
    assert not pm.experiences.verify(memory.id, True, now=at(1)).verified
    stats = pm.experiences.verify(memory.id, True, now=at(2))
    assert stats.verified and stats.verified_count == 2
    assert stats.effectiveness == pytest.approx(0.6)


def test_a_failed_verification_subtracts_and_does_not_count_towards_verified(pm):
    memory = record_port_lesson(pm)
    pm.experiences.verify(memory.id, True, now=at(1))
    stats = pm.experiences.verify(memory.id, False, "port was taken by redis", now=at(2))
    assert (stats.verified_count, stats.failed_count) == (1, 1)
    assert stats.effectiveness == pytest.approx(0.2) and not stats.verified
    stats = pm.experiences.verify(memory.id, False, now=at(3))
    stats = pm.experiences.verify(memory.id, False, now=at(4))
    assert stats.effectiveness == 0.0  # clamped, never negative


def test_verify_keeps_other_frontmatter_and_hand_written_entries(pm):
    memory = record_port_lesson(pm)
    text = memory.path.read_text(encoding="utf-8")
    hand_edited = text.replace(
        'type: "experience"\n',
        'type: "experience"\nowner: "ops-team"\nverifications:\n'
        '  - at: 2026-11-01\n    effective: yes\n    note: tried by hand\n'
        '  - "a line someone typed"\n')
    memory.path.write_text(hand_edited, encoding="utf-8")
    stats = pm.experiences.stats(memory.id)  # picks the hand edit up
    assert stats.verified_count == 1
    stats = pm.experiences.verify(memory.id, True, now=at(1))
    assert stats.verified_count == 2 and stats.verified
    after = pm.get(memory.id, record_access=False)
    assert after.extra["owner"] == "ops-team"
    assert len(after.extra["verifications"]) == 3
    assert "a line someone typed" in memory.path.read_text(encoding="utf-8")


def _verify_many(workspace: str, memory_id: str, effective: bool, times: int) -> None:
    with open_palace(Path(workspace)) as pm:
        for n in range(times):
            pm.experiences.verify(memory_id, effective, f"run {n}", now=at(1, hours=n))


def test_concurrent_verifications_are_all_kept(pm):
    import multiprocessing

    memory = record_port_lesson(pm)
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_verify_many, args=(str(pm.settings.workspace), memory.id,
                                                          effective, 6))
               for effective in (True, False)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    stats = pm.experiences.stats(memory.id)
    assert (stats.verified_count, stats.failed_count) == (6, 6)


def test_verify_refuses_what_is_not_an_experience(pm):
    fact = pm.store("the database is PostgreSQL")
    with pytest.raises(InvalidInputError):
        pm.experiences.verify(fact.id, True)
    with pytest.raises(MemoryNotFoundError):
        pm.experiences.verify("no-such-id", True)
    memory = record_port_lesson(pm)
    with pytest.raises(InvalidInputError):
        pm.experiences.verify(memory.id, "yes")
    with pytest.raises(InvalidInputError):
        pm.experiences.stats(fact.id)


def test_verification_reinforces_the_lesson_against_decay(pm):
    memory = record_port_lesson(pm)
    pm.experiences.verify(memory.id, True, now=at(30))
    assert pm.get(memory.id, record_access=False, now=at(31)).access_count == 1


# --------------------------------------------------------------------------- search and usage

def test_search_finds_experiences_only(pm):
    lesson = record_port_lesson(pm)
    pm.store("postgres container on staging uses port 5432", created_at=T0)
    results = pm.experiences.search("postgres port 5432", now=at(1))
    assert [r.memory.id for r in results] == [lesson.id]
    assert results[0].lesson["what_worked"].startswith("stop the old postgres")


def test_each_search_that_returns_a_lesson_is_one_use(pm):
    memory = record_port_lesson(pm)
    for day in range(1, 4):
        pm.experiences.search("port already allocated", now=at(day))
    stats = pm.experiences.stats(memory.id)
    assert stats.usage_count == 3 and stats.effectiveness == pytest.approx(0.3)
    assert not stats.verified, "use alone never makes a lesson verified"


def test_a_burst_of_identical_queries_is_one_use(pm):
    memory = record_port_lesson(pm)
    for minute in range(10):
        pm.experiences.search("port already allocated", now=at(1) + timedelta(minutes=minute))
    assert pm.experiences.stats(memory.id).usage_count == 1


def test_usage_is_journalled_and_never_rewrites_the_file(pm):
    memory = record_port_lesson(pm)
    raw, mtime = memory.path.read_bytes(), memory.path.stat().st_mtime_ns
    for day in range(1, 6):
        pm.experiences.search("docker port", now=at(day))
    assert memory.path.read_bytes() == raw and memory.path.stat().st_mtime_ns == mtime
    kinds = [json.loads(line)["kind"] for line in pm.journal_path.read_text().splitlines()]
    assert kinds == ["experience"] * 5
    # a use is also an access: it keeps the lesson from fading
    assert pm.get(memory.id, record_access=False, now=at(6)).access_count == 5


def test_plain_memory_search_is_not_experience_usage(pm):
    memory = record_port_lesson(pm)
    assert [r.memory.id for r in pm.search("docker port", now=at(1))] == [memory.id]
    assert pm.experiences.stats(memory.id).usage_count == 0


def test_counts_survive_reindex_and_a_deleted_index(tmp_path):
    workspace = tmp_path / "ws"
    with open_palace(workspace) as pm:
        memory = record_port_lesson(pm)
        pm.experiences.verify(memory.id, True, now=at(1))
        pm.experiences.verify(memory.id, False, now=at(2))
        pm.experiences.verify(memory.id, True, now=at(3))
        for day in range(4, 8):
            pm.experiences.search("docker port", now=at(day))
        before = pm.experiences.stats(memory.id)
        assert (before.verified_count, before.failed_count, before.usage_count) == (2, 1, 4)
        pm.reindex()
        assert pm.experiences.stats(memory.id) == before
        index_file = pm.root / INDEX_DIR / INDEX_FILE
    for suffix in ("", "-wal", "-shm"):
        Path(str(index_file) + suffix).unlink(missing_ok=True)
    with open_palace(workspace) as pm:
        assert pm.experiences.stats(memory.id) == before
        assert before.effectiveness == pytest.approx(0.3 * 2 - 0.1 + 0.1 * 4)


def _twin_lessons(pm):
    # same words, same length, same importance and age: relevance ties
    first = pm.experiences.record("nginx 502 after deploy alpha", "restart php-fpm", created_at=T0)
    second = pm.experiences.record("nginx 502 after deploy omega", "restart php-fpm", created_at=T0)
    return first, second


def test_effectiveness_lifts_a_lesson_among_equally_relevant_ones(pm):
    first, second = _twin_lessons(pm)
    pm.experiences.verify(second.id, True, now=at(1))
    pm.experiences.verify(second.id, True, now=at(1, hours=2))
    results = pm.experiences.search("nginx 502", now=at(2))
    assert [r.memory.id for r in results] == [second.id, first.id]
    top = results[0]
    assert top.explanation["effectiveness"] == pytest.approx(0.6)
    assert top.score == pytest.approx((1 - EFFECTIVENESS_WEIGHT) * top.explanation["memory_score"]
                                      + EFFECTIVENESS_WEIGHT * 0.6)
    assert top.explanation["search"].relevance == results[1].explanation["search"].relevance


def test_failures_push_a_lesson_below_its_twin(pm):
    first, second = _twin_lessons(pm)
    pm.experiences.verify(first.id, True, now=at(1))
    pm.experiences.verify(second.id, True, now=at(1))
    pm.experiences.verify(first.id, False, now=at(1, hours=2))
    results = pm.experiences.search("nginx 502", now=at(2))
    assert [r.memory.id for r in results] == [second.id, first.id]


def test_relevance_still_dominates_trust(pm):
    proven = pm.experiences.record("redis OOM during nightly batch", "raise maxmemory", created_at=T0)
    for n in range(4):
        pm.experiences.verify(proven.id, True, now=at(1, hours=2 * n))
    fresh = pm.experiences.record("nginx 502 after deploy", "restart php-fpm", created_at=T0)
    results = pm.experiences.search("nginx 502 deploy", now=at(2))
    assert [r.memory.id for r in results] == [fresh.id]


def test_search_options(pm):
    _first, second = _twin_lessons(pm)
    tagged = pm.experiences.record("nginx 502 on the canary", "drain the canary", tags=["canary"],
                                   created_at=T0)
    pm.experiences.verify(second.id, True, now=at(1))
    pm.experiences.verify(second.id, True, now=at(1, hours=2))
    verified = pm.experiences.search("nginx 502", now=at(2), verified_only=True)
    assert [r.memory.id for r in verified] == [second.id]
    assert [r.memory.id for r in pm.experiences.search("nginx 502", now=at(2), tags=["canary"])] == [tagged.id]
    assert len(pm.experiences.search("nginx 502", now=at(2), top_k=2)) == 2
    with pytest.raises(InvalidInputError):
        pm.experiences.search("nginx", top_k=0)
    with pytest.raises(InvalidInputError):
        pm.experiences.search("   ")


def test_only_returned_lessons_count_a_use(pm):
    first, second = _twin_lessons(pm)
    pm.experiences.verify(second.id, True, now=at(1))
    pm.experiences.search("nginx 502", now=at(2), top_k=1)
    assert pm.experiences.stats(second.id).usage_count == 1
    assert pm.experiences.stats(first.id).usage_count == 0
    pm.experiences.search("nginx 502", now=at(3), verified_only=True)
    assert pm.experiences.stats(first.id).usage_count == 0


# --------------------------------------------------------------------------- list

def test_list_sorts_by_effectiveness_and_filters_verified(pm):
    low = pm.experiences.record("a", "b", created_at=T0)
    high = pm.experiences.record("c", "d", created_at=T0)
    middle = pm.experiences.record("e", "f", created_at=T0)
    pm.store("not an experience")
    for n in range(3):
        pm.experiences.verify(high.id, True, now=at(1, hours=2 * n))
    pm.experiences.verify(middle.id, True, now=at(1))
    listed = pm.experiences.list()
    assert [r.memory.id for r in listed] == [high.id, middle.id, low.id]
    assert [r.score for r in listed] == pytest.approx([0.9, 0.3, 0.0])
    assert [r.memory.id for r in pm.experiences.list(verified_only=True)] == [high.id]
    # listing is not using
    assert pm.experiences.stats(low.id).usage_count == 0


def test_archived_lessons_drop_out_of_list_and_search(pm):
    memory = pm.experiences.record("cron job silently skipped", "use systemd timers",
                                   importance=0.0, created_at=T0 - timedelta(days=400))
    pm.run_decay(now=T0)
    assert pm.experiences.list() == []
    assert pm.experiences.search("cron job skipped", now=T0) == []
    pm.restore(memory.id)
    assert [r.memory.id for r in pm.experiences.list()] == [memory.id]


# --------------------------------------------------------------------------- CLI

@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    for name in list(os.environ):
        if name.startswith("MEMORY_"):
            monkeypatch.delenv(name)
    for name, value in {"MEMORY_WORKSPACE_DIR": str(tmp_path / "ws"), "MEMORY_VECTOR_ENABLED": "false",
                        "MEMORY_TIMEZONE": "Asia/Shanghai"}.items():
        monkeypatch.setenv(name, value)

    def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = palace_main(list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    assert run("init")[0] == 0  # only init and add create a palace
    return run


def test_cli_record_verify_search_list(cli):
    code, out, _ = cli("experience", "record", "--happened", "git push rejected: non-fast-forward",
                       "--worked", "git pull --rebase, then push", "--tag", "git",
                       "--context", "shared main branch", "--created-at", T0.isoformat(), "--json")
    assert code == 0
    memory = json.loads(out)
    assert memory["type"] == "experience" and memory["tags"] == ["git"]
    lesson_id = memory["id"]

    code, out, _ = cli("experience", "verify", lesson_id, "--worked", "--note", "clean history",
                       "--json")
    assert code == 0 and json.loads(out)["verified_count"] == 1
    code, out, _ = cli("experience", "verify", lesson_id, "--worked")
    assert code == 0 and "verified" in out and "0.60" in out
    code, out, _ = cli("experience", "verify", lesson_id, "--failed", "--json")
    data = json.loads(out)
    assert (data["verified_count"], data["failed_count"], data["verified"]) == (2, 1, True)
    assert data["effectiveness"] == pytest.approx(0.5)

    code, out, _ = cli("experience", "search", "git push rejected", "--now", at(1).isoformat(),
                       "--json")
    [result] = json.loads(out)
    assert code == 0 and result["memory"]["id"] == lesson_id
    assert result["lesson"]["what_worked"] == "git pull --rebase, then push"
    assert result["stats"]["usage_count"] == 0  # the stats the ranking used
    assert set(result["explanation"]) >= {"memory_score", "effectiveness", "weights", "search"}

    code, out, _ = cli("experience", "search", "git push rejected", "--verified-only",
                       "--now", at(2).isoformat())
    assert code == 0 and lesson_id in out and "git pull --rebase" in out

    code, out, _ = cli("experience", "list", "--json")
    [listed] = json.loads(out)
    assert listed["stats"]["usage_count"] == 2
    assert listed["stats"]["effectiveness"] == pytest.approx(0.7)
    code, out, _ = cli("experience", "--json", "list", "--verified-only")
    assert [r["memory"]["id"] for r in json.loads(out)] == [lesson_id]
    code, out, _ = cli("experience", "list")
    assert code == 0 and lesson_id in out


def test_cli_errors(cli):
    code, _, err = cli("experience", "verify", "abc")  # --worked or --failed is required
    assert code == 2 and "--worked or --failed" in err
    code, _, err = cli("experience", "verify", "abc", "--worked", "--failed")
    assert code == 2 and "--worked or --failed" in err
    code, _, err = cli("experience", "verify", "no-such-id", "--worked")
    assert code == 1 and "no-such-id" in err
    code, _, err = cli("experience", "record", "--happened", " ", "--worked", "x")
    assert code == 2
    code, out, _ = cli("experience", "list")
    assert code == 0 and "(no experiences)" in out
