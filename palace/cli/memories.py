"""``palace init | add | get | list | search | update | delete | restore | trash``."""

from __future__ import annotations

from typing import Any

import click

from palace.errors import InvalidInputError, MemoryNotFoundError
from palace.responses import search_response
from palace.cli import render
from palace.cli.app import EXIT_NOT_FOUND, Reply, open_manager, read_stdin_text, shared_options, stdin_is_terminal

TAG = click.option("--tag", "-t", "tags", multiple=True, help="A tag (repeatable).")
NOW_HELP = "Pretend it is this ISO time (for time words and decay)."


def _tags(values: tuple[str, ...]) -> list[str] | None:
    return list(values) if values else None


@click.command("init")
@shared_options
def init() -> Reply:
    """Create the palace folders in the workspace."""
    with open_manager(create=True) as pm:
        stats = pm.stats()
        where = _database(pm) or stats["palace"]
    data = {"workspace": stats["workspace"], "palace": stats["palace"], "memories": stats["total"]}
    if _database(pm):
        data["database"] = where
    return Reply(data, lambda: f"palace ready at {where} ({render.plural(data['memories'], 'memory', 'memories')})")


def _database(pm) -> str | None:
    """On the Postgres backend, the database (its URL without a password): the store of
    record, where a local path would name a file that does not exist."""
    if pm.settings.backend != "postgres" or not pm.settings.database_url:
        return None
    from urllib.parse import urlsplit

    url = urlsplit(pm.settings.database_url)
    host = url.hostname or "localhost"
    return f"database {url.path.lstrip('/') or '?'} on {host}{f':{url.port}' if url.port else ''}"


def _where(pm, memory) -> str:
    return _database(pm) or str(memory.path)


@click.command("add", short_help="Store a memory (text as argument or on stdin).")
@click.argument("content", required=False)
@TAG
@click.option("--importance", "-i", type=float, default=0.5, show_default=True,
              help="0..1 (1.0 = pinned).")
@click.option("--location", "-l", default="general", show_default=True,
              help="Room, e.g. projects/palace.")
@click.option("--type", "memory_type", default="fact", show_default=True,
              help="fact, decision, preference, event, experience…")
@click.option("--source", default="cli", show_default=True)
@click.option("--summary")
@click.option("--created-at", help="ISO time, e.g. 2026-03-18T10:00:00+08:00.")
@click.option("--id", "memory_id", help="Choose the id (letters, digits, . _ -).")
@click.option("--pin", is_flag=True, help="Never decays.")
@shared_options
def add(content: str | None, tags, importance, location, memory_type, source, summary, created_at,
        memory_id, pin) -> Reply:
    """Store a memory (CONTENT as argument, or '-' / nothing: read from stdin)."""
    text = read_stdin_text("memory text") if content in (None, "-") else content
    with open_manager(create=True) as pm:
        memory = pm.store(text, tags=tags, importance=importance, location=location,
                          type=memory_type, source=source, summary=summary, created_at=created_at,
                          id=memory_id, pinned=pin)
        where = _where(pm, memory)
    if memory.duplicate:
        return Reply(memory.to_dict(), lambda: f"already stored as {memory.id} in {memory.location} "
                                               f"({where}); tags merged, no copy made")
    return Reply(memory.to_dict(), lambda: f"stored {memory.id} in {memory.location} ({where})")


@click.command("get")
@click.argument("memory_ids", metavar="ID...", nargs=-1, required=True)
@shared_options
def get(memory_ids: tuple[str, ...]) -> Reply:
    """Show one memory, or several. Each id not found is said on stderr and the exit
    code is then 1, the found ones still shown (--json: {memories, missing}; one id
    found: the memory itself)."""
    from palace.capture.recall import get_many

    with open_manager() as pm:
        found = get_many(pm, memory_ids)
        database = _database(pm)
        trashed = {m.id for m in pm.list_trash()} if found["missing"] else set()
    memories, missing = found["memories"], found["missing"]
    notes = [f"palace: {_not_found(memory_id, memory_id in trashed)}" for memory_id in missing]
    code = EXIT_NOT_FOUND if missing else 0
    if len(memory_ids) == 1 and memories:
        return Reply(memories[0].to_dict(), lambda: render.memory_page(memories[0], database))
    data = {"memories": [m.to_dict() for m in memories], "missing": missing}
    return Reply(data, lambda: "\n\n---\n\n".join(render.memory_page(m, database) for m in memories),
                 notes, exit_code=code)


def _not_found(memory_id: str, in_trash: bool) -> MemoryNotFoundError:
    return MemoryNotFoundError(memory_id, "" if in_trash else "`palace list` and `palace search` show ids",
                               in_trash=in_trash)


@click.command("list")
@click.option("--location", "-l", help="Only this room (and rooms inside it).")
@TAG
@click.option("--type", "memory_type", help="Only this type.")
@click.option("--status", default="active", show_default=True,
              type=click.Choice(["active", "archived", "deleted", "all"]))
@click.option("--limit", "-n", type=int, default=50, show_default=True)
@shared_options
def list_(location, tags, memory_type, status, limit) -> Reply:
    """List memories, newest first."""
    with open_manager() as pm:
        memories = pm.list(location=location, tags=_tags(tags), status=status, type=memory_type,
                           limit=limit)
    return Reply([m.to_dict() for m in memories], lambda: render.memory_rows(memories))


@click.command("search", short_help="Search memories (time words understood).")
@click.argument("query")
@click.option("--top-k", "-k", type=int, default=10, show_default=True)
@TAG
@click.option("--location", "-l")
@click.option("--type", "memory_type")
@click.option("--include-archived", is_flag=True)
@click.option("--now", help=NOW_HELP)
@click.option("--start", help="Only memories created at or after this ISO time.")
@click.option("--end", help="Only memories created before this ISO time.")
@click.option("--explain", is_flag=True,
              help="Every number behind each score (retrievers, terms, weights): under the "
                   "table, or in each result with --json.")
@click.option("--compact", is_flag=True,
              help="Compact hits (id, title, date, type, room; ~50 tokens each): open the ones "
                   "worth reading with `palace get ID…`.")
@click.option("--strong-only", is_flag=True,
              help="Only strong results (evidence for the query, what injection uses); by "
                   "default weak ones follow them, marked weak.")
@click.option("--include-weak", is_flag=True, hidden=True,
              help="Kept for old scripts: weak results are shown by default now.")
@shared_options
def search(query, top_k, tags, location, memory_type, include_archived, now, start, end,
           explain, compact, strong_only, include_weak) -> Reply:
    """Search memories (time words like '上周' or 'last Friday' are understood).

    --json prints the object MCP's search_memory returns: {count, time_range, notes,
    results}; with --compact each result is {id, title, date, type, location, score}.
    """
    if compact:
        if explain:
            raise InvalidInputError("--compact and --explain do not go together: --explain "
                                    "shows every number behind a full hit")
        from palace.capture.recall import compact_search

        with open_manager() as pm:
            hits = compact_search(pm, query, top_k=top_k, tags=_tags(tags), location=location,
                                  type=memory_type, include_archived=include_archived, now=now,
                                  start=start, end=end)
        return Reply(hits, lambda: _compact_text(hits))
    with open_manager() as pm:
        results = pm.search(query, top_k=top_k, now=now, tags=_tags(tags), location=location,
                            type=memory_type, include_archived=include_archived, start=start,
                            end=end, include_weak=not strong_only)
    data = search_response(results, explain=explain)
    return Reply(data, lambda: _search_text(data, results, explain=explain))


def _compact_text(hits: dict[str, Any]) -> str:
    lines = [f"note: {note}" for note in hits["notes"]]
    if not hits["results"]:
        return "\n".join([*lines, "(nothing found)"])
    lines.append(render.table(["#", "score", "id", "date", "type", "title"],
                              [[i + 1, f"{h['score']:.3f}", h["id"], h["date"] or "", h["type"], h["title"]]
                               for i, h in enumerate(hits["results"])]))
    return "\n".join(lines)


def _search_text(data: dict[str, Any], results, *, explain: bool = False) -> str:
    lines = []
    if data["time_range"]:
        tr = data["time_range"]
        lines.append(f"time: {tr.get('text') or 'range'} → {render.period(tr['start'], tr['end'])}")
    lines += [f"note: {note}" for note in data["notes"]]
    if not results:
        lines.append("(nothing found)")
        return "\n".join(lines)
    lines.append(render.table(
        ["#", "score", "id", "created", "room", "content", "why"],
        [[i + 1, f"{r.score:.3f}", r.memory.id, render.date(r.memory.created_at), r.memory.location,
          render.short(r.memory.content, 40), r.explanation.summary_line()]
         for i, r in enumerate(results)]))
    if explain:
        for i, r in enumerate(results, 1):
            lines += ["", f"{i}. {r.memory.id}", *(f"   {line}" for line in r.explanation.detail_lines(r.score))]
    return "\n".join(lines)


@click.command("update")
@click.argument("memory_id", metavar="ID")
@click.option("--content", help="New content ('-': read from stdin).")
@click.option("--summary")
@click.option("--tag", "-t", "tags", multiple=True, help="Replace the tags (repeatable).")
@click.option("--importance", "-i", type=float)
@click.option("--location", "-l")
@click.option("--type", "memory_type")
@click.option("--source")
@click.option("--status", type=click.Choice(["active", "archived"]))
@click.option("--pin", is_flag=True, help="Never decays.")
@click.option("--unpin", is_flag=True)
@shared_options
def update(memory_id, content, summary, tags, importance, location, memory_type, source, status,
           pin, unpin) -> Reply:
    """Change a memory."""
    fields: dict[str, Any] = {}
    if content is not None:
        fields["content"] = read_stdin_text("the new content") if content == "-" else content
    for name, value in (("summary", summary), ("importance", importance), ("location", location),
                        ("type", memory_type), ("source", source), ("status", status)):
        if value is not None:
            fields[name] = value
    if tags:
        fields["tags"] = list(tags)
    if pin and unpin:
        raise InvalidInputError("give --pin or --unpin, not both")
    if pin or unpin:
        fields["pinned"] = pin
    if not fields:
        raise InvalidInputError("nothing to update: give --content, --tag, --importance, "
                                "--location, --type, --source, --summary, --status, --pin or --unpin")
    with open_manager() as pm:
        memory = pm.update(memory_id, **fields)
    return Reply(memory.to_dict(), lambda: f"updated {memory.id}")


@click.command("delete")
@click.argument("memory_ids", metavar="ID...", nargs=-1, required=True)
@shared_options
def delete(memory_ids: tuple[str, ...]) -> Reply:
    """Move memories to the trash. Several ids: each found one is moved (`palace
    restore ID` brings it back), each missing one is said on stderr, and the exit code
    is then 1 (--json: {deleted, missing})."""
    with open_manager() as pm:
        done = pm.delete_many(memory_ids) if len(memory_ids) > 1 else {"deleted": [pm.delete(memory_ids[0])]}
    deleted = [{"deleted": m.id, "trash": str(m.path)} for m in done["deleted"]]

    def text() -> str:
        return "\n".join(f"moved {d['deleted']} to the trash (`palace restore {d['deleted']}` brings it back)"
                         for d in deleted)

    if len(memory_ids) == 1:
        return Reply(deleted[0], text)
    notes = [f"palace: {error}" for error in done["errors"]]
    return Reply({"deleted": deleted, "missing": done["missing"]}, text, notes,
                 exit_code=EXIT_NOT_FOUND if done["missing"] else 0)


@click.command("restore")
@click.argument("memory_id", metavar="ID")
@shared_options
def restore(memory_id: str) -> Reply:
    """Bring a memory back from the trash or from the archive."""
    with open_manager() as pm:
        memory = pm.restore(memory_id)
    return Reply(memory.to_dict(), lambda: f"restored {memory.id} to {memory.location}")


@click.command("trash")
@click.option("--empty", is_flag=True, help="Delete trashed memories for good (asks first on a terminal).")
@click.option("--older-than", type=float, metavar="DAYS",
              help="With --empty: only those trashed DAYS ago or earlier.")
@click.option("--yes", "-y", is_flag=True, help="With --empty: do not ask (for scripts).")
@shared_options
def trash(empty: bool, older_than: float | None, yes: bool) -> Reply:
    """List the trash, or empty it (--empty; without a terminal to ask, give --yes)."""
    if older_than is not None and not empty:
        raise InvalidInputError("--older-than only goes with --empty")
    if yes and not empty:
        raise InvalidInputError("--yes only goes with --empty")
    with open_manager() as pm:
        if empty:
            in_trash = len(pm.list_trash())
            if in_trash and not yes and not _confirm_empty(in_trash, older_than):
                return Reply({"removed": []}, lambda: "nothing deleted: the trash is as it was")
            removed = pm.empty_trash(older_than_days=older_than)
            gone = render.plural(len(removed), "memory", "memories")
            return Reply({"removed": removed}, lambda: f"removed {gone} from the trash for good")
        memories = pm.list_trash()
    return Reply([m.to_dict() for m in memories], lambda: render.memory_rows(memories))


def _confirm_empty(in_trash: int, older_than: float | None) -> bool:
    """Ask the person at the terminal; with no one to ask, refuse rather than wait."""
    which = f"trashed {older_than:g} days ago or earlier" if older_than is not None else "in the trash"
    if not stdin_is_terminal():
        raise InvalidInputError(f"`palace trash --empty` deletes the memories {which} for good "
                                "and there is no terminal to confirm it on: add --yes")
    return click.confirm(f"Delete the memories {which} for good ({render.plural(in_trash, 'memory', 'memories')} "
                         "in the trash)?", default=False, err=True)


COMMANDS = (init, add, get, list_, search, update, delete, restore, trash)
