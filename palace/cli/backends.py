"""``palace export DIR | import DIR``: the palace as the standard Markdown tree, on either backend."""

from __future__ import annotations

import click

from palace.cli.app import Reply, open_manager, shared_options
from palace.cli.render import plural


def _errors(report) -> list[str]:
    return [f"  unreadable: {path}: {reason}" for path, reason in report.errors]


@click.command("export")
@click.argument("dest", type=click.Path(file_okay=False))
@shared_options
def export(dest: str) -> Reply:
    """Write every memory, the trash and the access journal as Markdown files into DEST
    (a new or empty folder), byte-for-byte what the local backend keeps, with the graph's
    review queue and decision log (review.json, graph-decisions.json)."""
    with open_manager() as pm:
        report = pm.export_tree(dest)
    data = report.to_dict() | {"dest": dest}
    return Reply(data, lambda: (f"exported {plural(data['written'], 'memory', 'memories')}, {data['trashed']} trashed, "
                                f"{data['accesses']} accesses, {data['review_items']} review items, "
                                f"{data['decisions']} graph decisions to {dest}"))


@click.command("import")
@click.argument("source", type=click.Path(exists=True, file_okay=False))
@shared_options
def import_(source: str) -> Reply:
    """Load a Markdown tree (an export, or a local palace folder); running it again changes nothing."""
    with open_manager(create=True) as pm:
        report = pm.import_tree(source)
    data = report.to_dict() | {"source": source}
    return Reply(data, lambda: (f"imported {plural(data['written'], 'memory', 'memories')} ({data['unchanged']} unchanged), "
                                f"{data['trashed']} trashed, {data['accesses']} accesses, {data['review_items']} review "
                                f"items, {data['decisions']} graph decisions from {source}"),
                 notes=_errors(report))


COMMANDS = (export, import_)
