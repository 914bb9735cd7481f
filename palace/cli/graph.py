"""``palace entity list|merge``, ``palace history``, ``palace review list|accept|reject``,
``palace recall``: the entity graph (docs/graph.md)."""

from __future__ import annotations

import click

from palace.cli import render
from palace.cli.app import PalaceGroup, Reply, open_manager, shared_options

NOW = click.option("--now", help="Pretend it is this ISO time.")


@click.group("entity", cls=PalaceGroup, short_help="Entities in the graph: list, merge.")
@shared_options
def entity() -> None:
    """Entities named in memories (frontmatter `entities`, relations, [[wiki links]])."""


@entity.command("list")
@click.option("--limit", "-n", type=int, default=50, show_default=True, help="At most this many.")
@shared_options
def entity_list(limit) -> Reply:
    """Entities, most mentioned first."""
    with open_manager() as pm:
        rows = pm.graph.entities(limit=limit)
    return Reply(rows, lambda: render.table(["name", "type", "mentions"],
                                            [[r["name"], r["type"] or "-", r["mentions"]] for r in rows])
                 if rows else "(no entities)")


@entity.command("merge")
@click.argument("source")
@click.argument("target")
@shared_options
def entity_merge(source, target) -> Reply:
    """Make SOURCE another name of TARGET: every memory naming SOURCE is rewritten."""
    with open_manager() as pm:
        with pm.write_lock():
            changed = pm.graph.merge(source, target)
    return Reply({"source": source, "target": target, "changed": changed},
                 lambda: f"merged {source!r} into {target!r} in {render.plural(len(changed), 'memory', 'memories')}")


@click.command("history", short_help="Every fact about an entity, closed ones too.")
@click.argument("name")
@shared_options
def history(name) -> Reply:
    """Relations about NAME, oldest first, with when each held."""
    with open_manager() as pm:
        facts = pm.graph.history(name)
    rows = [[r.subject, r.predicate, r.object, r.valid_from.date().isoformat() if r.valid_from else "-",
             r.valid_to.date().isoformat() if r.valid_to else "now", r.memory_id] for r in facts]
    data = [dict(r.to_frontmatter(), memory=r.memory_id, current=r.valid_to is None) for r in facts]
    return Reply(data, lambda: render.table(["subject", "predicate", "object", "from", "to", "memory"], rows)
                 if rows else f"(no facts about {name!r})")


@click.group("review", cls=PalaceGroup, short_help="Facts palace was unsure about: list, accept, reject.")
@shared_options
def review() -> None:
    """Pairs of facts where a new one may or may not replace an old one."""


@review.command("list")
@shared_options
def review_list() -> Reply:
    """Open review items."""
    with open_manager() as pm:
        items = pm.graph.queue.items()

    def text() -> str:
        if not items:
            return "(nothing to review)"
        return "\n".join(f"{i.id}: {_fact(i.old_relation)} ({i.old_memory}) → {_fact(i.new_relation)} "
                         f"({i.new_memory}): {i.reason}" for i in items)

    return Reply([i.to_dict() for i in items], text)


def _fact(relation: dict) -> str:
    purpose = f" for {relation['for']}" if relation.get("for") else ""
    return f"{relation['subject']} {relation['predicate']} {relation['object']}{purpose}"


@review.command("accept")
@click.argument("item_id", metavar="ID")
@NOW
@shared_options
def review_accept(item_id, now) -> Reply:
    """The new fact replaces the old one: close it and mark its memory superseded."""
    with open_manager() as pm:
        item = pm.graph.resolve(item_id, accept=True, now=pm.now(now))
    return Reply(item.to_dict(), lambda: f"{item.old_memory} superseded by {item.new_memory}")


@review.command("reject")
@click.argument("item_id", metavar="ID")
@shared_options
def review_reject(item_id) -> Reply:
    """Both facts stand."""
    with open_manager() as pm:
        item = pm.graph.resolve(item_id, accept=False, now=pm.now())
    return Reply(item.to_dict(), lambda: f"kept both {item.old_memory} and {item.new_memory}")


@click.command("recall", short_help="Memories reached through the entity graph.")
@click.argument("query")
@click.option("--depth", "-d", type=click.IntRange(1, 3), default=2, show_default=True, help="Hops.")
@click.option("--limit", "-n", type=int, default=20, show_default=True, help="At most this many.")
@click.option("--include-superseded", is_flag=True, help="Also follow facts a later one retired.")
@NOW
@shared_options
def recall(query, depth, limit, include_superseded, now) -> Reply:
    """Follow relations from the entities QUERY names, showing each memory's path."""
    with open_manager() as pm:
        results = pm.recall(query, depth=depth, limit=limit, include_superseded=include_superseded, now=now)
    lines = [f"{i}. {r.memory.id} {render.short(r.memory.content, 60)}\n   {r.explanation.notes[0]}"
             for i, r in enumerate(results, 1)]
    return Reply([r.to_dict() for r in results], lambda: "\n".join(lines) or "(nothing reached)")


@click.command("tags", short_help="The tag tree with counts.")
@shared_options
def tags() -> Reply:
    """Tags as a tree (project/palace/search under project/palace), with memory counts."""
    from palace.graph.tags import render_tree

    with open_manager() as pm:
        tree = pm.tag_tree()
    return Reply(tree, lambda: "\n".join(render_tree(tree)) or "(no tags)")


@click.command("persona", short_help="Refresh and show the persona (the user's current facts).")
@click.option("--no-refresh", is_flag=True, help="Show it as it is, without rebuilding it first.")
@click.option("--max-tokens", type=int, default=4000, show_default=True, help="Token budget.")
@shared_options
def persona(no_refresh, max_tokens) -> Reply:
    """Rewrite the persona memory's generated lines from the user's current facts
    (your own lines in it are kept) and print it as bootstrap shows it."""
    from palace.features.context import persona_context

    with open_manager() as pm:
        result = persona_context(pm, max_tokens, refresh=not no_refresh)
    return Reply(result.to_dict(), lambda: result.text or "(no facts about the user yet)")


COMMANDS = (entity, history, review, recall, tags, persona)
