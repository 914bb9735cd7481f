"""PalaceVectorSearchProvider in process, on a real manager with MiniLM vectors."""

import pytest

from palace.embedders import InProcessEmbedder
from palace.errors import InvalidInputError
from palace.manager import MemoryPalaceManager
from palace.features.provider import PalaceVectorSearchProvider, VectorSearchProvider
from palace.settings import Settings

# Fixtures minilm_path, minilm_model and vector_env live in tests/conftest_vectors.py.
pytest_plugins = ["conftest_vectors"]


@pytest.fixture(scope="module")
def minilm_embedder(minilm_path):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        embedder = InProcessEmbedder(Settings(vector_model=minilm_path))
        embedder.load()
    return embedder


@pytest.fixture
def provider(tmp_path, minilm_embedder):
    settings = Settings.from_env(vector_enabled=True, vector_model=minilm_embedder.settings.vector_model)
    manager = MemoryPalaceManager(tmp_path / "ws", settings=settings, embedder=minilm_embedder)
    provider = PalaceVectorSearchProvider(manager)
    yield provider
    provider.close()  # stops its background embedding before the manager closes


def test_it_is_a_vector_search_provider(provider):
    assert isinstance(provider, VectorSearchProvider)


def test_search_finds_by_meaning_without_shared_words(provider):
    provider.index("pet", "Our cat sleeps all afternoon on the windowsill.", {"tags": ["home"]})
    provider.index("tax", "File the annual tax return before the end of April.", {"tags": "admin"})
    results = provider.search("kitten napping", 2)
    assert results[0]["id"] == "pet"
    assert set(results[0]) == {"id", "score", "content", "metadata"}
    assert results[0]["metadata"]["explanation"]["retrievers"]["vector"]["rank"] == 1
    assert [r["id"] for r in provider.search("deadline paperwork", 5, {"tags": "admin"})] == ["tax"]


def test_index_updates_in_place_and_keeps_openclaw_metadata(provider):
    first = provider.index("note-1", "Standup moved to 10am.",
                           {"location": "work", "createdAt": "2026-11-02T09:00:00+08:00",
                            "path": "memory/2026-11-02.md", "line": 12})
    assert first == {"id": "note-1", "created": True}
    with provider._lock:  # the background worker index started may be reading the index
        memory = provider.manager.get("note-1", record_access=False)
    assert memory.location == "work" and memory.created_at.day == 2
    second = provider.index("note-1", "Standup moved to 11am.", {"path": "memory/2026-11-03.md"})
    assert second == {"id": "note-1", "created": False}
    with provider._lock:
        memory = provider.manager.get("note-1", record_access=False)
    assert memory.content == "Standup moved to 11am." and memory.location == "work"
    assert memory.access_count == 0  # indexing is not reading
    hit = provider.search("standup time", 1)[0]
    assert hit["metadata"]["path"] == "memory/2026-11-03.md" and "line" not in hit["metadata"]
    assert hit["metadata"]["location"] == "work"  # palace's own fields win over OpenClaw's


def test_remove_is_idempotent_and_a_removed_id_can_come_back(provider):
    provider.index("temp", "Temporary parking code is 4711.")
    assert provider.remove("temp") is True
    assert provider.remove("temp") is False
    assert provider.search("parking code", 5) == []
    assert provider.index("temp", "New parking code is 0815.") == {"id": "temp", "created": True}
    assert provider.search("parking code", 1)[0]["content"] == "New parking code is 0815."


def test_archived_memories_only_with_include_archived(provider):
    provider.index("old", "The old office was on Baker Street.")
    provider.manager.update("old", status="archived")
    assert provider.search("office address", 5) == []
    assert [r["id"] for r in provider.search("office address", 5, {"includeArchived": True})] == ["old"]


@pytest.mark.parametrize("call, fragment", [
    (lambda p: p.search("", 5), "non-empty"),
    (lambda p: p.search("x", 0), "topK"),
    (lambda p: p.search("x", 101), "topK"),
    (lambda p: p.search("x", True), "topK"),
    (lambda p: p.search("x", 5, {"folder": "a"}), "folder"),
    (lambda p: p.search("x", 5, ["tags"]), "object"),
    (lambda p: p.index("", "x"), "id"),
    (lambda p: p.index("a", 5), "content"),
    (lambda p: p.index("../up", "x"), "invalid memory id"),
    (lambda p: p.index("a", "x", {"importance": 7}), "importance"),
    (lambda p: p.remove(None), "id"),
])
def test_bad_calls_raise_invalid_input(provider, call, fragment):
    with pytest.raises(InvalidInputError, match=fragment):
        call(provider)


def test_index_embeds_at_once_so_search_does_not_have_to(provider):
    provider.index("fresh", "The spare key hangs behind the kitchen door.")
    # under the provider's lock, as its own calls are: its background worker (started by
    # index) may be reading the index this moment, and a manager serves one call at a time
    with provider._lock:
        assert provider.manager.embed_pending() == 0  # nothing left for the next search


def test_background_work_gives_way_to_a_request_and_never_starves(monkeypatch):
    """The background embedder waits, before each small batch, for the requests being
    served to end (and a moment of quiet), but not past PAUSE_AT_MOST_S."""
    import threading

    from palace.features import provider as provider_module

    lock = provider_module._ServingLock()
    order: list[str] = []
    inside, release = threading.Event(), threading.Event()

    def request() -> None:
        with lock:
            inside.set()
            release.wait(5)
            order.append("request ended")

    serving = threading.Thread(target=request)
    serving.start()
    inside.wait(5)
    threading.Timer(0.2, release.set).start()
    lock.wait_quiet()
    order.append("background goes on")
    serving.join()
    assert order == ["request ended", "background goes on"]

    monkeypatch.setattr(provider_module, "PAUSE_AT_MOST_S", 0.2)
    inside.clear()
    release.clear()
    stuck = threading.Thread(target=request)
    stuck.start()
    inside.wait(5)
    lock.wait_quiet()  # a request that never ends does not stop the background for good
    order.append("background goes on anyway")
    release.set()
    stuck.join()
    assert order[-2:] == ["background goes on anyway", "request ended"]
    with lock.background():  # the worker's own use is no request
        assert lock._serving == 0
