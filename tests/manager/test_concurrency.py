"""Two real processes (an agent and a person's CLI, two agents) on one workspace at
once: nothing lost, nothing doubled, index and files agree afterwards."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import memory_files, stray_files

STORE_AND_SEARCH = r"""
import json, sys
from palace.manager import MemoryPalaceManager

ws, tag, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
ids, searches, found_own = [], 0, 0
with MemoryPalaceManager(ws) as pm:
    sys.stdout.write("ready\n"); sys.stdout.flush()
    sys.stdin.readline()  # both start storing at the same moment
    for i in range(n):
        room = f"room{i % 3}/{tag}" if i % 2 else f"room{i % 3}"
        m = pm.store(f"{tag} 工作记录 {i}：数据库 deploy check marker{tag}x{i}", tags=[tag, f"n{i % 7}"],
                     location=room, importance=(i % 10) / 10)
        ids.append(m.id)
        if i % 4 == 0:
            searches += 1
            pm.search("数据库 deploy", top_k=5)
            found_own += [r.memory.id for r in pm.search(f"marker{tag}x{i}")] == [m.id]
print(json.dumps({"ids": ids, "searches": searches, "found_own": found_own}))
"""

UPDATE_AND_DELETE = r"""
import json, sys
from palace.errors import MemoryNotFoundError
from palace.manager import MemoryPalaceManager

ws, role, ids = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
done = {"updated": 0, "deleted": 0, "missing": 0}
with MemoryPalaceManager(ws) as pm:
    sys.stdout.write("ready\n"); sys.stdout.flush()
    sys.stdin.readline()
    for round_ in range(3):
        for i, memory_id in enumerate(ids):
            try:
                if role == "deleter" and i % 3 == 0 and round_ == 1:
                    pm.delete(memory_id); done["deleted"] += 1
                elif role == "mover":
                    pm.update(memory_id, location=f"moved/r{round_}", importance=round_ / 4)
                    done["updated"] += 1
                else:
                    pm.update(memory_id, tags=[role, f"round{round_}"]); done["updated"] += 1
            except MemoryNotFoundError:
                done["missing"] += 1
print(json.dumps(done))
"""


def run_together(*argvs, timeout=120):
    procs = [subprocess.Popen([sys.executable, "-c", *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for argv in argvs]
    try:
        for proc in procs:
            assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        for proc in procs:
            proc.stdin.write("go\n")
            proc.stdin.flush()
        outputs = [proc.communicate(timeout=timeout) for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    for proc, (_out, err) in zip(procs, outputs):
        assert proc.returncode == 0, err
        assert "Traceback" not in err, err
    return [json.loads(out.strip().splitlines()[-1]) for out, _ in outputs]


def journal_access_count(palace_root):
    lines = (palace_root / ".journal" / "access.jsonl").read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]  # every line whole: no interleaving
    return sum(len(event["ids"]) for event in events)


def assert_index_matches_disk(pm, palace_root):
    on_disk = {}
    for path in memory_files(palace_root):
        memory = pm.storage.read(path)
        assert memory.id not in on_disk, f"{memory.id} on disk twice: {path}, {on_disk.get(memory.id)}"
        on_disk[memory.id] = path.relative_to(palace_root).as_posix()
    indexed = {row["id"]: row["path"] for row in pm.index.conn.execute("SELECT id, path FROM memories")}
    assert indexed == on_disk
    trashed = {m.id for m in pm.list_trash()}
    assert not trashed & set(on_disk)
    report = pm.sync()
    assert (report.added, report.updated, report.moved, report.removed, report.errors) == ([], [], [], [], [])
    assert pm.problems() == []
    assert stray_files(palace_root) == []
    return on_disk, trashed


def assert_postings_match_a_rebuild(pm, terms):
    """Keyword postings written by two processes at once score exactly as postings
    packed from scratch from the memory rows; the collection counts agree too."""
    from palace.index import Filters

    groups = [(1.0, [term]) for term in terms]
    everything = Filters(statuses=("active", "archived"))
    counts = pm.index._collection()
    assert counts == tuple(pm.index.conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(doc_len), 0) FROM memories").fetchone())
    incremental = pm.index.keyword_scores(groups, everything, 10_000)
    pm.index.finish_bulk()
    rebuilt = pm.index.keyword_scores(groups, everything, 10_000)
    assert incremental.keys() == rebuilt.keys() and incremental
    for rid, score in rebuilt.items():
        assert abs(incremental[rid] - score) < 1e-9


def test_two_processes_storing_and_searching_at_once(workspace, palace_root, make_pm):
    make_pm().close()  # create the palace first, as `palace init` would
    n = 200
    first, second = run_together(
        [STORE_AND_SEARCH, str(workspace), "alpha", str(n)],
        [STORE_AND_SEARCH, str(workspace), "beta", str(n)])
    all_ids = first["ids"] + second["ids"]
    assert len(all_ids) == len(set(all_ids)) == 2 * n
    # each process found its own fresh memory at once, while the other was writing
    assert first["found_own"] == first["searches"] and second["found_own"] == second["searches"]

    pm = make_pm()
    on_disk, trashed = assert_index_matches_disk(pm, palace_root)
    assert set(on_disk) == set(all_ids)
    assert trashed == set()
    assert pm.index.count() == 2 * n
    assert len(pm.list(tags=["alpha"])) == n and len(pm.list(tags=["beta"])) == n
    for tag, result in (("alpha", first), ("beta", second)):
        for i in (0, 57, 199):
            assert [r.memory.id for r in pm.search(f"marker{tag}x{i}", record_access=False)] == [result["ids"][i]]
    assert_postings_match_a_rebuild(pm, ["数据库", "deploy", "markeralphax3", "工作"])
    # every access line was folded into the index exactly once, and survives a rebuild
    accesses = journal_access_count(palace_root)
    assert accesses > 0
    assert pm.stats()["accesses"] == accesses
    pm.reindex()
    assert pm.stats()["accesses"] == accesses
    assert pm.index.count() == 2 * n


def test_two_processes_updating_moving_and_deleting_the_same_memories(workspace, palace_root, make_pm):
    pm = make_pm()
    ids = [pm.store(f"shared memory number {i}", location="start").id for i in range(30)]
    pm.close()
    mover, deleter = run_together(
        [UPDATE_AND_DELETE, str(workspace), "mover", ",".join(ids)],
        [UPDATE_AND_DELETE, str(workspace), "deleter", ",".join(ids)])
    assert deleter["deleted"] == 10
    fresh = make_pm()
    on_disk, trashed = assert_index_matches_disk(fresh, palace_root)
    assert set(on_disk) | trashed == set(ids)
    assert len(trashed) == 10
    assert mover["updated"] + mover["missing"] == 90
    for memory_id in on_disk:
        memory = fresh.get(memory_id, record_access=False)
        assert memory.location == "moved/r2"
        assert memory.importance == 0.5
        assert memory.tags == ("deleter", "round2")
    assert not (palace_root / "start").exists() or not any((palace_root / "start").iterdir())
    assert_postings_match_a_rebuild(fresh, ["shared", "memory", "number", "deleter"])
