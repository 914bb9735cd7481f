"""FileStorage: memories as Markdown files with YAML frontmatter — the source of truth.

Layout: ``{workspace}/memory/palace/<location>/<id>.md``; soft-deleted memories in
``.trash/<id>.md``. Folders starting with '.' belong to palace (trash, index,
journal) and are never scanned as rooms.

Parsing and rendering are pure functions so they can be tested on strings; the
class only adds paths and atomic file operations.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat as stat_module
import time
import unicodedata
from dataclasses import replace
from datetime import date, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any, Callable, Iterator

import yaml

from palace import limits

from palace.store import layout
from palace.store.atomic import atomic_write, is_stale_temp, make_private_dirs
from palace.errors import InvalidInputError, MemoryFileError, PalaceError
from palace.limits import MAX_FILE_BYTES
from palace.models import MEMORY_STATUSES, Memory
from palace.validation import ID_PATTERN, normalize_location, parse_time

PALACE_SUBDIR = Path(layout.PALACE_SUBDIR)
TRASH_DIR = ".trash"
SUMMARY_HEADING = "## Summary"

# Frontmatter keys palace owns, in the order they are written.
KNOWN_KEYS = ("id", "tags", "importance", "status", "pinned", "createdAt", "updatedAt",
              "source", "location", "type", "deletedAt", "noSummary")


# --------------------------------------------------------------------------- parsing

def split_frontmatter(text: str) -> tuple[dict[str, Any] | None, str]:
    """Return (frontmatter mapping or None when there is none, body)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.startswith("---"):
        return None, text
    found = _frontmatter_span(text)
    if found is None:
        raise ValueError("frontmatter starts with '---' but has no closing '---' line")
    start, end, after = found
    raw = text[start:end]
    size = len(raw.encode("utf-8")) if 4 * len(raw) > limits.MAX_FRONTMATTER_BYTES else 0
    if size > limits.MAX_FRONTMATTER_BYTES:
        raise ValueError(f"frontmatter is {size} bytes, over the {limits.MAX_FRONTMATTER_BYTES}-byte limit")
    fast = _json_lines_frontmatter(raw)
    if fast is not None:
        if "\\u" in raw:  # JSON writes a surrogate only as a \u escape
            _refuse_surrogates(fast)
        return fast, text[after:]
    data = _load_yaml(raw) if raw.strip() else {}
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError("frontmatter must be a mapping of keys to values")
    _refuse_surrogates(data)
    return data, text[after:]


_OPENING = re.compile(r"---[ \t]*\r?\n")
_CLOSING = re.compile(r"---[ \t]*(?:\r?\n|$)", re.M)  # matched at a line's start only


def _frontmatter_span(text: str) -> tuple[int, int, int] | None:
    """Where the frontmatter block lies (start, end) and where the body starts; None
    without a closing line. What ``^---[ \\t]*\\r?\\n(.*?)(?:\\r?\\n)?^---[ \\t]*(?:\\r?\\n|$)``
    (re.S | re.M) matches, found by jumping from one "\\n---" to the next instead
    of trying every character lazily (3x faster on palace's own files)."""
    opening = _OPENING.match(text)
    if opening is None:
        return None
    start = opening.end()
    at = start - 1  # the opening's line break: a closing line may follow it at once
    while (at := text.find("\n---", at)) >= 0:
        closing = _CLOSING.match(text, at + 1)
        if closing:  # the block ends before the line break (\r\n or \n) of that line
            end = at - 1 if at - 1 >= start and text[at - 1] == "\r" else max(at, start)
            return start, end, closing.end()
        at += 1
    return None


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader with limits: nesting depth and the node count with every
    alias expanded, so that 100,000 nested lists or a 1 KB "billion laughs" alias bomb
    is refused in milliseconds instead of recursing away or taking all memory.

    Pure Python on purpose: the C loader composes recursively in C, out of reach of
    these checks. Palace's own files never get here (see _json_lines_frontmatter).
    """

    def __init__(self, stream: str):
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent, index):  # noqa: D401 - PyYAML's hook
        self._depth += 1
        try:
            if self._depth > limits.MAX_FRONTMATTER_DEPTH:
                raise ValueError(f"frontmatter is nested deeper than {limits.MAX_FRONTMATTER_DEPTH} levels")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def get_single_node(self):
        node = super().get_single_node()
        if node is not None:
            _check_expanded_size(node)
        return node


def _check_expanded_size(root: yaml.Node) -> None:
    """Count the nodes ``root`` stands for with aliases expanded (memoised per node,
    so the count itself is cheap) and refuse recursive aliases."""
    sizes: dict[int, int] = {}
    in_progress: set[int] = set()
    limit = limits.MAX_FRONTMATTER_NODES

    def size(node: yaml.Node, depth: int) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in in_progress:
            raise ValueError("frontmatter holds a recursive alias (a value that contains itself)")
        if depth > limits.MAX_FRONTMATTER_DEPTH:
            raise ValueError(f"frontmatter is nested deeper than {limits.MAX_FRONTMATTER_DEPTH} levels")
        in_progress.add(key)
        total = 1
        if isinstance(node, yaml.SequenceNode):
            children = node.value
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        else:
            children = []
        for child in children:
            total += size(child, depth + 1)
            if total > limit:
                raise ValueError(f"frontmatter expands to more than {limit} values (an alias bomb?)")
        in_progress.discard(key)
        sizes[key] = total
        return total

    size(root, 0)


def _load_yaml(raw: str) -> Any:
    try:
        return yaml.load(raw, Loader=_BoundedLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        raise ValueError(f"frontmatter is not valid YAML{where}: {getattr(exc, 'problem', exc)}") from None
    except (RecursionError, OverflowError, OSError, MemoryError) as exc:
        raise ValueError(f"frontmatter cannot be read: {type(exc).__name__}") from None


def _json_too_deep(text: str, limit: int) -> bool:
    """Whether a JSON text nests [ and { deeper than ``limit`` (strings skipped)."""
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


_SURROGATE = re.compile("[\ud800-\udfff]")


def _refuse_surrogates(data: Any) -> None:
    """An escape like "\\ud800" decodes to a lone surrogate, which no UTF-8 file can
    hold: the memory could be read but never written back. (Depth is bounded above.)"""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise ValueError("frontmatter holds an escaped lone surrogate (\\ud800-\\udfff), "
                                 "which is not Unicode text")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)


_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*): (.+)$")


_JSON = json.JSONDecoder()
_JSON_SPACE = " \t\n\r"  # what JSON skips around a value


def _json_lines_frontmatter(raw: str) -> dict[str, Any] | None:
    """Palace writes every frontmatter value as JSON (valid YAML flow syntax), so its
    own files parse ~4x faster this way; anything else (hand-written YAML) → None.

    Each value is read as ``json.loads`` would (the same values, the same refusals),
    without its per-call checks: this runs for every line of every file on a rebuild."""
    data: dict[str, Any] = {}
    scan, depth = _JSON.scan_once, limits.MAX_FRONTMATTER_DEPTH  # type: ignore[attr-defined]
    for line in raw.split("\n"):
        line = line.rstrip("\r")
        if not line or line.isspace():
            continue
        match = _KEY_LINE.match(line)
        if not match:
            return None
        key, text = match.groups()
        # (no deeper than the brackets it holds: most lines are not even scanned)
        if ("[" in text or "{" in text) and text.count("[") + text.count("{") > depth and \
                _json_too_deep(text, depth):
            raise ValueError(f"frontmatter is nested deeper than {depth} levels")
        try:
            value, end = scan(text, len(text) - len(text.lstrip(_JSON_SPACE)))
        except (StopIteration, ValueError, RecursionError):
            return None
        if end != len(text) and text[end:].strip(_JSON_SPACE):
            return None  # more than one value
        if isinstance(value, dict):
            return None  # a YAML mapping may differ from JSON in corner cases
        data[key] = value
    return data


def split_summary(body: str) -> tuple[str, str | None]:
    """The last ``## Summary`` section, when it is the final heading, is the summary."""
    if "\n#" not in body and not body.startswith("#"):
        return body.strip("\n"), None  # no heading at all (most memories)
    lines = body.split("\n")
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index].rstrip()
        if line.startswith("## ") or line.startswith("# "):
            if line == SUMMARY_HEADING:
                content = "\n".join(lines[:index]).strip("\n")
                summary = "\n".join(lines[index + 1:]).strip("\n")
                return content, (summary or None)
            break
    return body.strip("\n"), None


def _as_datetime(value: Any, key: str, tz: tzinfo) -> datetime | None:
    if value is None or value == "":
        return None
    try:
        return parse_time(value, tz=tz, what=key)
    except (OverflowError, OSError) as exc:  # parse_time bounds them; never let one escape
        raise ValueError(f"{key} {str(value)[:60]!r} is out of range: {exc}") from None


def _as_tags(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        items = re.split(r"[,，]", value)
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise ValueError(f"tags must be a list, got {type(value).__name__}")
    tags: dict[str, None] = {}
    for item in items:
        if item is None or isinstance(item, (dict, list)):
            raise ValueError(f"tag {item!r} is not a string")
        text = unicodedata.normalize("NFC", str(item)).strip()
        if text:
            tags.setdefault(text, None)
    return tuple(tags)


def _as_importance(value: Any) -> float:
    if value is None:
        return 0.5
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"importance {value!r} is not a number") from None
    if number != number:
        raise ValueError("importance is NaN")
    return min(1.0, max(0.0, number))


def _as_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    if isinstance(value, str):
        return value.strip().lower() in {"1", "true", "yes", "on"}
    return bool(value)


def parse_memory(text: str, *, path: Path, location: str, fallback_time: datetime,
                 tz: tzinfo) -> Memory:
    """Turn a file's text into a ``Memory``. Raises ``ValueError`` with the reason.

    ``location`` comes from the folder the file lies in: a file moved by hand to
    another room belongs to that room. Frontmatter is optional, so a note written
    by hand with no frontmatter at all is still a memory (id = file name).
    """
    meta, body = split_frontmatter(text)
    meta = dict(meta or {})
    memory_id = meta.pop("id", None)
    memory_id = path.stem if memory_id in (None, "") else str(memory_id)
    if not ID_PATTERN.match(memory_id) or ".." in memory_id:
        raise ValueError(f"id {memory_id!r} is not a valid memory id")
    status = str(meta.pop("status", "active") or "active").strip().lower()
    if status not in MEMORY_STATUSES:
        raise ValueError(f"status {status!r} is not one of {', '.join(MEMORY_STATUSES)}")
    created = _as_datetime(meta.pop("createdAt", None), "createdAt", tz) or fallback_time
    updated = _as_datetime(meta.pop("updatedAt", None), "updatedAt", tz) or created
    deleted = meta.pop("deletedAt", None)
    if deleted is not None:
        meta["deletedAt"] = deleted  # only meaningful in the trash; keep verbatim
    if _as_bool(meta.pop("noSummary", False)):
        content, summary = body.strip("\n"), None
    else:
        content, summary = split_summary(body)
    meta.pop("location", None)  # the folder is the truth
    memory_type = str(meta.pop("type", "fact") or "fact").strip()
    source = str(meta.pop("source", "manual") or "manual").strip()
    return Memory(
        id=memory_id,
        content=content,
        summary=summary,
        tags=_as_tags(meta.pop("tags", None)),
        importance=_as_importance(meta.pop("importance", None)),
        status=status,
        location=location,
        type=memory_type,
        source=source,
        created_at=created,
        updated_at=updated,
        pinned=_as_bool(meta.pop("pinned", False)),
        extra=meta,
        path=path,
    )


# Characters JSON leaves raw but YAML reads as line breaks (NEL, LS, PS), refuses
# (DEL, C1 controls) or strips (BOM): written as \u escapes, valid in both.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff]")


def _yaml_scalar(value: Any) -> str:
    # JSON is valid YAML flow syntax, and keeps every string quoted: no 'yes'→True
    # or '010'→8 surprises when a person or another tool reads the file.
    text = json.dumps(value, ensure_ascii=False)
    return _YAML_UNSAFE.sub(lambda m: "\\u%04x" % ord(m.group()), text)


def _extra_value(value: Any) -> str:
    if isinstance(value, (datetime, date)):
        return _yaml_scalar(value.isoformat())
    try:
        return _yaml_scalar(value)
    except TypeError:
        dumped = yaml.safe_dump(value, allow_unicode=True, default_flow_style=True, width=10**9)
        return dumped.strip().removesuffix("...").strip()


def text_lines(path: Path, content: str) -> tuple[int, int] | None:
    """Where a memory's text lies in its Markdown file: its first and last line, 1-based,
    below the frontmatter and the blank line after it (what a citation points at). None
    when the file is gone or no longer reads as a memory."""
    try:
        text = path.read_text(encoding="utf-8")
        body = split_frontmatter(text)[1]
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    start = len(text) - len(body.lstrip("\n"))
    first = text.count("\n", 0, start) + 1
    return first, first + content.strip("\n").count("\n")


def render_memory(memory: Memory) -> str:
    """The Markdown text of a memory; ``parse_memory`` reads it back unchanged."""
    assert memory.created_at is not None and memory.updated_at is not None  # set by parse and store
    lines = ["---", f"id: {_yaml_scalar(memory.id)}", f"tags: {_yaml_scalar(list(memory.tags))}",
             f"importance: {_yaml_scalar(round(memory.importance, 4))}",
             f"status: {_yaml_scalar(memory.status)}"]
    if memory.pinned:
        lines.append("pinned: true")
    lines.append(f"createdAt: {_yaml_scalar(memory.created_at.isoformat())}")
    lines.append(f"updatedAt: {_yaml_scalar(memory.updated_at.isoformat())}")
    lines.append(f"source: {_yaml_scalar(memory.source)}")
    lines.append(f"location: {_yaml_scalar(memory.location)}")
    lines.append(f"type: {_yaml_scalar(memory.type)}")
    if not memory.summary and split_summary(memory.content)[1] is not None:
        # the content itself ends in a "## Summary" section: say it is content
        lines.append("noSummary: true")
    for key, value in memory.extra.items():
        if key in KNOWN_KEYS and key != "deletedAt":
            continue
        safe_key = key if re.match(r"^[A-Za-z_][A-Za-z0-9_-]*$", str(key)) else _yaml_scalar(str(key))
        lines.append(f"{safe_key}: {_extra_value(value)}")
    frontmatter_bytes = sum(len(line.encode("utf-8")) + 1 for line in lines[1:])
    if frontmatter_bytes > limits.MAX_FRONTMATTER_BYTES:
        # the reader would refuse the file: refuse to write it
        raise InvalidInputError(
            f"memory {memory.id!r}: its metadata is {frontmatter_bytes} bytes, over the "
            f"{limits.MAX_FRONTMATTER_BYTES}-byte frontmatter limit; store less metadata")
    lines.append("---")
    lines.append("")
    lines.append(memory.content.strip("\n"))
    if memory.summary:
        lines.extend(["", SUMMARY_HEADING, "", memory.summary.strip("\n")])
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- files

class UnsafePathError(PalaceError):
    """A path inside the palace is a symlink (or not what palace put there)."""


def walk_entries(root: str, *, descend: Callable[[str, os.DirEntry], bool] | None = None
                 ) -> Iterator[tuple[str, os.DirEntry]]:
    """Every entry below ``root`` as (its folder, the entry), folders included, never
    through a symbolic link; an unreadable folder is passed over. ``descend(folder,
    entry)`` decides whether a real folder is entered (default: every one)."""
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir and (descend is None or descend(folder, entry)):
                stack.append(entry.path)
            yield folder, entry


def _not_hidden(_folder: str, entry: os.DirEntry) -> bool:
    return not entry.name.startswith(".")


def deleted_at(memory: Memory, tz: tzinfo) -> datetime | None:
    """When a trashed memory was deleted (its ``deletedAt``), None if unknown or unreadable."""
    try:
        return _as_datetime(memory.extra.get("deletedAt"), "deletedAt", tz)
    except ValueError:
        return None


def trash_due(memories: list[Memory], *, older_than_days: float | None, now: datetime,
              tz: tzinfo) -> list[str]:
    """The ids of trashed memories to remove for good: all of them, or those deleted
    (else last updated) at least ``older_than_days`` before ``now``. One rule for both
    backends' ``empty_trash``."""
    if older_than_days is None:
        return [m.id for m in memories]
    due = []
    for memory in memories:
        when = deleted_at(memory, tz) or memory.updated_at
        if when is not None and now - when >= timedelta(days=older_than_days):
            due.append(memory.id)
    return due


class TrashRules:
    """``deleted_at`` and ``empty_trash``, one rule for both backends' stores: the store
    provides ``tz``, ``list_trash()`` and ``discard_trash(id)``."""

    tz: tzinfo

    def list_trash(self) -> tuple[list[Memory], list[Any]]:
        raise NotImplementedError

    def discard_trash(self, memory_id: str) -> None:
        raise NotImplementedError

    def deleted_at(self, memory: Memory) -> datetime | None:
        return deleted_at(memory, self.tz)

    def empty_trash(self, *, older_than_days: float | None, now: datetime) -> list[str]:
        memories, _errors = self.list_trash()
        removed = trash_due(memories, older_than_days=older_than_days, now=now, tz=self.tz)
        for memory_id in removed:
            self.discard_trash(memory_id)
        return removed


def _read_to_end(fd: int, size: int) -> bytes:
    """A file's bytes up to one past MAX_FILE_BYTES: as much as fstat said first (a
    read into a buffer of the limit's size costs more than the read), then on to the
    end, for a file that grew since. Plain os.read: no file object per file."""
    chunks = [os.read(fd, size + 1)]
    got = len(chunks[0])
    while got <= MAX_FILE_BYTES:
        chunk = os.read(fd, MAX_FILE_BYTES + 1 - got)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _link_refused(path: str) -> str:
    return (f"{path} is a symlink: palace never reads, writes or deletes through links "
            "inside the palace (they could lead outside it); replace it with a real "
            "folder or file (`palace doctor` lists every link)")


def _is_link(path: str) -> bool:
    """``Path(path).is_symlink()`` without building a Path (the same errors pass)."""
    try:
        return stat_module.S_ISLNK(os.lstat(path).st_mode)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP):
            return False
        raise
    except ValueError:
        return False


class FileStorage(TrashRules):
    """Paths and atomic file operations over one palace folder."""

    def __init__(self, workspace: Path, tz: tzinfo):
        self.workspace = Path(workspace)
        self.root = self.workspace / PALACE_SUBDIR
        self.trash = self.root / TRASH_DIR
        self.tz = tz
        self.temp_files_seen: list[str] = []   # dot-named *.tmp files the last scan passed

    def ensure(self) -> None:
        make_private_dirs(self.root)

    # ------------------------------------------------------------------ links

    def check_inside(self, path: Path, real_dirs: set[str] | None = None) -> Path:
        """``path`` if no folder or file from the palace root down to it is a symlink.

        A palace pulled with git (or a hostile tarball) may hold links; following one
        would read, write or delete outside the workspace. Links above the palace
        root (a workspace that is itself a link) are the user's choice and fine.
        ``real_dirs``: folders a pass over many files (a bulk load) already found not
        to be links, checked once per pass instead of once per file.
        """
        text, root = str(path), str(self.root)
        inside = text.startswith(root + os.sep)  # (strings: this runs once per file read)
        if inside and real_dirs is not None and text.rpartition(os.sep)[0] in real_dirs:
            if _is_link(text):  # its folders were checked already, down from the root
                raise UnsafePathError(_link_refused(text))
            return path
        if not inside:
            try:
                parts: tuple[str, ...] | list[str] = path.relative_to(self.root).parts
            except ValueError:
                raise UnsafePathError(f"{path} is outside the palace {self.root}") from None
        else:
            parts = text[len(root) + 1:].split(os.sep)
        current = root
        for n, part in enumerate(parts):
            current = os.path.join(current, part)
            folder = n < len(parts) - 1
            if folder and real_dirs is not None and current in real_dirs:
                continue
            if _is_link(current):
                raise UnsafePathError(_link_refused(current))
            if folder and real_dirs is not None:
                real_dirs.add(current)
        return path

    def check_palace_folders(self) -> None:
        """Palace's own folders (trash, index, journal) must not be links."""
        for name in (TRASH_DIR, ".palace", ".journal"):
            self.check_inside(self.root / name)

    def path_for(self, location: str, memory_id: str) -> Path:
        return self.root.joinpath(*location.split("/"), f"{memory_id}.md")

    def relpath(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def location_of(self, relpath: str) -> str:
        parent = relpath.rsplit("/", 1)[0] if "/" in relpath else ""
        return parent or "general"

    def read(self, path: Path, *, location: str | None = None) -> Memory:
        """Parse one file. Raises ``MemoryFileError`` (path + reason) when it cannot."""
        return self.read_with_raw(path, location=location)[0]

    def read_with_raw(self, path: Path, *, location: str | None = None, real_dirs: set[str] | None = None
                      ) -> tuple[Memory, bytes, os.stat_result]:
        """``read``, also handing back the bytes and stat it read (one read per file);
        ``real_dirs`` as for ``check_inside``."""
        raw, stat = self.read_bytes(path, real_dirs=real_dirs)
        return self.parse_bytes(path, raw, stat, location=location), raw, stat

    def parse_bytes(self, path: Path, raw: bytes, stat: os.stat_result, *, location: str | None = None) -> Memory:
        """The memory in ``raw``, the bytes ``read_bytes`` read from ``path``."""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MemoryFileError(path, f"not UTF-8 text (byte {exc.start})") from None
        if location is None:
            location = self.location_of(self.relpath(path))
        try:
            memory = parse_memory(text, path=path, location=location,
                                  fallback_time=datetime.fromtimestamp(stat.st_mtime, self.tz), tz=self.tz)
        except ValueError as exc:
            raise MemoryFileError(path, str(exc)) from None
        if memory.status == "deleted" and path.parent != self.trash:
            # a restore killed between moving the file back and rewriting it: the
            # file is in a room, so it is live
            memory = replace(memory, status="active")
        return memory

    def read_bytes(self, path: Path, *, real_dirs: set[str] | None = None) -> tuple[bytes, os.stat_result]:
        """A memory file's bytes, unparsed, with every check ``read`` makes of the file
        itself (inside the palace, no link followed, a regular file, not too big, no NUL)."""
        try:
            self.check_inside(path, real_dirs)
        except UnsafePathError as exc:
            raise MemoryFileError(path, str(exc)) from None
        try:
            # O_NOFOLLOW: a file swapped for a link after the check is still not followed
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            try:
                stat = os.fstat(fd)
                if not stat_module.S_ISREG(stat.st_mode):
                    raise MemoryFileError(path, "not a regular file")
                if stat.st_size > MAX_FILE_BYTES:
                    raise MemoryFileError(path, f"file is {stat.st_size} bytes, over the {MAX_FILE_BYTES}-byte limit")
                raw = _read_to_end(fd, stat.st_size)
            finally:
                os.close(fd)
        except FileNotFoundError:
            raise MemoryFileError(path, "file does not exist") from None
        except OSError as exc:
            raise MemoryFileError(path, f"cannot read: {exc.strerror or exc}") from None
        if b"\x00" in raw:
            raise MemoryFileError(path, "file is binary (contains NUL bytes), not Markdown")
        return raw, stat

    def write(self, memory: Memory) -> Path:
        path = self.check_inside(self.path_for(memory.location, memory.id))
        atomic_write(path, render_memory(memory))
        return path

    def remove_file(self, path: Path) -> None:
        self.check_inside(path)
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        self._prune_empty_dirs(path.parent)

    def _prune_empty_dirs(self, folder: Path) -> None:
        while folder != self.root and self.root in folder.parents:
            try:
                folder.rmdir()
            except OSError:
                return
            folder = folder.parent

    def scan(self) -> Iterator[tuple[str, int, int]]:
        """Every memory file as (relative path, mtime_ns, size); palace folders skipped."""
        if not self.root.exists():
            return
        prefix = len(str(self.root)) + 1
        self.temp_files_seen = []
        for _folder, entry in walk_entries(str(self.root), descend=_not_hidden):
            if entry.name.startswith("."):
                if entry.name.endswith(".tmp"):
                    self.temp_files_seen.append(entry.path)
                continue
            if entry.name.endswith(".md") and entry.is_file(follow_symlinks=False):
                try:
                    stat = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                # string slicing, not pathlib: this runs once per file on every scan
                yield entry.path[prefix:].replace(os.sep, "/"), stat.st_mtime_ns, stat.st_size

    def remove_stale_temp_files(self) -> int:
        """Remove the dead writers' temp files the last ``scan`` walked past: a full
        sync sweeps every room folder this way at no extra walk."""
        now, removed = time.time(), 0
        for path in self.temp_files_seen:
            try:
                if is_stale_temp(os.path.basename(path), os.lstat(path).st_mtime, now):
                    os.unlink(path)
                    removed += 1
            except OSError:
                continue
        self.temp_files_seen = []
        return removed

    def room_dirs(self) -> Iterator[tuple[str, int]]:
        """Every room folder (relative, '' for the root) with its mtime_ns."""
        if not self.root.exists():
            return
        stack = [self.root]
        while stack:
            folder = stack.pop()
            try:
                stat = folder.stat()
                entries = list(os.scandir(folder))
            except OSError:
                continue
            rel = "" if folder == self.root else folder.relative_to(self.root).as_posix()
            yield rel, stat.st_mtime_ns
            for entry in entries:
                if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))

    def scan_folder(self, rel: str) -> Iterator[tuple[str, int, int]]:
        """Memory files directly inside one room folder."""
        folder = self.root / rel if rel else self.root
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:
            if entry.name.startswith(".") or not entry.name.endswith(".md"):
                continue
            if entry.is_file(follow_symlinks=False):
                try:
                    stat = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                yield (f"{rel}/{entry.name}" if rel else entry.name), stat.st_mtime_ns, stat.st_size

    # ------------------------------------------------------------------ trash

    def trash_path(self, memory_id: str) -> Path:
        return self.trash / f"{memory_id}.md"

    def in_trash(self, memory_id: str) -> bool:
        return self.trash_path(memory_id).exists()

    def discard_trash(self, memory_id: str) -> None:
        """Drop the trashed copy (after a restore wrote the memory back)."""
        self.trash_path(memory_id).unlink(missing_ok=True)

    def move_to_trash(self, memory: Memory, deleted_at: datetime) -> Path:
        """Move the file itself into the trash (one rename, so it is never in both
        places and never in neither), then record status and deletedAt in it. A kill
        between the two leaves a trashed file without deletedAt: still in the trash."""
        extra = dict(memory.extra)
        extra["deletedAt"] = deleted_at.isoformat()
        trashed = replace(memory, status="deleted", extra=extra)
        target = self.check_inside(self.trash_path(memory.id))
        make_private_dirs(self.trash)
        if memory.path is not None and memory.path != target:
            os.replace(self.check_inside(memory.path), target)
            self._prune_empty_dirs(memory.path.parent)
        try:
            atomic_write(target, render_memory(trashed))
        except OSError:
            pass  # the memory is in the trash, which is what was asked; the date is not
        return target

    def move_from_trash(self, memory: Memory) -> Path:
        """The trashed file back into its room, by one rename (see move_to_trash); the
        caller then rewrites it with its restored frontmatter."""
        source = self.check_inside(self.trash_path(memory.id))
        target = self.check_inside(self.path_for(memory.location, memory.id))
        make_private_dirs(target.parent)
        self.check_inside(target)
        os.replace(source, target)
        return target

    def read_trash(self, memory_id: str) -> Memory | None:
        path = self.check_inside(self.trash_path(memory_id))
        if not path.exists():
            return None
        # location recorded in the frontmatter says where to restore it
        memory = self.read(path, location="general")
        meta, _ = split_frontmatter(path.read_text(encoding="utf-8"))
        location = (meta or {}).get("location") or "general"
        try:
            location = normalize_location(str(location))
        except InvalidInputError:
            location = "general"
        return replace(memory, location=location)

    def list_trash(self) -> tuple[list[Memory], list[MemoryFileError]]:
        memories: list[Memory] = []
        errors: list[MemoryFileError] = []
        self.check_inside(self.trash)
        if not self.trash.exists():
            return memories, errors
        for path in sorted(self.trash.glob("*.md")):
            try:
                memory = self.read_trash(path.stem)
            except MemoryFileError as exc:
                errors.append(exc)
                continue
            if memory is not None:
                memories.append(memory)
        return memories, errors

