"""The graph's records a person makes: the review queue and the log of pairs already
decided. On Postgres both are tables every client shares (a pair one client rejected is
never queued again by another), scoped like the memories they name; ``palace export`` /
``palace import`` carry both (review.json, graph-decisions.json) on either backend."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import run_palace

from palace.graph.decisions import DECISIONS_FILE
from palace.graph.review import REVIEW_FILE
from palace.manager import MemoryPalaceManager
from palace.settings import Settings

pytest_plugins = ["conftest_postgres"]


def on_postgres(url: str, workspace: Path, **settings) -> MemoryPalaceManager:
    return MemoryPalaceManager(settings=Settings.from_env(backend="postgres", database_url=url,
                                                          workspace_dir=str(workspace), **settings))


def test_a_pair_one_client_rejected_is_not_queued_again_by_another(postgres_url, tmp_path):
    a, b = on_postgres(postgres_url, tmp_path / "machine-a"), on_postgres(postgres_url, tmp_path / "machine-b")
    try:
        black = a.store("I use black")
        ruff = a.store("I use ruff")
        [item] = b.graph.queue.items()                      # one queue for both
        a.graph.resolve(item.id, accept=False, now=a.now())
        [decided] = b.graph.decisions.entries()             # ... and one decision log
        assert (decided.old_memory, decided.new_memory, decided.decision) == (black.id, ruff.id, "rejected")
        b.update(ruff.id, content="I use ruff", tags=["tools"])   # the rules run again on b
        b.update(black.id, content="I use black", tags=["tools"])
        assert b.graph.queue.items() == [] and a.graph.queue.items() == []
        assert all("supersededBy" not in m.extra for m in b.list())
    finally:
        a.close()
        b.close()


def test_decisions_about_private_memories_stay_private(postgres_url, tmp_path):
    alice = on_postgres(postgres_url, tmp_path / "alice", agent_id="alice", scope="agent:alice")
    bob = on_postgres(postgres_url, tmp_path / "bob", agent_id="bob")
    try:
        alice.store("I use black")
        alice.store("I use ruff")
        [item] = alice.graph.queue.items()
        alice.graph.resolve(item.id, accept=False, now=alice.now())
        assert len(alice.graph.decisions.entries()) == 1
        assert bob.graph.decisions.entries() == [] and bob.graph.queue.items() == []
    finally:
        alice.close()
        bob.close()


def test_a_clients_own_decision_file_from_before_is_merged_into_the_shared_log(postgres_url, tmp_path):
    a = on_postgres(postgres_url, tmp_path / "machine-a")
    try:
        black = a.store("I use black")
        ruff = a.store("I use ruff")
    finally:
        a.close()
    b_ws = tmp_path / "machine-b"
    old_file = b_ws / "memory" / "palace" / DECISIONS_FILE   # as a client before schema 8 kept it
    old_file.parent.mkdir(parents=True)
    old_file.write_text(json.dumps([{"old_memory": black.id, "old_fact": "i|use|black|", "new_memory": ruff.id,
                                     "new_fact": "i|use|ruff|", "decision": "rejected", "closed_at": None,
                                     "marked": False}]), "utf-8")
    b = on_postgres(postgres_url, b_ws)
    try:
        [entry] = b.graph.decisions.entries()
        assert entry.decision == "rejected" and entry.new_memory == ruff.id
        assert not old_file.exists() and old_file.with_name(DECISIONS_FILE + ".merged").exists()
    finally:
        b.close()


def records(folder: Path) -> tuple[list, list]:
    def read(name):
        path = folder / name
        return json.loads(path.read_text("utf-8")) if path.exists() else []

    return read(REVIEW_FILE), read(DECISIONS_FILE)


def test_review_queue_and_decisions_round_trip_local_to_postgres_to_local(make_pm, tmp_path, postgres_url):
    local_ws = tmp_path / "local"
    pm = make_pm(local_ws)
    pm.store("I use black")
    pm.store("I use ruff")                              # uncertain: queued
    pm.store("I use isort")                             # more uncertain pairs
    pm.store("我住在北京", created_at="2024-01-01")
    pm.store("我搬到杭州了", created_at="2025-03-01")    # superseded by the rules
    items = pm.graph.queue.items()
    assert len(items) >= 2
    rejected = items[0]
    pm.graph.resolve(rejected.id, accept=False, now=pm.now())   # the others stay open
    pm.close()
    original = records(local_ws / "memory" / "palace")
    open_items, decided = len(items) - 1, len(original[1])
    assert len(original[0]) == open_items and {d["decision"] for d in original[1]} == {"superseded", "rejected"}

    pg_env = dict(os.environ, MEMORY_BACKEND="postgres", MEMORY_DATABASE_URL=postgres_url)
    pg_ws = tmp_path / "pg-cache"
    first = run_palace("import", str(local_ws / "memory" / "palace"), "-w", str(pg_ws), "--json", env=pg_env).json()
    assert (first["review_items"], first["decisions"]) == (open_items, decided)
    again = run_palace("import", str(local_ws / "memory" / "palace"), "-w", str(pg_ws), "--json", env=pg_env).json()
    assert (again["review_items"], again["decisions"]) == (0, 0)      # idempotent
    queue = json.loads(run_palace("review", "list", "-w", str(pg_ws), "--json", env=pg_env).stdout)
    assert [i["id"] for i in queue] == [i["id"] for i in original[0]]

    exported = tmp_path / "export"
    done = run_palace("export", str(exported), "-w", str(pg_ws), "--json", env=pg_env).json()
    assert (done["review_items"], done["decisions"]) == (open_items, decided)
    assert records(exported) == original

    back_ws = tmp_path / "back"
    back = make_pm(back_ws)
    report = back.import_tree(exported)
    assert (report.review_items, report.decisions) == (open_items, decided)
    assert records(back_ws / "memory" / "palace") == original
    # the rules see the decisions: rewriting the rejected pair's new memory queues nothing again
    back.update(rejected.new_memory, content=back.get(rejected.new_memory).content, tags=["tools"])
    assert [i.id for i in back.graph.queue.items()] == [i["id"] for i in original[0]]
