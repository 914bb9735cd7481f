"""What every ``palace`` command shares: the ``--workspace`` and ``--json`` options,
the ``Reply`` a command returns, the one place that renders it, exit codes, and
opening the manager.

A command never prints its result itself: it returns ``Reply(data, human)``;
``render`` prints ``data`` as JSON for agents (``--json``) or ``human()`` for
people, and ``notes`` on stderr in both cases. Errors are palace's own exceptions;
``PalaceGroup`` turns them into one line on stderr and the documented exit code.
"""

from __future__ import annotations

import difflib
import json
import os
import sqlite3
import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import click

from palace.errors import (ConfigError, EntityNotFoundError, InvalidInputError, MemoryNotFoundError, PalaceError,
                      ReviewItemNotFoundError)
from palace.settings import Settings

EXIT_OK, EXIT_NOT_FOUND, EXIT_INPUT, EXIT_CONFIG, EXIT_ERROR = 0, 1, 2, 3, 4


class NoPalaceError(ConfigError):
    """The workspace holds no palace (a mistyped --workspace, or `palace init` not run)."""


# --------------------------------------------------------------------------- shared state

@dataclass
class State:
    """Options given anywhere on the command line (``palace --json list`` and
    ``palace list --json`` mean the same); the last --workspace given wins."""

    workspace: str | None = None
    json: bool = False


def state() -> State:
    return click.get_current_context().find_root().ensure_object(State)


def _set_json(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.find_root().ensure_object(State).json = True


def _set_workspace(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    # From the command line only: MEMORY_WORKSPACE_DIR is read by Settings, which
    # then reports it as coming from the environment (`palace config`, the sidecar).
    source = ctx.get_parameter_source("workspace")
    if value and source is click.core.ParameterSource.COMMANDLINE:
        ctx.find_root().ensure_object(State).workspace = value


def shared_options(fn: Callable) -> Callable:
    """``--workspace/-w`` and ``--json``, on the group and on every command."""
    fn = click.option("--json", "json_output", is_flag=True, expose_value=False, callback=_set_json,
                      help="Print JSON (for agents and scripts).")(fn)
    return click.option("--workspace", "-w", "workspace", metavar="DIR", expose_value=False,
                        envvar="MEMORY_WORKSPACE_DIR", show_envvar=True, callback=_set_workspace,
                        help="Workspace folder (default: MEMORY_WORKSPACE_DIR, else the current "
                             "folder).")(fn)


def settings() -> Settings:
    workspace = state().workspace
    return Settings.from_env(workspace_dir=workspace) if workspace else Settings.from_env()


def database_url(config: Settings) -> str | None:
    """On Postgres, MEMORY_DATABASE_URL without its password (in the URL, its query or a
    ``key=value`` conninfo): which database, safe to print; None on the local backend."""
    if config.backend != "postgres" or not config.database_url:
        return None
    import re
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    url = config.database_url
    if "://" not in url:
        return re.sub(r"\bpassword\s*=\s*('(?:[^'\\]|\\.)*'|\S+)\s*", "", url).strip()
    parts = urlsplit(url)
    login, at, host = parts.netloc.rpartition("@")
    netloc = f"{login.split(':')[0]}@{host}" if at else host
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k != "password"])
    return urlunsplit(parts._replace(netloc=netloc, query=query))


# --------------------------------------------------------------------------- replies

@dataclass
class Reply:
    """What a command hands back: ``data`` (JSON-ready) for --json; ``human()``, the
    text for people, is only computed when no JSON was asked for."""

    data: Any
    human: Callable[[], str] | None = None
    notes: Sequence[str] = field(default_factory=tuple)  # stderr, in both modes
    exit_code: int = 0  # not 0: rendered all the same (a partial answer), then this code


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return str(value)


def render(reply: Reply, *, as_json: bool) -> None:
    """The one place output is written."""
    if as_json:
        sys.stdout.write(json.dumps(reply.data, ensure_ascii=False, indent=2, default=_json_default)
                         + "\n")
    elif reply.human is not None:
        text = reply.human()
        if text:
            sys.stdout.write(text.rstrip("\n") + "\n")
    for note in reply.notes:
        sys.stderr.write(note + "\n")
    sys.stdout.flush()


# --------------------------------------------------------------------------- errors

# Manager messages speak the Python API; on the command line name the command.
_API_TO_COMMAND = {"update()": "`palace update`", "delete()": "`palace delete`",
                   "restore()": "`palace restore`", "reindex()": "`palace reindex`",
                   "sync()": "`palace sync`", "run_decay()": "`palace decay`",
                   "store()": "`palace add`", "empty_trash()": "`palace trash --empty`",
                   "record_access()": "`palace get`"}


def cli_message(exc: BaseException) -> str:
    text = str(exc)
    for api, command in _API_TO_COMMAND.items():
        text = text.replace(api, command)
    return text


def exit_code_for(exc: PalaceError) -> int:
    if isinstance(exc, (MemoryNotFoundError, EntityNotFoundError, ReviewItemNotFoundError)):
        return EXIT_NOT_FOUND
    if isinstance(exc, InvalidInputError):
        return EXIT_INPUT
    if isinstance(exc, ConfigError):
        return EXIT_CONFIG
    return EXIT_ERROR


def report_error(exc: PalaceError) -> int:
    prefix = "configuration problem: " if isinstance(exc, ConfigError) and not isinstance(
        exc, NoPalaceError) else ""
    click.echo(f"palace: {prefix}{cli_message(exc)}", err=True)
    return exit_code_for(exc)


class PalaceGroup(click.Group):
    """Renders what a command returns and maps palace errors to exit codes."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)  # the order they were registered in, not alphabetical

    def invoke(self, ctx: click.Context) -> Any:
        try:
            result = super().invoke(ctx)
            if isinstance(result, Reply) and ctx.parent is None:
                render(result, as_json=state().json)
                if result.exit_code:
                    ctx.exit(result.exit_code)
                return None
            return result
        except PalaceError as exc:
            ctx.exit(report_error(exc))
        except BrokenPipeError:  # `palace list | head`: the reader left, nothing is wrong
            _silence_stdout()
            ctx.exit(EXIT_OK)
        except sqlite3.Error as exc:  # the index: full disk, read-only, damaged beyond the open check
            click.echo(f"palace: the index failed: {exc}. Nothing in the memory files was lost; "
                       "`palace doctor` checks the palace, and deleting memory/palace/.palace/"
                       "index.sqlite3 rebuilds the index from the files", err=True)
            ctx.exit(EXIT_ERROR)
        except OSError as exc:  # a folder palace cannot read or write: say which, no traceback
            where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
            click.echo(f"palace: {exc.strerror or exc}{where}", err=True)
            ctx.exit(EXIT_ERROR)


def _silence_stdout() -> None:
    # Python would report the broken pipe again when it flushes stdout at exit.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


# --------------------------------------------------------------------------- the manager

def check_workspace(workspace: Path, *, must_exist: bool) -> None:
    """A workspace must be a folder; unless creating one, it must hold a palace."""
    from palace.manager import MemoryPalaceManager

    root = MemoryPalaceManager.palace_root(workspace)
    for path in (workspace, workspace / root.relative_to(workspace).parts[0], root):
        if path.exists() and not path.is_dir():
            raise InvalidInputError(f"{path} is not a folder: give --workspace (or "
                                    "MEMORY_WORKSPACE_DIR) the folder that holds memory/palace/")
    if must_exist and not root.is_dir():
        raise NoPalaceError(f"no palace in {workspace} (no {root}): check --workspace / "
                            f"MEMORY_WORKSPACE_DIR, or create one with `palace init"
                            f"{' --workspace ' + str(workspace) if state().workspace else ''}`")


def open_manager(*, sync: bool = True, create: bool = False, config: Settings | None = None):
    """The manager for this command. Never loads torch: vectors come from the sidecar
    when MEMORY_VECTOR_SERVICE_URL is set, else search is keyword only."""
    from palace.manager.opening import open_manager as open_palace

    config = config or settings()
    # in Postgres mode the database is the palace: nothing is kept in the workspace
    check_workspace(config.workspace, must_exist=not create and config.backend == "local")
    pm = open_palace(config, sync=sync)
    for note in pm.notes:  # what opening repaired, or could not do (a read-only disk)
        click.echo(f"palace: {note}", err=True)
    return pm


# --------------------------------------------------------------------------- input

def stdin_is_terminal() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def read_stdin_text(what: str) -> str:
    """All of stdin as UTF-8; on a terminal, first say what is awaited (else it looks hung)."""
    if stdin_is_terminal():
        click.echo(f"palace: reading {what} from stdin; end with Ctrl-D "
                   "(or give it as an argument)", err=True)
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInputError("standard input is not UTF-8 text; binary data cannot be "
                                "stored") from None


# --------------------------------------------------------------------------- settings

def unknown_setting_names(environ: Mapping[str, str], known: Iterable[str]
                          ) -> list[tuple[str, str | None]]:
    """MEMORY_* names in the environment that are no setting: (name, closest known name)."""
    known = list(known)
    found = []
    for name in sorted(environ):
        if name.startswith("MEMORY_") and name not in known:
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
            found.append((name, close[0] if close else None))
    return found
