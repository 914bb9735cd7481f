"""``palace context | bootstrap | essence | summary | mcp``.

Registered into ``palace.cli`` through ``EXTRA_COMMANDS`` when this module is
imported (``palace.cli`` imports it if it exists). Thin shells over
``palace.context``, ``palace.summary`` and ``palace.mcp_server``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import cli
from .errors import InvalidInputError


def _print_context(result) -> None:
    print(result.text or "(no memories found)")
    omitted = f"; did not fit: {', '.join(result.omitted_ids)}" if result.omitted_ids else ""
    print(f"\n(~{result.tokens_used} of {result.max_tokens} tokens; {len(result.pieces)} memories"
          f"{omitted})", file=sys.stderr)


def cmd_context(args: argparse.Namespace) -> int:
    from .context import get_context

    with cli._manager(args) as pm:
        result = get_context(pm, args.query, args.max_tokens, now=args.now, top_k=args.top_k,
                             tags=args.tag, location=args.location, type=args.type)
    if args.json:
        cli.emit_json(result.to_dict())
    else:
        _print_context(result)
    return cli.EXIT_OK


def cmd_bootstrap(args: argparse.Namespace) -> int:
    from .context import bootstrap

    with cli._manager(args) as pm:
        result = bootstrap(pm, args.query, args.max_tokens, now=args.now)
    if args.json:
        cli.emit_json(result.to_dict())
    else:
        _print_context(result)
    return cli.EXIT_OK


def _essence_text(args: argparse.Namespace) -> str | None:
    if args.set is not None:
        return args.set
    if args.file is None:
        return None
    if args.file == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            data = Path(args.file).expanduser().read_bytes()
        except OSError as exc:
            raise InvalidInputError(f"cannot read {args.file}: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInputError(f"{args.file} is not UTF-8 text") from None


def cmd_essence(args: argparse.Namespace) -> int:
    from .context import get_essence, set_essence

    text = _essence_text(args)
    with cli._manager(args) as pm:
        memory = set_essence(pm, text) if text is not None else get_essence(pm)
    if memory is None:
        if args.json:
            cli.emit_json(None)
        else:
            print("(no essence yet: `palace essence --set TEXT` or `--file essence.md` sets who the "
                  "user is, standing rules and preferences)")
        return cli.EXIT_OK
    if args.json:
        cli.emit_json(memory.to_dict())
    elif text is not None:
        size = len(memory.content.encode("utf-8"))
        print(f"essence saved ({size} of {args.settings.essence_max_bytes} bytes) in {memory.path}")
    else:
        print(memory.content)
    return cli.EXIT_OK


def cmd_summary(args: argparse.Namespace) -> int:
    from .summary import get_summary

    with cli._manager(args) as pm:
        summary = get_summary(pm, args.period, args.date, now=args.now)
    if args.json:
        cli.emit_json(summary.to_dict())
    else:
        print(summary.render())
    return cli.EXIT_OK


def cmd_mcp(args: argparse.Namespace) -> int:
    from .mcp_server import serve_stdio

    serve_stdio(args.settings)
    return cli.EXIT_OK


def _positive_int(raw: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {raw!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {raw!r}")
    return value


def register(sub, common: argparse.ArgumentParser) -> None:
    def add(name: str, func, help_text: str) -> argparse.ArgumentParser:
        parser = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        parser.set_defaults(func=func)
        return parser

    p = add("context", cmd_context,
            "the memories most relevant to QUERY, packed into a token budget (for an agent's prompt)")
    p.add_argument("query")
    p.add_argument("--max-tokens", "-m", type=_positive_int, default=2000, help="budget (default 2000)")
    p.add_argument("--top-k", "-k", type=_positive_int, default=20, help="candidates considered")
    p.add_argument("--tag", "-t", action="append")
    p.add_argument("--location", "-l")
    p.add_argument("--type")
    p.add_argument("--now", help="pretend it is this ISO time (for time words and decay)")

    p = add("bootstrap", cmd_bootstrap,
            "start-of-session context: essence, recent session summaries, open tasks, and "
            "memories relevant to QUERY")
    p.add_argument("query", nargs="?")
    p.add_argument("--max-tokens", "-m", type=_positive_int, default=4000, help="budget (default 4000)")
    p.add_argument("--now", help="pretend it is this ISO time")

    p = add("essence", cmd_essence,
            "show the essence (who the user is, rules, preferences), or set it")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--set", metavar="TEXT", help="replace the essence with TEXT")
    group.add_argument("--file", "-f", metavar="FILE", help="replace the essence with FILE ('-': stdin)")

    p = add("summary", cmd_summary,
            "what happened in a day, week (from Monday) or month: counts, tags, topics, decisions, "
            "experiences, rooms, ids")
    p.add_argument("--period", "-p", choices=["day", "week", "month"], default="day")
    p.add_argument("--date", "-d", help="a day inside the period, YYYY-MM-DD (default: today)")
    p.add_argument("--now", help="pretend it is this ISO time (sets 'today')")

    add("mcp", cmd_mcp, "run the MCP server on stdio (for Claude Code, OpenClaw and other agents)")


if register not in cli.EXTRA_COMMANDS:
    cli.EXTRA_COMMANDS.append(register)
