"""One settings object, read from ``MEMORY_*`` environment variables at the entry
points (CLI, sidecar, MCP server, ``MemoryPalaceManager``) and passed down.

Every setting is declared once in ``SETTINGS`` with its variable, default and
meaning; ``palace config`` and the README table are generated from it.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from .errors import ConfigError


def _parse_bool(raw: str) -> bool:
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off", ""}:
        return False
    raise ValueError(f"expected true/false, got {raw!r}")


def _parse_float_01(raw: str) -> float:
    value = float(raw)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"expected a number between 0 and 1, got {raw!r}")
    return value


def _parse_positive_float(raw: str) -> float:
    value = float(raw)
    if value <= 0:
        raise ValueError(f"expected a positive number, got {raw!r}")
    return value


def _parse_positive_int(raw: str) -> int:
    value = int(raw)
    if value <= 0:
        raise ValueError(f"expected a positive integer, got {raw!r}")
    return value


def _parse_choice(*choices: str) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        value = raw.strip().lower()
        if value not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}, got {raw!r}")
        return value

    return parse


def _parse_floor(raw: str) -> float | None:
    value = raw.strip().lower()
    if value in ("", "auto"):
        return None
    return _parse_float_01(value)


def _parse_optional_str(raw: str) -> str | None:
    return raw.strip() or None


@dataclass(frozen=True)
class SettingSpec:
    attr: str
    env: str
    default: Any
    parse: Callable[[str], Any]
    help: str


SETTINGS: tuple[SettingSpec, ...] = (
    SettingSpec("workspace_dir", "MEMORY_WORKSPACE_DIR", ".", str,
                "Workspace folder; memories live in <workspace>/memory/palace/."),
    SettingSpec("timezone", "MEMORY_TIMEZONE", None, _parse_optional_str,
                "IANA zone (e.g. Asia/Shanghai) for new timestamps and for time words "
                "like 'yesterday'; empty = the machine's local zone."),
    # --- ranking -------------------------------------------------------------
    SettingSpec("weight_relevance", "MEMORY_WEIGHT_RELEVANCE", 0.75, _parse_float_01,
                "Share of the final score that comes from retrieval relevance."),
    SettingSpec("weight_importance", "MEMORY_WEIGHT_IMPORTANCE", 0.10, _parse_float_01,
                "Share of the final score that comes from the memory's importance."),
    SettingSpec("weight_decay", "MEMORY_WEIGHT_DECAY", 0.15, _parse_float_01,
                "Share of the final score that comes from the current decay score."),
    SettingSpec("weight_vector", "MEMORY_WEIGHT_VECTOR", 0.5, _parse_float_01,
                "In hybrid search, share of relevance from vector similarity (rest: BM25)."),
    SettingSpec("min_relevance", "MEMORY_MIN_RELEVANCE", None, _parse_floor,
                "Relevance floor: a result must clear it (by keyword coverage or calibrated "
                "cosine) to be returned; auto/empty = the floors measured per model and "
                "retriever (docs/search-quality.md), a number in [0, 1] = that floor for "
                "both, 0 = no floor."),
    SettingSpec("reinforce", "MEMORY_REINFORCE", "top", _parse_choice("returned", "top", "used"),
                "Which search results count as accessed (reinforced against decay): "
                "returned = all, top = the best one, used = only what the agent reports "
                "with record_access. Weak results never count."),
    SettingSpec("concepts_enabled", "MEMORY_CONCEPTS_ENABLED", True, _parse_bool,
                "Expand queries with related terms from the concept map."),
    SettingSpec("concepts_file", "MEMORY_CONCEPTS_FILE", None, _parse_optional_str,
                "Extra concept map (YAML) merged over the built-in one."),
    SettingSpec("time_filter", "MEMORY_TIME_FILTER", "soft", _parse_choice("soft", "strict"),
                "soft: memories inside a period named in the query rank first, the rest "
                "keep half their relevance; strict: only memories of the period (and of "
                "up to 30 days after it, ranked lower) are returned."),
    SettingSpec("time_reasoning_enabled", "MEMORY_TIME_REASONING_ENABLED", True, _parse_bool,
                "Understand time words in queries ('上周', 'last Friday') as a filter."),
    # --- decay ---------------------------------------------------------------
    SettingSpec("decay_enabled", "MEMORY_DECAY_ENABLED", True, _parse_bool,
                "Memories fade along an Ebbinghaus curve and unused ones get archived."),
    SettingSpec("decay_archive_threshold", "MEMORY_DECAY_ARCHIVE_THRESHOLD", 0.1, _parse_float_01,
                "`run_decay` archives memories whose decay score is below this."),
    SettingSpec("decay_recovery_factor", "MEMORY_DECAY_RECOVERY_FACTOR", 0.2, _parse_float_01,
                "An access sets score = min(1, score x 0.9 + this)."),
    SettingSpec("decay_base_stability_days", "MEMORY_DECAY_BASE_STABILITY_DAYS", 30.0,
                _parse_positive_float,
                "Stability S (days) of a fresh memory of importance 0: R = exp(-days/S)."),
    SettingSpec("decay_importance_boost", "MEMORY_DECAY_IMPORTANCE_BOOST", 4.0,
                _parse_positive_float,
                "S is multiplied by (1 + boost x importance): important memories last longer."),
    SettingSpec("decay_access_growth", "MEMORY_DECAY_ACCESS_GROWTH", 0.5, _parse_positive_float,
                "Each spaced access multiplies S by (1 + growth x spacing factor)."),
    # --- vectors -------------------------------------------------------------
    SettingSpec("vector_enabled", "MEMORY_VECTOR_ENABLED", True, _parse_bool,
                "Use semantic vectors when an embedder is available."),
    SettingSpec("vector_mode", "MEMORY_VECTOR_MODE", "auto",
                _parse_choice("auto", "inprocess", "http", "none"),
                "auto = the sidecar if MEMORY_VECTOR_SERVICE_URL is set, else in process "
                "(library) / none (CLI); inprocess; http; none."),
    SettingSpec("vector_model", "MEMORY_VECTOR_MODEL", "BAAI/bge-small-zh-v1.5", str,
                "sentence-transformers model (hub name or local folder), or "
                "'use-multilingual' for the torch-free Universal Sentence Encoder."),
    SettingSpec("vector_query_instruction", "MEMORY_VECTOR_QUERY_INSTRUCTION", None,
                _parse_optional_str,
                "Prefix for query texts; empty = the model's own default (BGE zh: "
                "为这个句子生成表示以用于检索相关文章：)."),
    SettingSpec("vector_service_url", "MEMORY_VECTOR_SERVICE_URL", None, _parse_optional_str,
                "URL of the embedding sidecar (python scripts/vector-service.py)."),
    SettingSpec("vector_service_token", "MEMORY_VECTOR_SERVICE_TOKEN", None, _parse_optional_str,
                "Bearer token for the sidecar; required to bind a non-loopback address."),
    SettingSpec("vector_timeout_s", "MEMORY_VECTOR_TIMEOUT", 2.0, _parse_positive_float,
                "Seconds to wait for the sidecar before falling back to keyword search."),
    SettingSpec("vector_breaker_cooldown_s", "MEMORY_VECTOR_BREAKER_COOLDOWN", 30.0,
                _parse_positive_float,
                "After a sidecar failure, seconds to skip it before trying again."),
    SettingSpec("vector_batch_size", "MEMORY_VECTOR_BATCH_SIZE", 32, _parse_positive_int,
                "Texts per embedding batch."),
    # --- context ------------------------------------------------------------
    SettingSpec("essence_max_bytes", "MEMORY_ESSENCE_MAX_BYTES", 15 * 1024, _parse_positive_int,
                "Size cap of the pinned essence memory (bytes of UTF-8)."),
    SettingSpec("max_content_bytes", "MEMORY_MAX_CONTENT_BYTES", 1024 * 1024, _parse_positive_int,
                "Largest memory content accepted (bytes of UTF-8)."),
)

_SPEC_BY_ATTR = {spec.attr: spec for spec in SETTINGS}


@dataclass(frozen=True)
class Settings:
    workspace_dir: str = "."
    timezone: str | None = None
    weight_relevance: float = 0.75
    weight_importance: float = 0.10
    weight_decay: float = 0.15
    weight_vector: float = 0.5
    min_relevance: float | None = None
    reinforce: str = "top"
    concepts_enabled: bool = True
    concepts_file: str | None = None
    time_filter: str = "soft"
    time_reasoning_enabled: bool = True
    decay_enabled: bool = True
    decay_archive_threshold: float = 0.1
    decay_recovery_factor: float = 0.2
    decay_base_stability_days: float = 30.0
    decay_importance_boost: float = 4.0
    decay_access_growth: float = 0.5
    vector_enabled: bool = True
    vector_mode: str = "auto"
    vector_model: str = "BAAI/bge-small-zh-v1.5"
    vector_query_instruction: str | None = None
    vector_service_url: str | None = None
    vector_service_token: str | None = None
    vector_timeout_s: float = 2.0
    vector_breaker_cooldown_s: float = 30.0
    vector_batch_size: int = 32
    essence_max_bytes: int = 15 * 1024
    max_content_bytes: int = 1024 * 1024
    # Not an env setting: lets tests and the CLI say where a value came from.
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> "Settings":
        """Read every ``MEMORY_*`` variable; explicit ``overrides`` win over the env."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        sources: dict[str, str] = {}
        for spec in SETTINGS:
            raw = env.get(spec.env)
            if raw is not None and raw.strip() != "":
                try:
                    values[spec.attr] = spec.parse(raw)
                except ValueError as exc:
                    raise ConfigError(
                        f"{spec.env}={raw!r} is not valid: {exc}. "
                        f"Unset it to use the default ({spec.default!r})."
                    ) from None
                sources[spec.attr] = "env"
            else:
                sources[spec.attr] = "default"
        for key, value in overrides.items():
            if key not in _SPEC_BY_ATTR:
                raise ConfigError(f"unknown setting {key!r}")
            if value is not None:
                values[key] = value
                sources[key] = "argument"
        return cls(**values, sources=sources)

    def replace(self, **changes: Any) -> "Settings":
        return dataclasses.replace(self, **changes)

    @property
    def workspace(self) -> Path:
        return Path(self.workspace_dir).expanduser()

    def describe(self) -> list[dict[str, Any]]:
        """Rows for ``palace config``: variable, value, default, source, help."""
        rows = []
        for spec in SETTINGS:
            value = getattr(self, spec.attr)
            if spec.attr == "vector_service_token" and value:
                value = "***"
            rows.append({
                "variable": spec.env,
                "value": value,
                "default": spec.default,
                "source": self.sources.get(spec.attr, "default"),
                "help": spec.help,
            })
        return rows
