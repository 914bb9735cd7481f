"""``VectorStore.pending`` is asked by every hybrid search (for its "no vector yet" note):
it counts memories without a vector once per state of the index, not once per search
(a full count is ~0.4 s at 100k memories), and a write is counted at once."""

from __future__ import annotations

import numpy as np

from palace import MemoryPalaceManager, Settings
from palace.index.vectors import VectorStore
from palace.text.chunking import chunk_text

MODEL = "test-model-v1"


def test_pending_counts_once_per_index_state_and_sees_new_writes(tmp_path, monkeypatch):
    pm = MemoryPalaceManager(tmp_path, settings=Settings.from_env(workspace_dir=str(tmp_path), vector_enabled=False))
    for n in range(3):
        pm.store(f"note {n} about the cache", id=f"m{n}")
    counted = []
    real = pm.index.hashes_missing_vectors
    monkeypatch.setattr(pm.index, "hashes_missing_vectors", lambda *a, **k: counted.append(1) or real(*a, **k))
    store = VectorStore(pm.index, chunk_text)

    assert store.pending(MODEL) == 3
    assert store.pending(MODEL) == 3 and len(counted) == 1  # the same state: not counted again

    hashes = [h for (h,) in pm.index.conn.execute("SELECT content_hash FROM memories")]
    pm.index.put_vectors(MODEL, [(h, 0, np.ones(4, dtype=np.float32) / 2) for h in hashes])
    assert store.pending(MODEL) == 0  # vectors written without a backfill: counted anew
    assert store.pending(MODEL) == 0 and len(counted) == 2

    pm.store("a new note about the garden", id="m9")
    assert store.pending(MODEL) == 1
    assert store.pending(MODEL, limit=5) == 1  # another limit is another count
    before = len(counted)
    store.invalidate()  # a rebuild: what was counted is forgotten
    assert store.pending(MODEL, limit=5) == 1 and len(counted) == before + 1
    pm.close()
