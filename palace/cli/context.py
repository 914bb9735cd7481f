"""``palace context | bootstrap | essence | summary``: text for an agent's prompt."""

from __future__ import annotations

from pathlib import Path

import click

from palace.errors import InvalidInputError
from palace.cli.app import Reply, open_manager, read_stdin_text, settings, shared_options
from palace.cli.render import plural

POSITIVE = click.IntRange(min=1)


def _context_reply(result) -> Reply:
    omitted = f"; did not fit: {', '.join(result.omitted_ids)}" if result.omitted_ids else ""
    footer = (f"\n(~{result.tokens_used} of {result.max_tokens} tokens; "
              f"{plural(len(result.pieces), 'memory', 'memories')}{omitted})")
    return Reply(result.to_dict(), lambda: result.text or "(no memories found)", notes=[footer])


@click.command("context", short_help="Relevant memories packed into a token budget.")
@click.argument("query")
@click.option("--max-tokens", "-m", type=POSITIVE, default=2000, show_default=True, help="Budget.")
@click.option("--top-k", "-k", type=POSITIVE, default=20, show_default=True,
              help="Candidates considered.")
@click.option("--tag", "-t", "tags", multiple=True, help="Only memories with all these tags.")
@click.option("--location", "-l")
@click.option("--type", "memory_type")
@click.option("--now", help="Pretend it is this ISO time (for time words and decay).")
@shared_options
def context(query, max_tokens, top_k, tags, location, memory_type, now) -> Reply:
    """The memories most relevant to QUERY, packed into a token budget (for a prompt)."""
    from palace.features.context import get_context

    with open_manager() as pm:
        result = get_context(pm, query, max_tokens, now=now, top_k=top_k, tags=list(tags) or None,
                             location=location, type=memory_type)
    return _context_reply(result)


@click.command("bootstrap", short_help="Start-of-session context for an agent.")
@click.argument("query", required=False)
@click.option("--max-tokens", "-m", type=POSITIVE, default=4000, show_default=True, help="Budget.")
@click.option("--now", help="Pretend it is this ISO time.")
@shared_options
def bootstrap(query, max_tokens, now) -> Reply:
    """Start-of-session context: essence, recent session summaries, open tasks, and
    memories relevant to QUERY."""
    from palace.features.context import bootstrap as build

    with open_manager() as pm:
        result = build(pm, query, max_tokens, now=now)
    return _context_reply(result)


def _essence_text(text: str | None, file: str | None) -> str | None:
    if text is not None and file is not None:
        raise InvalidInputError("give --set or --file, not both")
    if text is not None or file is None:
        return text
    if file == "-":
        return read_stdin_text("the essence")
    try:
        data = Path(file).expanduser().read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {file}: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInputError(f"{file} is not UTF-8 text") from None


@click.command("essence", short_help="Show or set the essence (who the user is).")
@click.option("--set", "text", metavar="TEXT", help="Replace the essence with TEXT.")
@click.option("--file", "-f", metavar="FILE", help="Replace the essence with FILE ('-': stdin).")
@shared_options
def essence(text: str | None, file: str | None) -> Reply:
    """Show the essence (who the user is, rules, preferences), or set it."""
    from palace.features.context import get_essence, set_essence

    new_text = _essence_text(text, file)
    with open_manager() as pm:
        memory = set_essence(pm, new_text) if new_text is not None else get_essence(pm)
    if memory is None:
        return Reply(None, lambda: "(no essence yet: `palace essence --set TEXT` or `--file "
                                   "essence.md` sets who the user is, standing rules and preferences)")
    if new_text is None:
        return Reply(memory.to_dict(), lambda: memory.content)
    size = len(memory.content.encode("utf-8"))
    limit = settings().essence_max_bytes
    return Reply(memory.to_dict(), lambda: f"essence saved ({size} of {limit} bytes) in {memory.path}")


@click.command("summary", short_help="What happened in a day, week or month.")
@click.option("--period", "-p", type=click.Choice(["day", "week", "month"]), default="day",
              show_default=True)
@click.option("--date", "-d", "day", help="A day inside the period, YYYY-MM-DD (default: today).")
@click.option("--now", help="Pretend it is this ISO time (sets 'today').")
@shared_options
def summary(period: str, day: str | None, now: str | None) -> Reply:
    """What happened in a day, week (from Monday) or month: counts, tags, topics,
    decisions, experiences, rooms, ids."""
    from palace.features.summary import get_summary

    with open_manager() as pm:
        result = get_summary(pm, period, day, now=now)
    return Reply(result.to_dict(), result.render)


COMMANDS = (context, bootstrap, essence, summary)
