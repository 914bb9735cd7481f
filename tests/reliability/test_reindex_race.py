"""A rebuild in one process is invisible to the others: every operation they make while
it runs reports exactly what happened."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

from conftest import memory_files

from palace.errors import InvalidInputError

SECONDS = 4.0


def _start_reindexer(workspace, seconds: float) -> subprocess.Popen:
    script = textwrap.dedent(f"""
        import time
        from palace.manager import MemoryPalaceManager
        pm = MemoryPalaceManager({str(workspace)!r})
        end = time.monotonic() + {seconds}
        n = 0
        while time.monotonic() < end:
            pm.reindex()
            n += 1
        print(n)
    """)
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ))


def test_writers_see_a_consistent_palace_while_another_process_reindexes(make_pm, palace_root, workspace):
    pm = make_pm()
    ids = [pm.store(f"记忆 {i} PostgreSQL", id=f"fixed-{i}").id for i in range(40)]
    for i in range(200):
        pm.store(f"填充 {i}")
    reindexer = _start_reindexer(workspace, SECONDS)
    problems: list[str] = []
    deleted: set[str] = set()
    updated: dict[str, str] = {}
    end = time.monotonic() + SECONDS
    round_ = 0
    while time.monotonic() < end and reindexer.poll() is None:
        round_ += 1
        for memory_id in ids:
            try:
                pm.store("重复的 id", id=memory_id)
                problems.append(f"store(id={memory_id}) accepted a duplicate")
            except InvalidInputError:
                pass
            except Exception as exc:
                problems.append(f"store(id={memory_id}): {type(exc).__name__}: {exc}")
            if memory_id in deleted:
                continue
            text = f"更新 {round_} {memory_id}"
            try:
                result = pm.update(memory_id, content=text)
                if result.content != text:
                    problems.append(f"update({memory_id}) returned {result.content!r}")
                updated[memory_id] = text
            except Exception as exc:
                problems.append(f"update({memory_id}): {type(exc).__name__}: {exc}")
            if round_ % 3 == 0 and memory_id.endswith("7"):
                try:
                    pm.delete(memory_id)
                    deleted.add(memory_id)
                    pm.restore(memory_id)
                    deleted.discard(memory_id)
                except Exception as exc:
                    problems.append(f"delete/restore({memory_id}): {type(exc).__name__}: {exc}")
    out, err = reindexer.communicate(timeout=60)
    assert reindexer.returncode == 0, err
    assert int(out) >= 2, "the reindexer should have rebuilt a few times"
    assert problems == []
    pm.sync()
    files = memory_files(palace_root)
    assert len(files) == 240 - len(deleted)
    assert len({p.stem for p in files}) == len(files)  # no duplicate in another room
    for memory_id, text in updated.items():
        if memory_id not in deleted:
            assert pm.get(memory_id).content == text
    fresh = make_pm()
    fresh.reindex()
    assert sorted(m.id for m in fresh.list()) == sorted(m.id for m in pm.list())
