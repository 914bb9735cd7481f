"""The ``palace`` command: a thin shell over MemoryPalaceManager.

Every command takes ``--workspace`` (or MEMORY_WORKSPACE_DIR) and ``--json`` (for
agents: one JSON document on stdout). Exit codes: 0 ok, 1 not found, 2 bad input,
3 configuration problem, 4 other palace error. Errors go to stderr and say how to
fix the problem. Never imports torch: vectors come from the sidecar when
MEMORY_VECTOR_SERVICE_URL is set, otherwise search is keyword-only.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import Any, Callable, Sequence

from .errors import ConfigError, InvalidInputError, MemoryNotFoundError, PalaceError
from .settings import Settings

EXIT_OK, EXIT_NOT_FOUND, EXIT_INPUT, EXIT_CONFIG, EXIT_ERROR = 0, 1, 2, 3, 4


# --------------------------------------------------------------------------- output

def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return str(value)


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=_json_default) + "\n")


def _short(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _date(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else "-"


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    def width(text: str) -> int:  # CJK characters take two columns in a terminal
        import unicodedata

        return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)

    cells = [[str(c) for c in row] for row in rows]
    widths = [max([width(h)] + [width(r[i]) for r in cells]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v + " " * (w - width(v)) for v, w in zip(values, widths)).rstrip()

    print(line(headers))
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print(line(row))


def print_memory(memory) -> None:
    print(f"id:         {memory.id}")
    print(f"location:   {memory.location}")
    print(f"type:       {memory.type}    status: {memory.status}    source: {memory.source}")
    print(f"tags:       {', '.join(memory.tags) or '-'}")
    print(f"importance: {memory.importance}    decay: {memory.decay_score:.3f}"
          f"{'    pinned' if memory.pinned else ''}    accesses: {memory.access_count}")
    print(f"created:    {memory.created_at.isoformat() if memory.created_at else '-'}")
    print(f"updated:    {memory.updated_at.isoformat() if memory.updated_at else '-'}")
    if memory.path:
        print(f"file:       {memory.path}")
    print()
    print(memory.content)
    if memory.summary:
        print("\n## Summary\n")
        print(memory.summary)


def print_memory_rows(memories) -> None:
    if not memories:
        print("(no memories)")
        return
    print_table(["id", "created", "room", "type", "tags", "decay", "content"],
                [[m.id, _date(m.created_at), m.location, m.type, ",".join(m.tags)[:24],
                  f"{m.decay_score:.2f}", _short(m.content, 50)] for m in memories])


# --------------------------------------------------------------------------- commands

def _manager(args: argparse.Namespace, *, sync: bool = True):
    from .manager import MemoryPalaceManager

    from .embedders import make_embedder

    embedder = make_embedder(args.settings, allow_inprocess=False)
    return MemoryPalaceManager(args.settings.workspace_dir, settings=args.settings,
                               embedder=embedder, sync=sync)


def _read_content(args: argparse.Namespace) -> str:
    if args.content is None or args.content == "-":
        data = sys.stdin.buffer.read()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInputError("standard input is not UTF-8 text; binary data cannot be stored") from None
    return args.content


def cmd_init(args) -> int:
    with _manager(args) as pm:
        data = {"workspace": str(pm.settings.workspace), "palace": str(pm.root),
                "memories": pm.index.count()}
    if args.json:
        emit_json(data)
    else:
        print(f"palace ready at {data['palace']} ({data['memories']} memories)")
    return EXIT_OK


def cmd_add(args) -> int:
    content = _read_content(args)
    with _manager(args) as pm:
        memory = pm.store(content, tags=args.tag or (), importance=args.importance,
                          location=args.location, type=args.type, source=args.source,
                          summary=args.summary, created_at=args.created_at, id=args.id,
                          pinned=args.pin)
    if args.json:
        emit_json(memory.to_dict())
    else:
        print(f"stored {memory.id} in {memory.location} ({memory.path})")
    return EXIT_OK


def cmd_get(args) -> int:
    with _manager(args) as pm:
        memory = pm.get(args.id)
        if memory is None:
            hint = ""
            if pm.storage.trash_path(args.id).exists():
                hint = f"; it is in the trash: `palace restore {args.id}`"
            raise MemoryNotFoundError(args.id, hint.lstrip("; "))
    if args.json:
        emit_json(memory.to_dict())
    else:
        print_memory(memory)
    return EXIT_OK


def cmd_list(args) -> int:
    with _manager(args) as pm:
        memories = pm.list(location=args.location, tags=args.tag, status=args.status,
                           type=args.type, limit=args.limit)
    if args.json:
        emit_json([m.to_dict() for m in memories])
    else:
        print_memory_rows(memories)
    return EXIT_OK


def cmd_search(args) -> int:
    with _manager(args) as pm:
        results = pm.search(args.query, top_k=args.top_k, now=args.now, tags=args.tag,
                            location=args.location, type=args.type,
                            include_archived=args.include_archived, start=args.start, end=args.end)
    if args.json:
        emit_json([r.to_dict() for r in results])
        return EXIT_OK
    if not results:
        print("(nothing found)")
        return EXIT_OK
    notes = results[0].explanation.notes
    if results[0].explanation.time_range:
        tr = results[0].explanation.time_range
        print(f"time: {tr.get('text') or 'range'} → [{tr['start']}, {tr['end']})")
    for note in notes:
        print(f"note: {note}")
    print_table(["#", "score", "id", "created", "room", "content", "why"],
                [[i + 1, f"{r.score:.3f}", r.memory.id, _date(r.memory.created_at), r.memory.location,
                  _short(r.memory.content, 40), r.explanation.summary_line()]
                 for i, r in enumerate(results)])
    return EXIT_OK


def cmd_update(args) -> int:
    fields: dict[str, Any] = {}
    if args.content is not None:
        fields["content"] = _read_content(args)
    for name in ("summary", "importance", "location", "type", "source", "status"):
        value = getattr(args, name)
        if value is not None:
            fields[name] = value
    if args.tag is not None:
        fields["tags"] = args.tag
    if args.pin:
        fields["pinned"] = True
    if args.unpin:
        fields["pinned"] = False
    if not fields:
        raise InvalidInputError("nothing to update: give --content, --tag, --importance, --location, …")
    with _manager(args) as pm:
        memory = pm.update(args.id, **fields)
    if args.json:
        emit_json(memory.to_dict())
    else:
        print(f"updated {memory.id}")
    return EXIT_OK


def cmd_delete(args) -> int:
    with _manager(args) as pm:
        memory = pm.delete(args.id)
    if args.json:
        emit_json({"deleted": memory.id, "trash": str(memory.path)})
    else:
        print(f"moved {memory.id} to the trash (`palace restore {memory.id}` brings it back)")
    return EXIT_OK


def cmd_restore(args) -> int:
    with _manager(args) as pm:
        memory = pm.restore(args.id)
    if args.json:
        emit_json(memory.to_dict())
    else:
        print(f"restored {memory.id} to {memory.location}")
    return EXIT_OK


def cmd_trash(args) -> int:
    with _manager(args) as pm:
        if args.empty:
            removed = pm.empty_trash(older_than_days=args.older_than)
            if args.json:
                emit_json({"removed": removed})
            else:
                print(f"removed {len(removed)} memories from the trash for good")
            return EXIT_OK
        memories = pm.list_trash()
    if args.json:
        emit_json([m.to_dict() for m in memories])
    else:
        print_memory_rows(memories)
    return EXIT_OK


def cmd_reindex(args) -> int:
    with _manager(args, sync=False) as pm:
        report = pm.reindex(vectors=args.vectors)
        total = pm.index.count()
    data = report.to_dict() | {"memories": total}
    if args.json:
        emit_json(data)
    else:
        print(f"reindexed {total} memories")
        for error in report.errors:
            print(f"  unreadable: {error[0]}: {error[1]}", file=sys.stderr)
    return EXIT_OK


def cmd_sync(args) -> int:
    with _manager(args, sync=False) as pm:
        report = pm.sync(full=True)
    if args.json:
        emit_json(report.to_dict())
    else:
        d = report.to_dict()
        print(f"added {d['added']}, updated {d['updated']}, moved {d['moved']}, "
              f"removed {d['removed']}, unchanged {d['unchanged']}")
        for error in report.errors:
            print(f"  unreadable: {error[0]}: {error[1]}", file=sys.stderr)
    return EXIT_OK


def cmd_stats(args) -> int:
    with _manager(args) as pm:
        data = pm.stats()
        data["problems"] = [{"path": p, "reason": r} for p, r in pm.problems()]
    if args.json:
        emit_json(data)
        return EXIT_OK
    print(f"palace:   {data['palace']}")
    print(f"memories: {data['total']}  " + "  ".join(f"{k}={v}" for k, v in data["by_status"].items())
          + f"  trash={data['trash']}")
    print("rooms:    " + ", ".join(f"{k} ({v})" for k, v in data["by_location"].items()))
    print("types:    " + ", ".join(f"{k} ({v})" for k, v in data["by_type"].items()))
    print(f"accesses: {data['accesses']}")
    if data["vectors"]:
        print("vectors:  " + ", ".join(f"{k} ({v})" for k, v in data["vectors"].items()))
    for problem in data["problems"]:
        print(f"unreadable: {problem['path']}: {problem['reason']}")
    return EXIT_OK


def cmd_config(args) -> int:
    rows = args.settings.describe()
    if args.json:
        emit_json(rows)
    else:
        print_table(["variable", "value", "default", "source"],
                    [[r["variable"], r["value"], r["default"], r["source"]] for r in rows])
    return EXIT_OK


def cmd_decay(args) -> int:
    with _manager(args) as pm:
        report = pm.run_decay(now=args.now, dry_run=args.dry_run)
    if args.json:
        emit_json(report.to_dict())
    else:
        verb = "would archive" if args.dry_run else "archived"
        print(f"checked {report.checked} active memories at {report.now.isoformat()}: "
              f"{verb} {len(report.archived)} under {report.threshold} ({report.pinned} pinned)")
        for memory_id in report.archived:
            print(f"  {memory_id}  score {report.scores.get(memory_id, 0):.3f}")
    return EXIT_OK


# --------------------------------------------------------------------------- parser

EXTRA_COMMANDS: list[Callable[[Any, Any], None]] = []  # registered by feature modules


def build_parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(add_help=False)
    top.add_argument("--workspace", "-w", help="workspace folder (default: MEMORY_WORKSPACE_DIR or .)")
    top.add_argument("--json", action="store_true", help="print JSON (for agents and scripts)")
    # The same options after the command; SUPPRESS keeps a sub-command's default from
    # overwriting a value given before the command (`palace --json list`).
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--workspace", "-w", default=argparse.SUPPRESS,
                        help="workspace folder (default: MEMORY_WORKSPACE_DIR or .)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="print JSON (for agents and scripts)")

    parser = argparse.ArgumentParser(
        prog="palace", parents=[top],
        description="palace: local-first long-term memory for AI agents. Memories are Markdown "
                    "files in rooms under <workspace>/memory/palace/.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def add(name: str, func: Callable, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        p.set_defaults(func=func)
        return p

    add("init", cmd_init, "create the palace folders in the workspace")

    p = add("add", cmd_add, "store a memory (content as argument, or '-' / nothing for stdin)")
    p.add_argument("content", nargs="?")
    p.add_argument("--tag", "-t", action="append", help="a tag (repeatable)")
    p.add_argument("--importance", "-i", type=float, default=0.5, help="0..1 (1.0 = pinned)")
    p.add_argument("--location", "-l", default="general", help="room, e.g. projects/palace")
    p.add_argument("--type", default="fact", help="fact, decision, preference, event, experience…")
    p.add_argument("--source", default="cli")
    p.add_argument("--summary")
    p.add_argument("--created-at", help="ISO time, e.g. 2026-03-18T10:00:00+08:00")
    p.add_argument("--id", help="choose the id (letters, digits, . _ -)")
    p.add_argument("--pin", action="store_true", help="never decays")

    p = add("get", cmd_get, "show one memory")
    p.add_argument("id")

    p = add("list", cmd_list, "list memories, newest first")
    p.add_argument("--location", "-l")
    p.add_argument("--tag", "-t", action="append")
    p.add_argument("--type")
    p.add_argument("--status", default="active", choices=["active", "archived", "deleted", "all"])
    p.add_argument("--limit", "-n", type=int, default=50)

    p = add("search", cmd_search, "search memories (time words like '上周' or 'last Friday' are understood)")
    p.add_argument("query")
    p.add_argument("--top-k", "-k", type=int, default=10)
    p.add_argument("--tag", "-t", action="append")
    p.add_argument("--location", "-l")
    p.add_argument("--type")
    p.add_argument("--include-archived", action="store_true")
    p.add_argument("--now", help="pretend it is this ISO time (for time words and decay)")
    p.add_argument("--start", help="only memories created at or after this ISO time")
    p.add_argument("--end", help="only memories created before this ISO time")

    p = add("update", cmd_update, "change a memory")
    p.add_argument("id")
    p.add_argument("--content", help="new content ('-' for stdin)")
    p.add_argument("--summary")
    p.add_argument("--tag", "-t", action="append", help="replace the tags (repeatable)")
    p.add_argument("--importance", "-i", type=float)
    p.add_argument("--location", "-l")
    p.add_argument("--type")
    p.add_argument("--source")
    p.add_argument("--status", choices=["active", "archived"])
    p.add_argument("--pin", action="store_true")
    p.add_argument("--unpin", action="store_true")

    p = add("delete", cmd_delete, "move a memory to the trash")
    p.add_argument("id")
    p = add("restore", cmd_restore, "bring a memory back from the trash or from the archive")
    p.add_argument("id")
    p = add("trash", cmd_trash, "list the trash, or empty it")
    p.add_argument("--empty", action="store_true", help="delete trashed memories for good")
    p.add_argument("--older-than", type=float, metavar="DAYS", help="with --empty: only those trashed DAYS ago")

    p = add("reindex", cmd_reindex, "rebuild the index from the files (nothing is lost)")
    p.add_argument("--vectors", action="store_true", help="also embed every memory (needs the sidecar or palace[vector])")
    add("sync", cmd_sync, "pick up files added, edited, moved or removed by hand")
    add("stats", cmd_stats, "counts per status, room and type; unreadable files")
    add("config", cmd_config, "every MEMORY_* setting with its value and default")

    p = add("decay", cmd_decay, "archive memories that have faded under the threshold")
    p.add_argument("--dry-run", action="store_true", help="only say what would be archived")
    p.add_argument("--now", help="pretend it is this ISO time")

    for register in EXTRA_COMMANDS:
        register(sub, common)
    return parser


def _register_feature_commands() -> None:
    # Feature modules add their own sub-commands; imported here, not at the top,
    # so each stays optional and the core CLI starts fast.
    import importlib

    for module in ("palace.cli_experiences", "palace.cli_context"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


def main(argv: Sequence[str] | None = None) -> int:
    _register_feature_commands()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        overrides = {"workspace_dir": args.workspace} if getattr(args, "workspace", None) else {}
        args.settings = Settings.from_env(**overrides)
        return args.func(args)
    except MemoryNotFoundError as exc:
        print(f"palace: {exc}", file=sys.stderr)
        return EXIT_NOT_FOUND
    except InvalidInputError as exc:
        print(f"palace: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except ConfigError as exc:
        print(f"palace: configuration problem: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except PalaceError as exc:
        print(f"palace: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    # `python -m palace.cli`: run the importable module, whose EXTRA_COMMANDS the
    # feature modules register into (this file runs as a separate __main__ module)
    from palace.cli import main as _main

    sys.exit(_main())
