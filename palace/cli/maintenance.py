"""``palace reindex | sync | stats | config | decay``: keeping the palace in shape."""

from __future__ import annotations

import os
import textwrap
from datetime import datetime
from pathlib import Path

import click

from palace.cli import app, render
from palace.cli.app import Reply, open_manager, settings, shared_options, unknown_setting_names


def _unreadable(errors) -> list[str]:
    return [f"  unreadable: {path}: {reason}" for path, reason in errors]


@click.command("reindex")
@click.option("--vectors", is_flag=True,
              help="Also embed every memory (needs the sidecar or palace[vector]).")
@shared_options
def reindex(vectors: bool) -> Reply:
    """Rebuild the index from the files (nothing is lost)."""
    with open_manager(sync=False) as pm:
        report = pm.reindex(vectors=vectors)
        total = pm.stats()["total"]
    return Reply(report.to_dict() | {"memories": total}, lambda: f"reindexed {render.plural(total, 'memory', 'memories')}",
                 notes=_unreadable(report.errors))


@click.command("sync")
@shared_options
def sync() -> Reply:
    """Pick up files added, edited, moved or removed by hand."""
    with open_manager(sync=False) as pm:
        report = pm.sync(full=True)
    data = report.to_dict()
    return Reply(data, lambda: (f"added {data['added']}, updated {data['updated']}, moved "
                                f"{data['moved']}, removed {data['removed']}, unchanged "
                                f"{data['unchanged']}"),
                 notes=_unreadable(report.errors))


@click.command("stats")
@shared_options
def stats() -> Reply:
    """Counts per status, room and type; unreadable files."""
    with open_manager() as pm:
        data = pm.stats()
        data["problems"] = [{"path": p, "reason": r} for p, r in pm.problems()]
        if app.database_url(pm.settings):  # on Postgres no local folder holds the palace
            data["database_url"] = app.database_url(pm.settings)
    return Reply(data, lambda: _stats_text(data))


def _stats_text(data) -> str:
    lines = [
        f"database: {data['database_url']}" if "database_url" in data else f"palace:   {data['palace']}",
        f"memories: {data['total']}  " + "  ".join(f"{k}={v}" for k, v in data["by_status"].items())
        + f"  trash={data['trash']}",
        "rooms:    " + ", ".join(f"{k} ({v})" for k, v in data["by_location"].items()),
        "types:    " + ", ".join(f"{k} ({v})" for k, v in data["by_type"].items()),
        f"accesses: {data['accesses']}",
    ]
    if data["vectors"]:
        lines.append("vectors:  " + ", ".join(f"{k} ({v})" for k, v in data["vectors"].items()))
    lines += [f"unreadable: {p['path']}: {p['reason']}" for p in data["problems"]]
    return "\n".join(lines)


def timezone_in_use(name: str | None) -> str:
    """The zone timestamps and time words really use: MEMORY_TIMEZONE, else the machine's."""
    from palace.manager import resolve_timezone

    zone = resolve_timezone(name)
    key = getattr(zone, "key", None)
    if key:
        return key
    now = datetime.now(zone)
    return f"{now.tzname()} (UTC{now.strftime('%z')[:3]}:{now.strftime('%z')[3:]}, the machine's local zone)"


@click.command("config", short_help="Every MEMORY_* setting, its value and help.")
@shared_options
def config() -> Reply:
    """Every MEMORY_* setting: value, default, where it came from, what it does."""
    current = settings()
    rows = current.describe()
    for row in rows:
        if row["variable"] == "MEMORY_TIMEZONE":
            row["value"] = timezone_in_use(current.timezone)
    notes = []
    for name, close in unknown_setting_names(os.environ, [r["variable"] for r in rows]):
        guess = f" (did you mean {close}?)" if close else ""
        notes.append(f"palace: warning: {name} is set but is not a palace setting{guess}; "
                     "`palace config` lists them all")
    return Reply(rows, lambda: "\n".join(_setting_text(row) for row in rows), notes=notes)


_SOURCE_WORDS = {"env": "environment", "argument": "command line"}


def _setting_text(row: dict) -> str:
    """``MEMORY_X = value`` as one writes it, then where it came from and its help,
    wrapped under it: one setting a few lines, never a 400-column table."""
    if row["variable"] == "MEMORY_TIMEZONE" and row["source"] == "default":
        value = row["value"]  # the zone in use, not "(local zone)"
    else:
        value = row["as_env"]
    origin = "default" if row["source"] == "default" else (
        f"{_SOURCE_WORDS.get(row['source'], row['source'])}; default {row['default_as_env']}")
    return "\n".join([f"{row['variable']} = {value}",
                      *textwrap.wrap(f"[{origin}] {row['help']}", width=88, initial_indent="    ",
                                     subsequent_indent="    ", break_on_hyphens=False)])


@click.command("decay")
@click.option("--dry-run", is_flag=True, help="Only say what would be archived.")
@click.option("--now", help="Pretend it is this ISO time.")
@shared_options
def decay(dry_run: bool, now: str | None) -> Reply:
    """Archive memories that have faded under the threshold."""
    with open_manager() as pm:
        report = pm.run_decay(now=now, dry_run=dry_run)

    def text() -> str:
        verb = "would archive" if dry_run else "archived"
        lines = [f"checked {render.plural(report.checked, 'active memory', 'active memories')} at {report.now.isoformat()}: "
                 f"{verb} {len(report.archived)} under {report.threshold} ({report.pinned} pinned)"]
        lines += [f"  {memory_id}  score {report.scores.get(memory_id, 0):.3f}"
                  for memory_id in report.archived]
        return "\n".join(lines)

    return Reply(report.to_dict(), text)


@click.command("doctor", short_help="Find (and repair) drift, leftovers and damaged files.")
@click.option("--check", is_flag=True, help="Only report; exit 4 when something is wrong.")
@click.option("--move-unreadable", is_flag=True,
              help="Move files that cannot be parsed to .quarantine/ (they are listed either way).")
@shared_options
def doctor(check: bool, move_unreadable: bool) -> Reply:
    """Find what crashes, hand edits and time leave, and repair it: drift between files
    and index, orphaned vectors, leftover temp files, memories both live and in the
    trash, unreadable files, an oversized journal (on Postgres: orphaned vectors of
    every scope, the only one that applies). Exit 0 when all is (now) well."""
    with open_manager() as pm:
        report = pm.doctor(repair=not check, move_unreadable=move_unreadable)
        service = _hook_service(str(pm.settings.workspace.resolve()), repair=not check)
    data = report.to_dict() | {"hook_service": service}

    def text() -> str:
        lines = [f"{'repaired' if f.repaired else 'found'}  {f.kind}  {f.path or '-'}: {f.detail}"
                 for f in report.findings] or ["all well: nothing to repair"]
        if service["hooks_installed"] or service.get("running") or service.get("stale_socket"):
            lines.append(_describe_hook_service(service))  # nothing to say without the hooks
        if check and report.findings:
            lines.append("(--check: nothing was changed)")
        lines += [_DOCTOR_NEXT[need] for need in report.needs]
        return "\n".join(lines)

    return Reply(data, text, exit_code=0 if report.ok else app.EXIT_ERROR)


_DOCTOR_NEXT = {  # what to run or do for what `palace doctor` left (DoctorReport.needs)
    "repair": "run `palace doctor` to repair",
    "move_unreadable": "unreadable files stay where they are: fix each by hand (the reason is above),\n"
                       "  or `palace doctor --move-unreadable` moves them to memory/palace/.quarantine/",
    "by_hand": "the rest needs a person: each finding above says what it is",
}


def _hook_service(workspace: str, *, repair: bool) -> dict:
    """The Claude Code hooks' warm service of this workspace (palace.integrations.hook_service):
    running or not, and whether `palace install claude-code` put hooks on this workspace
    (``hooks_installed``); a socket no service holds is removed when repairing."""
    from palace.integrations import hook_client
    from palace.integrations.install import claude_code_hooks_installed

    status = hook_client.status(workspace) | {
        "hooks_installed": claude_code_hooks_installed(Path.home(), workspace)}
    if status.get("stale_socket") and repair:
        try:
            os.unlink(status["socket"])
            status["stale_socket_removed"] = True
        except OSError:
            pass
    return status


def _describe_hook_service(status: dict) -> str:
    if status.get("running"):
        return (f"Claude Code hook service: running (pid {status['pid']}, palace {status['version']}, "
                f"up {status['uptime_s']:.0f} s, {status['hooks_served']} hooks served, idle "
                f"{status['idle_s']:.0f} of {status['idle_limit_s']:.0f} s, socket {status['socket']})")
    stale = ("; removed the socket a dead one left" if status.get("stale_socket_removed")
             else "; a dead one left its socket (run `palace doctor` to remove it)" if status.get("stale_socket")
             else "")
    return f"Claude Code hook service: not running (the next hook starts it){stale}"


COMMANDS = (reindex, sync, stats, config, decay, doctor)
