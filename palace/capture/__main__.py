"""``python -m palace.capture COMMAND …``: the capture commands on their own (the same
ones ``palace`` carries), for hooks and scripts that want the smallest entry point."""

import click

from .cli import COMMANDS


@click.group()
def main() -> None:
    """palace capture commands: capture, ingest, timeline, theme, tasks."""


for _command in COMMANDS:
    main.add_command(_command)

if __name__ == "__main__":
    main()
