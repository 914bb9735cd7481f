"""Click commands of the capture layer: ``capture``, ``ingest``, ``timeline``, ``theme``
and ``tasks``. ``COMMANDS`` is what the main ``palace`` group adds.

``palace capture`` is called by agent hooks, so it never exits with 2 (Claude Code
reads exit code 2 as "block this prompt"): 0 when events were taken, 1 otherwise,
the reason on stderr. Messages never quote captured text (it may hold a secret).
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import click

from ..errors import ConfigError, InvalidInputError, MemoryNotFoundError, PalaceError

EXIT_OK, EXIT_NOT_FOUND, EXIT_INPUT, EXIT_CONFIG, EXIT_ERROR = 0, 1, 2, 3, 4

workspace_option = click.option(
    "--workspace", "-w", envvar="MEMORY_WORKSPACE_DIR", type=click.Path(file_okay=False),
    default=None, help="Workspace folder (default: MEMORY_WORKSPACE_DIR or the current folder).")
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


@contextmanager
def open_manager(workspace: str | None) -> Iterator[Any]:
    from ..embedders import make_embedder
    from ..manager import MemoryPalaceManager
    from ..settings import Settings

    settings = Settings.from_env(**({"workspace_dir": workspace} if workspace else {}))
    embedder = make_embedder(settings, allow_inprocess=False)
    pm = MemoryPalaceManager(settings.workspace_dir, settings=settings, embedder=embedder)
    try:
        yield pm
    finally:
        pm.close()


def _fail(exc: Exception) -> None:
    code = (EXIT_NOT_FOUND if isinstance(exc, MemoryNotFoundError) else
            EXIT_INPUT if isinstance(exc, InvalidInputError) else
            EXIT_CONFIG if isinstance(exc, ConfigError) else EXIT_ERROR)
    click.echo(f"palace: {exc}", err=True)
    sys.exit(code)


def _emit(data: Any, as_json: bool, text: str) -> None:
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    else:
        click.echo(text)


# --------------------------------------------------------------------------- capture

@click.command("capture")
@click.option("--source", type=click.Choice(["claude-code", "openclaw", "palace", "jsonl"]),
              default=None, help="What the input is; detected from each payload when omitted.")
@click.option("--file", "file_", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Read events from this file instead of stdin.")
@workspace_option
@json_option
def capture_command(source: str | None, file_: str | None, workspace: str | None, as_json: bool) -> None:
    """Capture agent events: one hook payload (JSON) or JSON lines, from stdin or --file.

    Accepts palace events, Claude Code hook payloads, OpenClaw hook calls
    ({hook, event, ctx}) and {role, content} lines.
    """
    from .service import capture_payloads

    raw = Path(file_).read_bytes() if file_ else sys.stdin.buffer.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        click.echo("palace: capture input is not UTF-8 text", err=True)
        sys.exit(1)
    try:
        with open_manager(workspace) as pm:
            result = capture_payloads(pm, source, _payloads(text))
    except PalaceError as exc:
        click.echo(f"palace: capture failed: {exc}", err=True)
        sys.exit(1)
    for error in result["errors"][:5]:
        click.echo(f"palace: capture: item {error['index']}: {error['message']}", err=True)
    _emit(result, as_json, f"accepted {result['accepted']}, stored {result['stored']}, "
                           f"skipped {result['skipped']}")
    sys.exit(0 if result["accepted"] or not result["errors"] else 1)


def _payloads(text: str) -> list[Any]:
    from .events import is_bad_line, iter_json_lines

    items: list[Any] = []
    for number, value in iter_json_lines(text):
        items.append(ValueError(f"line {number} is not JSON") if is_bad_line(value) else value)
    return items


# --------------------------------------------------------------------------- ingest

@click.command("ingest")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--claude-code", "claude_code", is_flag=True,
              help="Import every local Claude Code transcript (~/.claude/projects).")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: when stderr is a terminal).")
@workspace_option
@json_option
def ingest_command(paths: tuple[str, ...], claude_code: bool, progress: bool | None,
                   workspace: str | None, as_json: bool) -> None:
    """Import transcripts (files or folders): Claude Code, OpenClaw/pi, Kimi wire.jsonl,
    {role, content} lines. Idempotent: importing again adds only what is new."""
    from .pipeline import Capturer
    from .transcripts import claude_code_dir, find_transcripts

    try:
        targets = list(paths)
        if claude_code:
            folder = claude_code_dir()
            if not folder.is_dir():
                raise InvalidInputError(f"no Claude Code transcripts at {folder} (set CLAUDE_CONFIG_DIR "
                                        "if they live elsewhere)")
            targets.append(str(folder))
        if not targets:
            raise InvalidInputError("give transcript files or folders, or --claude-code")
        files = find_transcripts(targets)
        total = sum(f.stat().st_size for f in files)
        show = sys.stderr.isatty() if progress is None else progress
        with open_manager(workspace) as pm:
            capturer = Capturer(pm)
            with _progress(total, f"ingest {len(files)} files", show) as bar:
                for path in files:
                    try:
                        capturer.ingest_file(path, progress=bar.update)
                    except InvalidInputError as exc:
                        capturer.report.errors.append({"path": str(path), "error": "invalid_input",
                                                       "message": str(exc)})
            report = capturer.report.to_dict()
    except PalaceError as exc:
        _fail(exc)
        return
    sessions = report["turns"]
    lines = [f"{len(files)} files, {len(sessions)} sessions: {report['created']} memories created, "
             f"{report['updated']} updated, {report['unchanged']} unchanged, "
             f"{report['trivial']} trivial turns skipped, {report['redacted']} secrets redacted"]
    for f in report["files"]:
        skipped = sum(f["skipped"].values())
        note = " (last line incomplete: left for next time)" if f["truncated_tail"] else ""
        lines.append(f"  {f['path']}: {f['format']}, {f['records']} records, {skipped} skipped{note}")
    for error in report["errors"]:
        lines.append(f"  error: {error['message']}")
    _emit(report, as_json, "\n".join(lines))
    if report["errors"] and not report["files"]:
        sys.exit(EXIT_INPUT)


@contextmanager
def _progress(total: int, label: str, show: bool) -> Iterator[Any]:
    """click's bar on a terminal; elsewhere (a log, a pipe) a line per 10 %."""
    if show and sys.stderr.isatty():
        with click.progressbar(length=total, label=label, file=sys.stderr, show_pos=False,
                               show_percent=True, show_eta=True) as bar:
            yield bar
        return
    yield _LineProgress(total, label, show)


class _LineProgress:
    def __init__(self, total: int, label: str, show: bool):
        self.total, self.label, self.show, self.done, self.next_mark = max(total, 1), label, show, 0, 0
        self.update(0)

    def update(self, n: int) -> None:
        self.done += n
        percent = min(100, self.done * 100 // self.total)
        if self.show and percent >= self.next_mark:
            click.echo(f"{self.label}: {percent}% ({self.done / 1e6:.1f} of {self.total / 1e6:.1f} MB)",
                       err=True)
            self.next_mark = (percent // 10 + 1) * 10


# --------------------------------------------------------------------------- timeline

@click.command("timeline")
@click.argument("memory_id")
@click.option("--before", default=3, show_default=True, help="Observations before it.")
@click.option("--after", default=3, show_default=True, help="Observations after it.")
@workspace_option
@json_option
def timeline_command(memory_id: str, before: int, after: int, workspace: str | None, as_json: bool) -> None:
    """The observations around one (or a session's first ones), in session order."""
    from .recall import timeline

    try:
        with open_manager(workspace) as pm:
            data = timeline(pm, memory_id, before=before, after=after)
    except PalaceError as exc:
        _fail(exc)
        return
    lines = [f"session {data['session_id']} ({data['total']} observations)"]
    for item in data["items"]:
        mark = "▶" if item.get("anchor") else " "
        lines.append(f"{mark} #{item.get('turn')} {item['date']} {item['id']}  {item['title']}")
    _emit(data, as_json, "\n".join(lines))


# --------------------------------------------------------------------------- themes

@click.group("theme")
def theme_group() -> None:
    """Themes: named threads of memories across sessions."""


@theme_group.command("tag")
@click.argument("name")
@click.argument("ids", nargs=-1)
@click.option("--query", "-q", default=None, help="Tag the best hits of this search instead.")
@click.option("--top-k", default=10, show_default=True, help="Hits to tag with --query.")
@workspace_option
@json_option
def theme_tag(name: str, ids: tuple[str, ...], query: str | None, top_k: int,
              workspace: str | None, as_json: bool) -> None:
    """Add memories to a theme (created on first use)."""
    from .themes import tag

    try:
        with open_manager(workspace) as pm:
            data = tag(pm, name, ids, query=query, top_k=top_k)
    except PalaceError as exc:
        _fail(exc)
        return
    _emit(data, as_json, f"theme {data['theme']!r}: {len(data['added'])} added, {data['total']} in all")


@theme_group.command("trace")
@click.argument("name")
@workspace_option
@json_option
def theme_trace(name: str, workspace: str | None, as_json: bool) -> None:
    """The theme's memories across sessions, oldest first."""
    from .themes import trace

    try:
        with open_manager(workspace) as pm:
            data = trace(pm, name)
    except PalaceError as exc:
        _fail(exc)
        return
    lines = [f"theme {data['theme']!r}: {len(data['items'])} memories in {data['sessions']} sessions"]
    lines += [f"  {i['date']} {i['id']} [{i['type']}] {i['title']}" for i in data["items"]]
    if data["missing"]:
        lines.append(f"  (gone: {', '.join(data['missing'])})")
    _emit(data, as_json, "\n".join(lines))


@theme_group.command("list")
@workspace_option
@json_option
def theme_list(workspace: str | None, as_json: bool) -> None:
    """Every theme with how many memories it holds."""
    from .themes import list_themes

    try:
        with open_manager(workspace) as pm:
            data = list_themes(pm)
    except PalaceError as exc:
        _fail(exc)
        return
    text = "\n".join(f"{t['theme']}  ({t['count']})  {t['id']}" for t in data) or "(no themes)"
    _emit({"themes": data}, as_json, text)


# --------------------------------------------------------------------------- tasks

@click.group("tasks", invoke_without_command=True)
@click.option("--project", default=None, help="Only this project's tasks.")
@workspace_option
@json_option
@click.pass_context
def tasks_group(ctx: click.Context, project: str | None, workspace: str | None, as_json: bool) -> None:
    """Open tasks left by sessions (doing, blocked, to do)."""
    if ctx.invoked_subcommand is not None:
        return
    from .tasks import open_tasks, task_state

    try:
        with open_manager(workspace) as pm:
            tasks = [{"id": m.id, "state": task_state(m), "task": m.summary or m.content.split("\n")[0],
                      "project": (m.extra or {}).get("project"),
                      "created": m.created_at.date().isoformat() if m.created_at else None}
                     for m in open_tasks(pm, project=project)]
    except PalaceError as exc:
        _fail(exc)
        return
    text = "\n".join(f"[{t['state']}] {t['id']}  {t['task']}  ({t['project']})" for t in tasks) \
        or "(no open tasks)"
    _emit({"tasks": tasks}, as_json, text)


@tasks_group.command("set")
@click.argument("memory_id")
@click.argument("state", type=click.Choice(["todo", "doing", "blocked", "done"]))
@workspace_option
@json_option
def tasks_set(memory_id: str, state: str, workspace: str | None, as_json: bool) -> None:
    """Move a task to another state (done closes it)."""
    from .tasks import set_task_state

    try:
        with open_manager(workspace) as pm:
            memory = set_task_state(pm, memory_id, state)
    except PalaceError as exc:
        _fail(exc)
        return
    _emit({"id": memory.id, "state": state}, as_json, f"{memory.id}: {state}")


COMMANDS = [capture_command, ingest_command, timeline_command, theme_group, tasks_group]
