"""The ``palace`` command (click): a thin adapter over MemoryPalaceManager.

Every command takes ``--workspace/-w`` (or MEMORY_WORKSPACE_DIR) and ``--json``,
before or after the command name. Exit codes: 0 ok, 1 not found, 2 bad input
(also a bad flag, or a workspace that is not a folder), 3 configuration (a bad
MEMORY_* value; a workspace with no palace: only ``init``, ``add``, ``capture``,
``ingest`` and ``import`` create one),
4 other palace error. Errors go to stderr, one line that says how to fix it.
Never imports torch: vectors come from the sidecar when MEMORY_VECTOR_SERVICE_URL
is set, otherwise search is keyword-only.

Adding a command module (``palace capture``, ``palace serve``, …):

1. write ``palace/cli/<feature>.py`` with click commands decorated with
   ``@shared_options`` (from ``.app``) that *return* a ``Reply(data, human)``
   instead of printing; open the palace with ``open_manager()`` and use only the
   manager's public API; raise palace errors (``palace.errors``) for bad input;
2. end the module with ``COMMANDS = (cmd, …)``;
3. add the module to ``COMMAND_MODULES`` below, in the order ``palace --help``
   should list them. That is the one place commands are registered.
"""

from __future__ import annotations

from typing import Sequence

import click

from palace.integrations import install
from palace.cli import (agents, backends, capture, context, experiences, graph, maintenance, memories, postgres, servers,
               tasks, viewer)
from palace.cli.app import EXIT_ERROR, EXIT_OK, PalaceGroup, shared_options

COMMAND_MODULES = (memories, maintenance, backends, postgres, agents, experiences, context, graph, tasks, capture, servers,
                   viewer, install)


@click.group("palace", cls=PalaceGroup, context_settings={"help_option_names": ["-h", "--help"]})
@shared_options
@click.version_option(package_name="palace-memory", prog_name="palace")
def cli() -> None:
    """palace: local-first long-term memory for AI agents. Memories are Markdown files
    in rooms under <workspace>/memory/palace/."""


for _module in COMMAND_MODULES:
    for _command in _module.COMMANDS:
        cli.add_command(_command)


def main(argv: Sequence[str] | None = None) -> int:
    """The console script ``palace``: run the command line, return the exit code."""
    try:
        result = cli.main(args=list(argv) if argv is not None else None, prog_name="palace",
                          standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:  # usage errors: exit 2, like bad input
        exc.show()
        return exc.exit_code
    except click.Abort:
        click.echo("palace: interrupted", err=True)
        return EXIT_ERROR
    return result if isinstance(result, int) else EXIT_OK


__all__ = ["cli", "main", "COMMAND_MODULES"]
