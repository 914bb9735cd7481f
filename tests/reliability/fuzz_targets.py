"""What the fuzzers check, shared by the short CI forms (tests/reliability/test_fuzz.py)
and the long forms (scripts/fuzz.py).

Each ``check_*`` takes one generated input and fails (raises AssertionError or the
unexpected exception) when palace does anything but return a sane value or raise
one of its own errors: no other exception, no escape from the workspace, no hang
(callers give hypothesis a deadline). ``CASES`` counts the inputs each one saw.
"""

from __future__ import annotations

import json
import math
import string
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from palace import limits
from palace.errors import InvalidInputError, MemoryFileError, PalaceError
from palace.store.files import FileStorage, parse_memory, render_memory
from palace.validation import coerce_datetime, normalize_location, validate_id

CASES: Counter[str] = Counter()
TZ = timezone(timedelta(hours=8))

# --------------------------------------------------------------------------- strategies

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
                         st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=40))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)), max_leaves=12)

_yaml_bits = st.sampled_from([
    "id: ", "tags: ", "createdAt: ", "updatedAt: ", "importance: ", "status: ", "pinned: ", "location: ",
    "type: ", "noSummary: ", "&a ", "*a", "[", "]", "{", "}", ", ", ": ", "- ", "\n", "  ", "'", '"',
    ".inf", ".nan", "1e300", "99999999999999999999", "0001-01-01T00:00:00+23:59",
    "9999-12-31T23:59:59-23:59", "2026-03-18 10:00:00+08:00", "!!python/object:os.system", "!!binary",
    "~", "true", "yes", "null", "<<: *a", "? ", "|", ">", "#", "---", "...", "\t", "é", "数据库", "\\u0000",
])
frontmatter_texts = st.one_of(
    st.lists(_yaml_bits, max_size=40).map(lambda parts: "---\n" + "".join(parts) + "\n---\nbody\n"),
    st.text(max_size=300).map(lambda text: "---\n" + text + "\n---\n" + text),
    st.dictionaries(st.sampled_from(["id", "tags", "createdAt", "updatedAt", "importance", "status",
                                     "pinned", "location", "x"]), json_values, max_size=6).map(
        lambda meta: "---\n" + "\n".join(f"{k}: {json.dumps(v)}" for k, v in meta.items()) + "\n---\nbody\n"),
)

ids = st.one_of(st.text(max_size=140), st.text(alphabet=string.ascii_letters + string.digits + "._-/\\",
                                                max_size=140))
locations = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(st.sampled_from(["..", ".", "", ".trash", ".palace", "~", "/", "C:", "😀" * 60,
                                        "a" * 81, "数据库", "con", "nul"]),
                       st.text(max_size=20)), max_size=10).map("/".join),
)
times = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.integers(min_value=-(10**25), max_value=10**25),
    st.datetimes(timezones=st.one_of(st.none(), st.timezones(),
                                     st.integers(-1439, 1439).map(lambda m: timezone(timedelta(minutes=m))))),
    st.text(max_size=40),
    st.builds(lambda y, rest: f"{y:04d}{rest}", st.integers(0, 9999),
              st.sampled_from(["-01-01T00:00:00+23:59", "-12-31T23:59:59-23:59", "-06-15", "-02-29T12:00Z"])),
)
queries = st.one_of(st.text(max_size=200), st.text(alphabet="上周数据库部署 deployPostgreSQL的三天前\"*:()-^~", max_size=60),
                    st.just("x" * (limits.MAX_QUERY_CHARS + 1)))

# --------------------------------------------------------------------------- checks


def check_frontmatter(text: str, tmp: Path) -> None:
    """Any text as a memory file: a Memory that renders and reads back, or a
    ValueError (the reader's "this file is bad", reported as MemoryFileError)."""
    CASES["frontmatter"] += 1
    try:
        memory = parse_memory(text, path=tmp / "fuzz.md", location="general",
                              fallback_time=datetime(2026, 1, 1, tzinfo=TZ), tz=TZ)
    except ValueError:
        return
    memory.created_at.timestamp()
    memory.updated_at.timestamp()
    try:
        rendered = render_memory(memory)
    except InvalidInputError:
        return  # too much metadata to write back: refused, not written half
    again = parse_memory(rendered, path=tmp / "fuzz.md", location="general",
                         fallback_time=datetime(2026, 1, 1, tzinfo=TZ), tz=TZ)
    assert again.id == memory.id and again.content == memory.content and again.tags == memory.tags


def check_frontmatter_file(text: str, storage: FileStorage) -> None:
    """The same through FileStorage.read: only MemoryFileError."""
    CASES["frontmatter_file"] += 1
    path = storage.root / "general" / "fuzz.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        storage.read(path)
    except MemoryFileError as exc:
        assert exc.path == path and exc.reason


def check_id(value: str, storage: FileStorage) -> None:
    CASES["id"] += 1
    try:
        memory_id = validate_id(value)
    except InvalidInputError:
        return
    path = storage.path_for("general", memory_id).resolve()
    assert storage.root.resolve() in path.parents, path
    assert len(path.name.encode()) <= 255


def check_location(value: str, storage: FileStorage) -> None:
    CASES["location"] += 1
    try:
        location = normalize_location(value)
    except InvalidInputError:
        return
    folder = storage.path_for(location, "x").parent.resolve()
    root = storage.root.resolve()
    assert folder == root or root in folder.parents, folder
    assert not any(part.startswith(".") for part in location.split("/"))
    assert all(len(part.encode()) <= limits.MAX_ROOM_NAME_BYTES for part in location.split("/"))
    folder.mkdir(parents=True, exist_ok=True)  # the file system agrees it is a usable name


def check_time(value: Any) -> None:
    CASES["time"] += 1
    try:
        when = coerce_datetime(value, tz=TZ, what="now")
    except InvalidInputError:
        return
    assert when.tzinfo is not None
    stamp = when.timestamp()
    assert math.isfinite(stamp)
    # every computation palace makes from a time must stay inside the calendar
    for delta in (timedelta(days=366 * 10), timedelta(days=-366 * 10)):
        (when + delta).isoformat()
    # (timestamps, not ==: Python never equates a DST-fold time with another zone)
    assert coerce_datetime(when.isoformat(), tz=TZ).timestamp() == stamp


def check_query(pm, query: str, top_k: Any = 10) -> None:
    CASES["query"] += 1
    try:
        results = pm.search(query, top_k=top_k)
    except PalaceError:
        return
    assert len(results) <= (top_k if isinstance(top_k, int) else 10)
    for result in results:
        assert math.isfinite(result.score)


def files_outside(base: Path, allowed: set[Path]) -> list[Path]:
    """Files under ``base`` but outside every folder of ``allowed``: escapes."""
    found = []
    for path in base.rglob("*"):
        if path.is_file() and not any(folder == path or folder in path.parents for folder in allowed):
            found.append(path)
    return found


# --------------------------------------------------------------------------- MCP


def from_schema(schema: dict[str, Any], defs: dict[str, Any] | None = None):
    """Values a JSON schema (as pydantic and the MCP SDK write them) allows: types,
    anyOf, enum, const, bounds, lengths, required and optional properties, $ref."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return from_schema(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        return st.one_of([from_schema(option, defs) for option in options])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([from_schema({**schema, "type": k}, defs) for k in kind])
    if kind == "string":
        return st.text(min_size=schema.get("minLength", 0), max_size=min(schema.get("maxLength", 60), 200))
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        high = schema.get("maximum", schema.get("exclusiveMaximum"))
        if kind == "integer":
            return st.integers(min_value=None if low is None else math.ceil(low),
                               max_value=None if high is None else math.floor(high))
        return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {}), defs), max_size=min(schema.get("maxItems", 5), 5))
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        required = set(schema.get("required", ()))
        return st.fixed_dictionaries(
            {name: from_schema(spec, defs) for name, spec in properties.items() if name in required},
            optional={name: from_schema(spec, defs) for name, spec in properties.items()
                      if name not in required})
    return json_values


def mcp_arguments(schema: dict[str, Any]):
    """Valid arguments from the tool's own schema, or loosely typed / wrong ones."""
    properties = list(schema.get("properties", {}))
    valid = from_schema(schema)
    wrong = st.dictionaries(st.sampled_from(properties) if properties else st.text(max_size=5),
                            json_values, max_size=len(properties) + 1)
    return st.one_of(valid, wrong, st.builds(lambda a, b: {**a, **b}, valid, wrong))


def check_mcp_result(tool: str, arguments: dict[str, Any], result) -> None:
    CASES["mcp"] += 1
    text = result.content[0].text if result.content else ""
    assert "internal error in palace" not in text, f"{tool}({arguments!r}): {text[:500]}"
    if not result.is_error:
        json.dumps(result.structured_content)


# --------------------------------------------------------------------------- the sidecar


def sidecar_bodies():
    """Request bodies from the pydantic models the sidecar validates with (its JSON
    schemas), with palace's metadata keys given hostile values, plus raw junk."""
    from vector_service.app import EmbedRequest, IndexRequest, RemoveRequest, SearchRequest

    metadata = st.dictionaries(st.sampled_from(["createdAt", "updatedAt", "tags", "importance", "location",
                                                "type", "source", "status", "pinned", "summary", "x"]),
                               json_values, max_size=6)
    index_bodies = st.builds(lambda body, meta: {**body, "metadata": meta},
                             from_schema(IndexRequest.model_json_schema()), metadata)
    search_filter = st.dictionaries(st.sampled_from(["tags", "location", "type", "createdAfter",
                                                     "createdBefore", "status", "x"]), json_values, max_size=4)
    search_bodies = st.builds(lambda body, flt: {**body, "filter": flt},
                              from_schema(SearchRequest.model_json_schema(by_alias=True)), search_filter)
    return st.one_of(
        st.tuples(st.just("/index"), st.one_of(index_bodies, from_schema(IndexRequest.model_json_schema()))),
        st.tuples(st.just("/search"), st.one_of(search_bodies, from_schema(SearchRequest.model_json_schema()))),
        st.tuples(st.just("/remove"), from_schema(RemoveRequest.model_json_schema())),
        st.tuples(st.just("/embed"), from_schema(EmbedRequest.model_json_schema()).filter(
            lambda b: len(b.get("texts", [])) <= 8)),
        st.tuples(st.sampled_from(["/index", "/search", "/remove", "/embed"]), json_values),
    )


def encode_body(body: Any) -> bytes:
    # allow_nan: NaN / Infinity are what a sloppy client sends; the server must cope
    return json.dumps(body, allow_nan=True).encode("utf-8")


def check_sidecar_answer(path: str, body: Any, status: int, text: str) -> None:
    CASES["sidecar"] += 1
    assert status < 500 or status == 503, f"POST {path} {encode_body(body)[:300]!r} -> {status}: {text[:300]}"
