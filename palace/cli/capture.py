"""``palace capture``, ``ingest``, ``timeline``, ``theme`` and ``tasks``: automatic
capture (palace/capture/, docs/capture.md) over the group's --workspace/--json.

``palace capture`` is what agent hooks call, so it never exits with 2 (Claude Code
reads exit code 2 as "block this prompt"): 0 when events were taken, 1 otherwise,
the reason on stderr; a bad flag is exit 1 too. Messages never quote captured text
(it may hold a secret). ``python -m palace`` carries the same commands.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import click

from palace.errors import InvalidInputError, PalaceError
from palace.cli.app import EXIT_OK, PalaceGroup, Reply, open_manager, render, shared_options, state
from palace.cli.render import plural

EXIT_NOT_TAKEN = 1  # `palace capture`'s one failure code: never 2, which blocks a Claude Code prompt
CAPTURE_SOURCES = ("claude-code", "openclaw", "palace", "jsonl")


class HookUsageError(click.UsageError):
    exit_code = EXIT_NOT_TAKEN


class HookCommand(click.Command):
    """A command hooks call: a usage error (bad flag) exits 1, not click's 2."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            raise HookUsageError(exc.message, exc.ctx) from None


# --------------------------------------------------------------------------- capture

@click.command("capture", cls=HookCommand, short_help="Capture agent events (hook payloads, JSON lines).")
@click.option("--source", default=None, metavar="|".join(CAPTURE_SOURCES),
              help="What the input is; detected from each payload when omitted.")
@click.option("--file", "file_", type=click.Path(dir_okay=False), default=None,
              help="Read events from this file instead of stdin.")
@shared_options
def capture(source: str | None, file_: str | None) -> None:
    """Capture agent events: one hook payload (JSON) or JSON lines, from stdin or --file.

    Accepts palace events, Claude Code hook payloads, OpenClaw hook calls
    ({hook, context, …} or {hook, event, ctx}) and {role, content} lines. Creates
    the palace on first use.
    """
    from palace.capture.service import capture_payloads

    code = EXIT_OK
    try:
        if source is not None and source not in CAPTURE_SOURCES:
            raise InvalidInputError(f"--source must be one of {', '.join(CAPTURE_SOURCES)}")
        try:
            raw = Path(file_).read_bytes() if file_ else sys.stdin.buffer.read()
        except OSError as exc:
            raise InvalidInputError(f"cannot read {file_}: {exc.strerror or exc}") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInputError("capture input is not UTF-8 text") from None
        with open_manager(create=True) as pm:
            result = capture_payloads(pm, source, _payloads(text))
    except PalaceError as exc:
        click.echo(f"palace: capture failed: {exc}", err=True)
        click.get_current_context().exit(EXIT_NOT_TAKEN)
    notes = [f"palace: capture: item {e['index']}: {e['message']}" for e in result["errors"][:5]]
    if result["errors"] and not result["accepted"]:
        code = EXIT_NOT_TAKEN
    render(Reply(result, lambda: f"accepted {result['accepted']}, stored {result['stored']}, "
                                 f"skipped {result['skipped']}", notes), as_json=state().json)
    click.get_current_context().exit(code)


def _payloads(text: str) -> list[Any]:
    """Each JSON line (or the one JSON document); a line that is not JSON becomes an
    error item, reported by its number, and the rest still go in."""
    from palace.capture.events import is_bad_line, iter_json_lines

    items: list[Any] = []
    for number, value in iter_json_lines(text):
        items.append(ValueError(f"line {number} is not JSON") if is_bad_line(value) else value)
    return items


# --------------------------------------------------------------------------- ingest

@click.command("ingest", short_help="Import agent transcripts (Claude Code, OpenClaw, Kimi, …).")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--claude-code", "claude_code", is_flag=True,
              help="Import every local Claude Code transcript (~/.claude/projects).")
@click.option("--progress/--no-progress", default=None,
              help="Progress on stderr (default: when stderr is a terminal).")
@shared_options
def ingest(paths: tuple[str, ...], claude_code: bool, progress: bool | None) -> Reply:
    """Import transcripts (files or folders): Claude Code, OpenClaw/pi, Kimi wire.jsonl,
    {role, content} lines. Idempotent: importing again adds only what is new."""
    from palace.capture.pipeline import Capturer
    from palace.capture.transcripts import claude_code_dir, find_transcripts

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
    with open_manager(create=True) as pm:
        capturer = Capturer(pm)
        with _progress(total, f"ingest {plural(len(files), 'file')}", show) as bar:
            for path in files:
                try:
                    capturer.ingest_file(path, progress=bar.update)
                except InvalidInputError as exc:
                    capturer.report.errors.append({"path": str(path), "error": "invalid_input",
                                                   "message": str(exc)})
        report = capturer.report.to_dict()
    if report["errors"] and not report["files"]:
        raise InvalidInputError("; ".join(e["message"] for e in report["errors"]))

    def human() -> str:
        lines = [f"{plural(len(files), 'file')}, {plural(len(report['turns']), 'session')}: "
                 f"{plural(report['created'], 'memory', 'memories')} created, {report['updated']} updated, "
                 f"{report['unchanged']} unchanged, {plural(report['trivial'], 'trivial turn')} skipped, "
                 f"{plural(report['redacted'], 'secret')} redacted"]
        for f in report["files"]:
            note = " (last line incomplete: left for next time)" if f["truncated_tail"] else ""
            lines.append(f"  {f['path']}: {f['format']}, {f['records']} records, "
                         f"{sum(f['skipped'].values())} skipped{note}")
        lines += [f"  error: {e['message']}" for e in report["errors"]]
        return "\n".join(lines)

    return Reply(report, human)


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

@click.command("timeline", short_help="The observations around one, in session order.")
@click.argument("memory_id")
@click.option("--before", default=3, show_default=True, help="Observations before it.")
@click.option("--after", default=3, show_default=True, help="Observations after it.")
@shared_options
def timeline(memory_id: str, before: int, after: int) -> Reply:
    """The observations around one (or a session's first ones), in session order."""
    from palace.capture.recall import timeline as session_timeline

    with open_manager() as pm:
        data = session_timeline(pm, memory_id, before=before, after=after)

    def human() -> str:
        lines = [f"session {data['session_id']} ({data['total']} observations)"]
        for item in data["items"]:
            mark = "▶" if item.get("anchor") else " "
            lines.append(f"{mark} #{item.get('turn')} {item['date']} {item['id']}  {item['title']}")
        return "\n".join(lines)

    return Reply(data, human)


# --------------------------------------------------------------------------- themes

@click.group("theme", cls=PalaceGroup, short_help="Themes: threads of memories across sessions.")
@shared_options
def theme() -> None:
    """Themes: named threads of memories across sessions."""


@theme.command("tag")
@click.argument("name")
@click.argument("ids", nargs=-1)
@click.option("--query", "-q", default=None, help="Tag the best hits of this search instead.")
@click.option("--top-k", default=10, show_default=True, help="Hits to tag with --query.")
@shared_options
def theme_tag(name: str, ids: tuple[str, ...], query: str | None, top_k: int) -> Reply:
    """Add memories to a theme (created on first use)."""
    from palace.capture.themes import tag

    with open_manager() as pm:
        data = tag(pm, name, ids, query=query, top_k=top_k)
    return Reply(data, lambda: f"theme {data['theme']!r}: {len(data['added'])} added, "
                               f"{data['total']} in all")


@theme.command("trace")
@click.argument("name")
@shared_options
def theme_trace(name: str) -> Reply:
    """The theme's memories across sessions, oldest first."""
    from palace.capture.themes import trace

    with open_manager() as pm:
        data = trace(pm, name)

    def human() -> str:
        lines = [f"theme {data['theme']!r}: {plural(len(data['items']), 'memory', 'memories')} in "
                 f"{plural(data['sessions'], 'session')}"]
        lines += [f"  {i['date']} {i['id']} [{i['type']}] {i['title']}" for i in data["items"]]
        if data["missing"]:
            lines.append(f"  (gone: {', '.join(data['missing'])})")
        return "\n".join(lines)

    return Reply(data, human)


@theme.command("list")
@shared_options
def theme_list() -> Reply:
    """Every theme with how many memories it holds."""
    from palace.capture.themes import list_themes

    with open_manager() as pm:
        data = list_themes(pm)
    return Reply({"themes": data}, lambda: "\n".join(f"{t['theme']}  ({t['count']})  {t['id']}"
                                                     for t in data) or "(no themes)")


# `palace tasks` is `palace task` under its older name (palace/cli/tasks.py)

from palace.cli.tasks import tasks  # noqa: E402  (listed with capture's commands, as before)

COMMANDS = (capture, ingest, timeline, theme, tasks)
