"""Decay through the manager and the CLI: every rule of docs/decay.md, end to end.

The pure model is tested in test_decay.py; here the history comes from real
searches and gets (journalled at an explicit ``now``), and the effects are
checked where a user sees them: ``run_decay``, search ranking, files, the CLI.

Time words and concept expansion are switched off: the queries here hold no
time words, and expansions would only add unrelated matches to the ranking.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from palace.cli import main as palace_main
from palace.index import INDEX_DIR, INDEX_FILE
from palace.manager import MemoryPalaceManager
from palace.settings import Settings

TZ = ZoneInfo("Asia/Shanghai")
CREATED = datetime(2026, 1, 5, 9, 0, tzinfo=TZ)
TODAY = datetime(2026, 11, 30, 9, 0, tzinfo=TZ)  # 329 days after CREATED

BASE = {"vector_enabled": False, "timezone": "Asia/Shanghai"}


def day(n: float) -> datetime:
    return CREATED + timedelta(days=n)


def open_palace(workspace: Path, env: dict[str, str] | None = None, **overrides) -> MemoryPalaceManager:
    # env={} keeps the developer's own MEMORY_* variables out of the tests
    settings = Settings.from_env(env or {}, **{**BASE, **overrides})
    return MemoryPalaceManager(workspace, settings=settings)


@pytest.fixture
def pm(tmp_path):
    with open_palace(tmp_path) as manager:
        yield manager


@pytest.fixture
def cli_env(tmp_path, monkeypatch):
    """Run ``palace …`` in-process against tmp_path with a clean MEMORY_* environment."""
    for name in list(os.environ):
        if name.startswith("MEMORY_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("MEMORY_WORKSPACE_DIR", str(tmp_path))
    monkeypatch.setenv("MEMORY_VECTOR_ENABLED", "false")
    monkeypatch.setenv("MEMORY_TIMEZONE", "Asia/Shanghai")
    return tmp_path


def run_cli(capsys, *argv: str):
    capsys.readouterr()
    code = palace_main(list(argv))
    out = capsys.readouterr().out
    return code, out


def status_of(pm: MemoryPalaceManager, memory_id: str) -> str:
    return pm.get(memory_id, record_access=False).status


# --------------------------------------------------------------------------- archiving

def test_unused_memory_is_archived_by_run_decay_but_not_by_dry_run(pm):
    old = pm.store("the staging VPN certificate lives in the ops vault", importance=0.5,
                   created_at=CREATED)
    before = old.path.read_bytes()

    dry = pm.run_decay(now=TODAY, dry_run=True)
    assert dry.dry_run and dry.archived == [old.id]
    # 0.5 importance: S = 90 days, so after 329 days exp(-329/90) ≈ 0.026
    assert dry.scores[old.id] == pytest.approx(0.0258, abs=1e-3)
    assert status_of(pm, old.id) == "active"
    assert old.path.read_bytes() == before, "a dry run must not touch the file"

    report = pm.run_decay(now=TODAY)
    assert report.archived == [old.id] and not report.dry_run
    archived = pm.get(old.id, record_access=False)
    assert archived.status == "archived"
    assert archived.path == old.path and old.path.exists(), "archiving keeps the file where it is"
    assert 'status: "archived"' in old.path.read_text(encoding="utf-8")
    assert archived.content == old.content
    assert [m.id for m in pm.list(status="archived")] == [old.id]
    assert pm.list() == []


def test_young_or_important_memories_are_not_archived_yet(pm):
    young = pm.store("lunch order for friday: dumplings", importance=0.0, created_at=day(60))
    important = pm.store("the production database is PostgreSQL 16", importance=0.9,
                         created_at=CREATED)
    # importance 0 is archived after 30 × ln 10 ≈ 69 days; importance 0.9 after ≈ 318 days
    assert pm.run_decay(now=day(60 + 68)).archived == []
    assert pm.run_decay(now=day(60 + 70)).archived == [young.id]
    assert pm.run_decay(now=day(317)).archived == []
    assert pm.run_decay(now=day(319)).archived == [important.id]


def test_run_decay_checks_only_active_memories_and_is_idempotent(pm):
    pm.store("an old note about the printer toner", importance=0.0, created_at=CREATED)
    first = pm.run_decay(now=TODAY)
    assert first.checked == 1 and len(first.archived) == 1
    second = pm.run_decay(now=TODAY)
    assert second.checked == 0 and second.archived == []


def test_regularly_searched_memory_survives_while_its_twin_is_archived(pm):
    recalled = pm.store("deploy checklist: run migrations, then restart the workers",
                        importance=0.3, created_at=CREATED)
    forgotten = pm.store("office plant watering schedule: every tuesday",
                         importance=0.3, created_at=CREATED)
    for week in range(1, 47):
        found = pm.search("deploy checklist migrations", now=day(7 * week))
        assert [r.memory.id for r in found] == [recalled.id]
    report = pm.run_decay(now=TODAY)
    assert report.archived == [forgotten.id]
    kept = pm.get(recalled.id, record_access=False, now=TODAY)
    assert kept.status == "active"
    assert kept.decay_score > 0.8
    assert kept.access_count == 46


def test_get_counts_as_an_access_and_keeps_a_memory(pm):
    used = pm.store("how to rotate the API keys", importance=0.0, created_at=CREATED)
    for month in range(1, 11):
        pm.get(used.id, now=day(30 * month))
    assert pm.run_decay(now=TODAY).archived == []
    assert pm.get(used.id, record_access=False, now=TODAY).access_count == 10


def test_get_without_record_access_does_not_reinforce(pm):
    memory = pm.store("the wifi password of the meeting room", importance=0.0, created_at=CREATED)
    for month in range(1, 11):
        pm.get(memory.id, now=day(30 * month), record_access=False)
    assert pm.get(memory.id, record_access=False).access_count == 0
    assert pm.run_decay(now=TODAY).archived == [memory.id]


def test_a_burst_of_searches_counts_as_one_access(pm):
    memory = pm.store("redis eviction policy is allkeys-lru", created_at=CREATED)
    for minute in range(5):
        pm.search("redis eviction", now=day(10) + timedelta(minutes=minute))
    assert pm.get(memory.id, record_access=False, now=day(11)).access_count == 1
    pm.search("redis eviction", now=day(10) + timedelta(hours=2))
    assert pm.get(memory.id, record_access=False, now=day(11)).access_count == 2


def test_search_reinforces_at_now_and_says_so(pm):
    memory = pm.store("kafka retention is seven days", importance=0.0, created_at=CREATED)
    before = pm.get(memory.id, record_access=False, now=day(40)).decay_score
    [result] = pm.search("kafka retention", now=day(40))
    assert result.explanation.decay == pytest.approx(before, abs=1e-4)
    after = pm.get(memory.id, record_access=False, now=day(40))
    assert after.last_accessed_at == day(40)
    # the recovery rule: min(1, score × 0.9 + 0.2)
    assert after.decay_score == pytest.approx(min(1.0, before * 0.9 + 0.2), abs=1e-4)


# --------------------------------------------------------------------------- pinning

def test_pinned_memories_are_never_archived(pm):
    by_importance = pm.store("never forget: the on-call phone number", importance=1.0,
                             created_at=CREATED - timedelta(days=1000))
    by_flag = pm.store("user prefers answers in Chinese", importance=0.0, pinned=True,
                       created_at=CREATED - timedelta(days=1000))
    report = pm.run_decay(now=TODAY)
    assert report.archived == [] and report.pinned == 2
    for memory_id in (by_importance.id, by_flag.id):
        memory = pm.get(memory_id, record_access=False, now=TODAY)
        assert memory.status == "active" and memory.decay_score == 1.0


def test_pinning_a_faded_memory_saves_it(pm):
    memory = pm.store("the name of the customer's CTO", importance=0.0, created_at=CREATED)
    assert pm.run_decay(now=TODAY, dry_run=True).archived == [memory.id]
    pm.update(memory.id, pinned=True)
    assert "pinned: true" in memory.path.read_text(encoding="utf-8")
    assert pm.run_decay(now=TODAY).archived == []


def test_pinned_flag_written_by_hand_is_honoured(pm):
    memory = pm.store("hand-pinned memory about the backup key", importance=0.2, created_at=CREATED)
    text = memory.path.read_text(encoding="utf-8")
    memory.path.write_text(text.replace('type: "fact"\n', 'type: "fact"\npinned: true\n'),
                           encoding="utf-8")
    pm.sync()
    assert pm.run_decay(now=TODAY).archived == []
    assert pm.get(memory.id, record_access=False, now=TODAY).decay_score == 1.0


@pytest.mark.parametrize("edit", [('type: "fact"\n', 'type: "fact"\npinned: true\n'),
                                  ("importance: 0.2\n", "importance: 1.0\n")])
def test_a_pin_written_by_hand_while_the_manager_runs_is_honoured(pm, edit):
    memory = pm.store("hand-pinned memory about the backup key", importance=0.2, created_at=CREATED)
    text = memory.path.read_text(encoding="utf-8")
    assert edit[0] in text
    memory.path.write_text(text.replace(*edit), encoding="utf-8")
    # no pm.sync(): a long-running manager (sidecar, MCP server) runs its weekly decay
    assert pm.run_decay(now=TODAY).archived == []
    assert status_of(pm, memory.id) == "active"


# --------------------------------------------------------------------------- archived: findable, restorable

def test_archived_memory_is_found_only_with_include_archived(pm):
    memory = pm.store("the legacy billing service used Oracle", importance=0.0, created_at=CREATED)
    pm.run_decay(now=TODAY)
    assert pm.search("legacy billing Oracle", now=TODAY) == []
    [hit] = pm.search("legacy billing Oracle", now=TODAY, include_archived=True)
    assert hit.memory.id == memory.id and hit.memory.status == "archived"


def test_restore_brings_an_archived_memory_back(pm):
    memory = pm.store("the old CI ran on Jenkins", importance=0.0, created_at=CREATED)
    pm.run_decay(now=TODAY)
    restored = pm.restore(memory.id)
    assert restored.status == "active"
    assert 'status: "active"' in memory.path.read_text(encoding="utf-8")
    assert [r.memory.id for r in pm.search("Jenkins", now=TODAY)] == [memory.id]


def test_a_restored_memory_is_not_archived_again_by_the_next_run(pm):
    memory = pm.store("the old CI ran on Jenkins", importance=0.0, created_at=CREATED)
    pm.run_decay(now=TODAY)
    pm.restore(memory.id, now=TODAY)
    assert pm.run_decay(now=TODAY).archived == []


def test_restoring_an_active_memory_is_refused(pm):
    from palace.errors import InvalidInputError

    memory = pm.store("an active memory", created_at=CREATED)
    with pytest.raises(InvalidInputError):
        pm.restore(memory.id)


# --------------------------------------------------------------------------- the journal, not the file

def test_accesses_do_not_rewrite_the_markdown_file(pm):
    memory = pm.store("nginx config lives in /etc/nginx/sites-enabled", created_at=CREATED)
    raw, mtime = memory.path.read_bytes(), memory.path.stat().st_mtime_ns
    for n in range(1, 6):
        pm.search("nginx config", now=day(3 * n))
        pm.get(memory.id, now=day(3 * n) + timedelta(hours=2))
    assert memory.path.read_bytes() == raw
    assert memory.path.stat().st_mtime_ns == mtime
    assert pm.get(memory.id, record_access=False, now=day(20)).access_count == 10


def _decay_view(pm: MemoryPalaceManager, memory_id: str, now: datetime):
    memory = pm.get(memory_id, record_access=False, now=now)
    return memory.access_count, round(memory.decay_score, 6), memory.last_accessed_at


def test_accesses_survive_deleting_the_index_file(tmp_path):
    with open_palace(tmp_path) as pm:
        memory = pm.store("grafana dashboards are provisioned from git", importance=0.0,
                          created_at=CREATED)
        for n in range(1, 9):
            pm.search("grafana dashboards", now=day(20 * n))
        view = _decay_view(pm, memory.id, TODAY)
        index_file = pm.root / INDEX_DIR / INDEX_FILE
    assert view[0] == 8
    for suffix in ("", "-wal", "-shm"):
        Path(str(index_file) + suffix).unlink(missing_ok=True)
    with open_palace(tmp_path) as pm:
        assert _decay_view(pm, memory.id, TODAY) == view
        assert pm.run_decay(now=TODAY).archived == []


def test_accesses_survive_reindex(pm):
    memory = pm.store("sentry DSN is in the env file", importance=0.0, created_at=CREATED)
    for n in range(1, 9):
        pm.search("sentry DSN", now=day(20 * n))
    view = _decay_view(pm, memory.id, TODAY)
    pm.reindex()
    assert _decay_view(pm, memory.id, TODAY) == view


def test_archive_status_survives_deleting_the_index_file(tmp_path):
    with open_palace(tmp_path) as pm:
        memory = pm.store("an unused memory", importance=0.0, created_at=CREATED)
        pm.run_decay(now=TODAY)
        index_file = pm.root / INDEX_DIR / INDEX_FILE
    for suffix in ("", "-wal", "-shm"):
        Path(str(index_file) + suffix).unlink(missing_ok=True)
    with open_palace(tmp_path) as pm:
        assert status_of(pm, memory.id) == "archived"


# --------------------------------------------------------------------------- switched off

def test_decay_disabled_scores_one_and_archives_nothing(tmp_path):
    with open_palace(tmp_path, env={"MEMORY_DECAY_ENABLED": "false"}) as pm:
        assert pm.settings.decay_enabled is False
        memory = pm.store("a memory nobody ever reads", importance=0.0,
                          created_at=CREATED - timedelta(days=3000))
        assert pm.get(memory.id, record_access=False, now=TODAY).decay_score == 1.0
        assert pm.list(now=TODAY)[0].decay_score == 1.0
        [hit] = pm.search("nobody reads", now=TODAY)
        assert hit.explanation.decay == 1.0
        assert hit.explanation.weights["decay"] == 0.0
        assert pm.decay_scores(now=TODAY) == {memory.id: 1.0}
        report = pm.run_decay(now=TODAY)
        assert report.archived == [] and status_of(pm, memory.id) == "active"


# --------------------------------------------------------------------------- ranking

def test_faded_memory_ranks_below_an_equally_relevant_fresh_one(pm):
    # same words, same length, same importance: only their decay differs
    faded = pm.store("meeting notes alpha: rollout plan", importance=0.5, created_at=CREATED)
    fresh = pm.store("meeting notes omega: rollout plan", importance=0.5, created_at=day(320))
    results = pm.search("rollout plan", now=TODAY)
    assert [r.memory.id for r in results] == [fresh.id, faded.id]
    top, bottom = results
    assert top.explanation.relevance == pytest.approx(bottom.explanation.relevance)
    assert top.explanation.decay > bottom.explanation.decay


def test_a_used_memory_outranks_its_unused_twin(pm):
    unused = pm.store("runbook alpha: restart the queue", importance=0.5, created_at=CREATED)
    used = pm.store("runbook omega: restart the queue", importance=0.5, created_at=CREATED)
    for month in range(1, 11):
        pm.get(used.id, now=day(30 * month))
    results = pm.search("restart the queue", now=TODAY)
    assert [r.memory.id for r in results] == [used.id, unused.id]


def test_without_decay_equally_relevant_memories_tie(tmp_path):
    with open_palace(tmp_path, env={"MEMORY_DECAY_ENABLED": "false"}) as pm:
        pm.store("meeting notes alpha: rollout plan", importance=0.5, created_at=CREATED)
        pm.store("meeting notes omega: rollout plan", importance=0.5, created_at=day(320))
        first, second = pm.search("rollout plan", now=TODAY)
        assert first.score == pytest.approx(second.score)


# --------------------------------------------------------------------------- CLI

def _store(workspace: Path, content: str, **kwargs) -> str:
    with open_palace(workspace) as pm:
        return pm.store(content, **kwargs).id


def test_cli_decay_dry_run_then_archive_then_restore(cli_env, capsys):
    memory_id = _store(cli_env, "the old wiki was on confluence", importance=0.0, created_at=CREATED)
    now = TODAY.isoformat()

    code, out = run_cli(capsys, "decay", "--dry-run", "--now", now, "--json")
    report = json.loads(out)
    assert code == 0 and report["dry_run"] is True and report["archived"] == [memory_id]
    code, out = run_cli(capsys, "list", "--json")
    assert [m["id"] for m in json.loads(out)] == [memory_id]

    code, out = run_cli(capsys, "decay", "--now", now)
    assert code == 0 and "archived 1" in out and memory_id in out
    code, out = run_cli(capsys, "list", "--status", "archived", "--json")
    assert [m["id"] for m in json.loads(out)] == [memory_id]

    code, out = run_cli(capsys, "search", "confluence wiki", "--now", now, "--json")
    assert json.loads(out)["results"] == []
    code, out = run_cli(capsys, "search", "confluence wiki", "--now", now, "--include-archived", "--json")
    assert [r["id"] for r in json.loads(out)["results"]] == [memory_id]

    code, out = run_cli(capsys, "restore", memory_id, "--json")
    assert code == 0 and json.loads(out)["status"] == "active"
    code, out = run_cli(capsys, "search", "confluence wiki", "--now", now, "--json")
    assert [r["id"] for r in json.loads(out)["results"]] == [memory_id]


def test_cli_decay_leaves_pinned_and_used_memories(cli_env, capsys):
    pinned = _store(cli_env, "pinned fact", importance=1.0, created_at=CREATED)
    used = _store(cli_env, "the release train leaves on thursdays", created_at=CREATED)
    unused = _store(cli_env, "a forgotten remark", importance=0.0, created_at=CREATED)
    for week in range(1, 47):
        code, _ = run_cli(capsys, "search", "release train", "--now", day(7 * week).isoformat(), "--json")
        assert code == 0
    code, out = run_cli(capsys, "decay", "--now", TODAY.isoformat(), "--json")
    report = json.loads(out)
    assert report["archived"] == [unused] and report["pinned"] == 1
    code, out = run_cli(capsys, "list", "--json")
    assert sorted(m["id"] for m in json.loads(out)) == sorted([pinned, used])


def test_cli_decay_disabled_by_environment(cli_env, capsys, monkeypatch):
    memory_id = _store(cli_env, "an unread note", importance=0.0, created_at=CREATED)
    monkeypatch.setenv("MEMORY_DECAY_ENABLED", "false")
    code, out = run_cli(capsys, "decay", "--now", TODAY.isoformat(), "--json")
    assert code == 0 and json.loads(out)["archived"] == []
    code, out = run_cli(capsys, "get", memory_id, "--json")
    assert json.loads(out)["decay_score"] == 1.0 and json.loads(out)["status"] == "active"


# --------------------------------------------------------------------------- the simulation script

def test_sim_decay_script_runs_a_short_deterministic_simulation(capsys, monkeypatch):
    import importlib.util
    import sys

    path = Path(__file__).resolve().parents[2] / "scripts" / "sim_decay.py"
    spec = importlib.util.spec_from_file_location("sim_decay", path)
    sim = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "sim_decay", sim)  # dataclasses look their module up
    spec.loader.exec_module(sim)
    outputs = []
    for _ in range(2):
        assert sim.main(["--days", "14", "--per-day", "1", "--seed", "3"]) == 0
        # the timing line is the only thing allowed to differ between runs
        outputs.append([line for line in capsys.readouterr().out.splitlines() if "searches," not in line])
    assert outputs[0] == outputs[1]
    text = "\n".join(outputs[0])
    assert "1. Archiving over time" in text and "top-1" in text and "MRR" in text


@pytest.mark.parametrize("importance,days", [(0.0, 0), (0.0, 45), (0.3, 59), (0.9, 400), (0.5, 3.5)])
def test_score_of_an_unused_memory_matches_the_decay_model(pm, importance, days):
    # the manager computes never-used memories on a fast path; it must agree exactly
    from palace import decay as decay_model

    created = datetime(2026, 1, 1, tzinfo=ZoneInfo("UTC"))
    memory = pm.store("an unused memory", importance=importance, created_at=created)
    now = created + timedelta(days=days)
    expected = decay_model.current_score(created, importance, [], now, pm.decay_params)
    assert pm.get(memory.id, record_access=False, now=now).decay_score == pytest.approx(expected, abs=1e-12)
