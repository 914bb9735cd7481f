"""``python -m palace.capture COMMAND …``: the capture commands on their own (the same
ones ``palace`` carries, over the same --workspace/--json), for hooks and scripts."""

import sys

import click

from ..cli.app import PalaceGroup, shared_options
from ..cli.capture import COMMANDS


@click.group("palace-capture", cls=PalaceGroup)
@shared_options
def main() -> None:
    """palace capture commands: capture, ingest, timeline, theme, tasks."""


for _command in COMMANDS:
    main.add_command(_command)

if __name__ == "__main__":
    sys.exit(main.main(prog_name="python -m palace.capture"))
