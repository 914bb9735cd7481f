"""Many writers on one Postgres palace: 8 clients in 8 scopes at once, each on its own
connections. No write is lost, no read-change-write loses another's, nothing leaks."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from palace.manager import MemoryPalaceManager
from palace.settings import Settings

pytest_plugins = ["conftest_postgres"]

CLIENTS = 8
EACH = 12


def test_eight_clients_in_different_scopes_lose_nothing_and_leak_nothing(postgres_url, tmp_path):
    def open_as(agent: str, scope: str) -> MemoryPalaceManager:
        return MemoryPalaceManager(settings=Settings.from_env(
            backend="postgres", database_url=postgres_url, agent_id=agent, scope=scope,
            workspace_dir=str(tmp_path / agent)))

    with open_as("setup", "team") as setup:
        counter = setup.store("tally:", id="tally").id

    def work(n: int) -> list[str]:
        agent = f"agent{n}"
        with open_as(agent, f"agent:{agent}") as pm:
            mine = []
            for i in range(EACH):
                mine.append(pm.store(f"{agent} private note {i} zebra").id)
                with pm.write_lock():  # read, change, write as one step, across clients
                    current = pm.get(counter, record_access=False)
                    pm.update(counter, content=current.content + f" {n}")
            return mine

    with ThreadPoolExecutor(CLIENTS) as pool:
        written = list(pool.map(work, range(CLIENTS)))

    for n, ids in enumerate(written):
        with open_as(f"agent{n}", "team") as pm:
            assert {m.id for m in pm.list()} == set(ids) | {counter}, f"agent{n} sees others' or lost own"
            found = {r.memory.id for r in pm.search("zebra", top_k=100, record_access=False)}
            assert found == set(ids)
    with open_as("auditor", "team") as pm:
        tally = pm.get(counter).content.split()[1:]
        assert sorted(tally) == sorted(str(n) for n in range(CLIENTS) for _ in range(EACH))
        assert pm.count() == 1  # the auditor (no private scope) sees only the team tally
