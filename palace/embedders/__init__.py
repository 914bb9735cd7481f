"""Embedders layer: where vectors come from, a model in this process or the embedding sidecar.

The model backends (sentence-transformers, USE) are in ``palace.embedders.models``.

``make_embedder(settings)`` picks one from ``MEMORY_VECTOR_ENABLED`` /
``MEMORY_VECTOR_MODE``. Both kinds answer the same ``Embedder`` protocol, and both
raise ``EmbedderUnavailableError`` (never hang, never crash the caller) when vectors
cannot be had, so search can fall back to keywords.

Importing this module is cheap: torch, sentence-transformers, numpy and httpx are
imported inside the functions that need them, so a CLI run that never embeds
never pays for them.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any, Protocol, Sequence

from palace.errors import ConfigError, EmbedderUnavailableError, InvalidInputError
from palace.settings import Settings

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from palace.embedders.models import EmbeddingModel


# Not runtime_checkable: on Python 3.11 isinstance() would read the properties,
# i.e. load a model or call the sidecar just to answer a type question.
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors.

    ``name`` is the model id to key stored vectors by; ``max_chars`` is the chunk
    budget to pass to ``palace.text.chunking.chunk_text``. Reading ``dimension`` or
    ``max_chars`` may load the model or call the sidecar, and may raise
    ``EmbedderUnavailableError`` like the embed calls.
    """

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    @property
    def max_chars(self) -> int: ...

    @property
    def status(self) -> str:
        """One line for explanations and ``palace status``."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> "np.ndarray": ...

    def embed_query(self, text: str) -> "np.ndarray": ...

    def available(self) -> bool:
        """Whether an embed call is worth trying now (cheap; never loads a model)."""
        ...


def make_embedder(settings: Settings, *, allow_inprocess: bool = True) -> Embedder | None:
    """The embedder ``settings`` ask for, or None when vectors are off.

    ``auto`` mode: the sidecar when ``vector_service_url`` is set, else a model in
    this process when ``allow_inprocess`` and its package is installed, else None.
    The CLI passes ``allow_inprocess=False`` so a one-shot command does not spend
    seconds loading torch.
    """
    if not settings.vector_enabled or settings.vector_mode == "none":
        return None
    if settings.vector_mode == "http":
        if not settings.vector_service_url:
            raise ConfigError(
                "MEMORY_VECTOR_MODE=http needs MEMORY_VECTOR_SERVICE_URL (e.g. "
                "http://127.0.0.1:8765, where scripts/vector-service.py listens)"
            )
        return HttpEmbedder(settings)
    if settings.vector_mode == "inprocess":
        return InProcessEmbedder(settings)
    if settings.vector_service_url:
        return HttpEmbedder(settings)
    if allow_inprocess and _backend_importable(settings.vector_model):
        return InProcessEmbedder(settings)
    return None


class InProcessEmbedder:
    """Runs the model in this process, loading it on first use (thread-safe).

    ``start_loading()`` loads in a background thread instead; until it finishes,
    embed calls raise ``EmbedderUnavailableError`` rather than block (the sidecar
    uses this to answer health checks while the model loads).
    """

    def __init__(self, settings: Settings):
        self.settings = settings
        self._model: EmbeddingModel | None = None
        self._error: str | None = None
        self._lock = threading.Lock()
        self._loading_in_background = False
        self._name: str | None = None

    # -- loading --------------------------------------------------------------

    def load(self) -> "EmbeddingModel":
        """Load the model now (or return it); raises ``EmbedderUnavailableError``."""
        if self._model is not None:
            return self._model
        with self._lock:
            if self._model is None:
                self._load_locked()
        if self._model is None:
            raise EmbedderUnavailableError(self._error or "embedding model failed to load",
                                           brief=f"{self.settings.vector_model} did not load; offline: "
                                                 "MEMORY_VECTOR_MODEL=use-multilingual")
        return self._model

    def start_loading(self) -> threading.Thread:
        """Load in a daemon thread; ``state`` says how it is going."""
        self._loading_in_background = True

        def run() -> None:
            try:
                self.load()
            except EmbedderUnavailableError:
                pass  # kept in self._error for state/status, and logged once as it failed
            finally:
                self._loading_in_background = False

        thread = threading.Thread(target=run, name="palace-embedder-load", daemon=True)
        thread.start()
        return thread

    def _load_locked(self) -> None:
        if self._error is not None:
            # A failed load (missing package or model) does not fix itself; retrying
            # on every query would cost seconds each time.
            return
        try:
            from palace.embedders.models import load_model

            self._model = load_model(
                self.settings.vector_model,
                query_instruction=self.settings.vector_query_instruction,
                batch_size=self.settings.vector_batch_size,
            )
        except EmbedderUnavailableError as exc:
            self._error = str(exc)
        except Exception as exc:  # torch and friends fail in many ways; report, don't crash
            self._error = (
                f"could not load embedding model {self.settings.vector_model!r}: "
                f"{type(exc).__name__}: {exc}"
            )
        if self._error is not None:
            # said once, as it fails (the failure is kept: no retry), so that a sidecar's
            # or MCP server's log shows why vectors are off; searches then note it briefly
            logging.getLogger(__name__).warning("vectors unavailable, keyword search only: %s",
                                                " ".join(self._error.split()))

    def _ready_model(self) -> "EmbeddingModel":
        if self._model is not None:
            return self._model
        if self._loading_in_background:
            raise EmbedderUnavailableError(
                f"embedding model {self.settings.vector_model!r} is still loading; "
                "try again in a few seconds"
            )
        return self.load()

    # -- Embedder -------------------------------------------------------------

    @property
    def state(self) -> str:
        """``not loaded`` | ``loading`` | ``ready`` | ``error``."""
        if self._model is not None:
            return "ready"
        if self._error is not None:
            return "error"
        return "loading" if self._loading_in_background else "not loaded"

    @property
    def error(self) -> str | None:
        return self._error

    @property
    def model(self) -> "EmbeddingModel | None":
        """The loaded model, or None (never triggers a load)."""
        return self._model

    @property
    def name(self) -> str:
        # Known without loading, so stored vectors can be checked before paying for torch.
        if self._name is None:
            from palace.embedders.models import model_id

            self._name = model_id(self.settings.vector_model)
        return self._name

    @property
    def dimension(self) -> int:
        return self._ready_model().dimension

    @property
    def max_chars(self) -> int:
        return self._ready_model().max_chars

    @property
    def status(self) -> str:
        state, model = self.state, self._model
        if state == "ready" and model is not None:
            return f"in-process model {self.name} ready ({model.dimension}-d)"
        if state == "error":
            return f"in-process model unavailable: {self._error}"
        return f"in-process model {self.name} {state}"

    def available(self) -> bool:
        if self._model is not None:
            return True
        if self._error is not None or self._loading_in_background:
            return False
        return _backend_importable(self.settings.vector_model)

    def embed_documents(self, texts: Sequence[str]) -> "np.ndarray":
        return self._ready_model().embed_documents(texts)

    def embed_query(self, text: str) -> "np.ndarray":
        return self._ready_model().embed_query(text)


class HttpEmbedder:
    """Asks the embedding sidecar (scripts/vector-service.py) for vectors.

    Every request has a short timeout (``vector_timeout_s``); document batches, which
    only indexing waits for, get ten times that to read the answer. After a failure a
    circuit breaker skips the sidecar for ``vector_breaker_cooldown_s`` (or the
    sidecar's Retry-After while it loads), so a dead sidecar costs one timeout, not
    one per query. Thread-safe.
    """

    DOCUMENT_READ_TIMEOUT_FACTOR = 10.0

    def __init__(self, settings: Settings):
        if not settings.vector_service_url:
            raise ConfigError("HttpEmbedder needs MEMORY_VECTOR_SERVICE_URL")
        self.settings = settings
        self.url = settings.vector_service_url.rstrip("/")
        self._client: Any = None
        self._lock = threading.Lock()
        self._skip_until = 0.0  # time.monotonic() before which calls are skipped
        self._last_failure: str | None = None
        self._info: dict[str, Any] | None = None  # model, dimension, max_chars from the sidecar

    # -- Embedder -------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._sidecar_info()["model"]

    @property
    def dimension(self) -> int:
        return int(self._sidecar_info()["dimension"])

    @property
    def max_chars(self) -> int:
        return int(self._sidecar_info()["max_chars"])

    @property
    def status(self) -> str:
        remaining = self._skip_until - time.monotonic()
        if remaining > 0:
            return (f"sidecar {self.url} unavailable ({self._last_failure}); "
                    f"next try in {remaining:.0f}s")
        if self._info is not None:
            return f"sidecar {self.url} ready ({self._info['model']}, {self._info['dimension']}-d)"
        return f"sidecar {self.url} not contacted yet"

    def available(self) -> bool:
        if time.monotonic() < self._skip_until:
            return False
        try:
            self._sidecar_info(refresh=True)
        except EmbedderUnavailableError:
            return False
        return True

    def embed_documents(self, texts: Sequence[str]) -> "np.ndarray":
        import numpy as np

        if isinstance(texts, str):
            raise InvalidInputError("embed_documents takes a list of strings, not one string")
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        read_timeout = self.settings.vector_timeout_s * self.DOCUMENT_READ_TIMEOUT_FACTOR
        parts, model = [], None
        batch_size = self.settings.vector_batch_size
        for start in range(0, len(texts), batch_size):
            answer = self._embed(texts[start:start + batch_size], "document", read_timeout)
            if model is not None and answer["model"] != model:
                # The sidecar restarted with another model mid-batch; mixed vectors
                # would be keyed wrongly.
                raise EmbedderUnavailableError(
                    f"the sidecar switched models from {model} to {answer['model']} "
                    "while embedding; try again")
            model = answer["model"]
            parts.append(answer["vectors"])
        return np.concatenate(parts)

    def embed_query(self, text: str) -> "np.ndarray":
        if not isinstance(text, str):
            raise InvalidInputError(f"a query must be a string, got {type(text).__name__}")
        return self._embed([text], "query", self.settings.vector_timeout_s)["vectors"][0]

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    # -- plumbing -------------------------------------------------------------

    def _embed(self, texts: list[str], kind: str, read_timeout: float) -> dict[str, Any]:
        import numpy as np

        body = self._request("POST", "/embed", {"texts": texts, "kind": kind}, read_timeout)
        try:
            vectors = np.asarray(body["vectors"], dtype=np.float32)
            model = str(body["model"])
            if vectors.shape[0] != len(texts) or vectors.ndim != 2:
                raise ValueError(f"{vectors.shape[0]} vectors for {len(texts)} texts")
        except (KeyError, TypeError, ValueError) as exc:
            raise self._fail(f"the sidecar sent a malformed answer ({exc})") from None
        if self._info is None or self._info.get("model") != model:
            self._info = None  # re-read health so name/dimension/max_chars match the vectors
        # JSON rounding leaves norms a hair off 1; cosine = dot product needs exactly 1.
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return {"model": model, "vectors": vectors / np.where(norms > 0, norms, 1.0)}

    def _sidecar_info(self, refresh: bool = False) -> dict[str, Any]:
        info = self._info
        if info is not None and not refresh:
            return info
        health = self._request("GET", "/health", None, self.settings.vector_timeout_s)
        status = health.get("status")
        if status != "ready":
            detail = health.get("error") or "the model is still loading; try again in a few seconds"
            raise EmbedderUnavailableError(f"sidecar {self.url} is {status}: {detail}")
        try:
            info = {"model": str(health["model"]), "dimension": int(health["dimension"]),
                    "max_chars": int(health["max_chars"])}
        except (KeyError, TypeError, ValueError):
            raise self._fail("the sidecar's /health answer lacks model/dimension/max_chars") from None
        self._info = info
        return info

    def _request(self, method: str, path: str, payload: Any, read_timeout: float) -> dict[str, Any]:
        import httpx

        remaining = self._skip_until - time.monotonic()
        if remaining > 0:
            raise EmbedderUnavailableError(
                f"skipping the embedding sidecar at {self.url} for another {remaining:.0f}s "
                f"after it failed: {self._last_failure}. {self._fix_hint()}")
        timeout = httpx.Timeout(self.settings.vector_timeout_s, read=read_timeout)
        try:
            response = self._http().request(method, self.url + path, json=payload, timeout=timeout)
        except httpx.TimeoutException:
            raise self._fail(f"no answer within {read_timeout:g}s") from None
        except httpx.HTTPError as exc:  # refused, reset, DNS, ...
            raise self._fail(f"{type(exc).__name__}: {exc}") from None
        if response.status_code == 200:
            try:
                return response.json()
            except ValueError:
                raise self._fail("the sidecar answered with something that is not JSON") from None
        message = _error_message(response)
        if response.status_code == 503:
            retry_after = _retry_after_seconds(response)
            raise self._fail(f"sidecar busy or loading: {message}", cooldown=retry_after)
        if response.status_code in (401, 403):
            raise self._fail(
                f"sidecar refused the token ({message}); set MEMORY_VECTOR_SERVICE_TOKEN to the "
                "token the sidecar was started with")
        if 400 <= response.status_code < 500:
            # Our request was wrong (too many texts, too long): not the sidecar's fault.
            raise InvalidInputError(f"the embedding sidecar rejected the request: {message}")
        raise self._fail(f"sidecar error {response.status_code}: {message}")

    def _http(self):
        import httpx

        with self._lock:
            if self._client is None:
                headers = {}
                if self.settings.vector_service_token:
                    headers["Authorization"] = f"Bearer {self.settings.vector_service_token}"
                # trust_env=False: a loopback sidecar must not be routed via HTTP(S)_PROXY.
                self._client = httpx.Client(headers=headers, trust_env=False)
            return self._client

    def _fail(self, reason: str, cooldown: float | None = None) -> EmbedderUnavailableError:
        """Open the breaker and build the error to raise."""
        if cooldown is None:
            cooldown = self.settings.vector_breaker_cooldown_s
        self._last_failure = reason
        self._skip_until = time.monotonic() + cooldown
        return EmbedderUnavailableError(
            f"embedding sidecar at {self.url} failed: {reason}. {self._fix_hint()}")

    def _fix_hint(self) -> str:
        return ("Start it with `python scripts/vector-service.py` (or fix "
                "MEMORY_VECTOR_SERVICE_URL), or set MEMORY_VECTOR_MODE=inprocess / none; "
                "search uses keywords meanwhile")


def _backend_importable(model_name: str) -> bool:
    from palace.embedders.models import backend_importable

    return backend_importable(model_name)


def _error_message(response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200] or response.reason_phrase
    if isinstance(body, dict):
        return str(body.get("message") or body.get("error") or body)[:500]
    return str(body)[:500]


def _retry_after_seconds(response) -> float | None:
    try:
        return max(0.5, float(response.headers.get("Retry-After", "")))
    except ValueError:
        return None
