"""``palace experience …``: record, verify, search and list lessons learned.

Registered into ``palace.cli`` through ``EXTRA_COMMANDS`` when this module is
imported (``palace.cli`` imports it if it exists).
"""

from __future__ import annotations

import argparse

from . import cli
from .experiences import ExperienceResult, parse_experience


def _print_results(results: list[ExperienceResult], *, with_score: bool) -> None:
    if not results:
        print("(no experiences)")
        return
    headers = ["#", "id", "effect.", "worked", "failed", "used", "verified"]
    if with_score:
        headers.insert(1, "score")
    rows = []
    for i, result in enumerate(results, 1):
        stats = result.stats
        row = [i, result.memory.id, f"{stats.effectiveness:.2f}", stats.verified_count,
               stats.failed_count, stats.usage_count, "yes" if stats.verified else "-"]
        if with_score:
            row.insert(1, f"{result.score:.3f}")
        rows.append(row)
    cli.print_table(headers, rows)
    print()
    for i, result in enumerate(results, 1):
        lesson = parse_experience(result.memory.content)
        print(f"{i}. {result.memory.id}")
        print(f"   what happened: {cli._short(lesson['what_happened'] or '-', 100)}")
        print(f"   what worked:   {cli._short(lesson['what_worked'] or '-', 100)}")
        if lesson["context"]:
            print(f"   context:       {cli._short(lesson['context'], 100)}")


def cmd_record(args: argparse.Namespace) -> int:
    with cli._manager(args) as pm:
        memory = pm.experiences.record(args.happened, args.worked, tags=args.tag or (),
                                       context=args.context, location=args.location,
                                       importance=args.importance, created_at=args.created_at,
                                       source="cli")
    if args.json:
        cli.emit_json(memory.to_dict())
    else:
        print(f"recorded experience {memory.id} in {memory.location} ({memory.path})")
    return cli.EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    with cli._manager(args) as pm:
        stats = pm.experiences.verify(args.id, args.effective, args.note, now=args.now)
    if args.json:
        cli.emit_json({"id": args.id, "effective": args.effective} | stats.to_dict())
    else:
        outcome = "worked" if args.effective else "did not work"
        print(f"{args.id}: noted that it {outcome}; effectiveness {stats.effectiveness:.2f} "
              f"({stats.verified_count} worked, {stats.failed_count} failed, {stats.usage_count} uses)"
              f"{', verified' if stats.verified else ''}")
    return cli.EXIT_OK


def cmd_search(args: argparse.Namespace) -> int:
    with cli._manager(args) as pm:
        results = pm.experiences.search(args.query, top_k=args.top_k, now=args.now, tags=args.tag,
                                        verified_only=args.verified_only)
    if args.json:
        cli.emit_json([r.to_dict() for r in results])
    else:
        _print_results(results, with_score=True)
    return cli.EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    with cli._manager(args) as pm:
        results = pm.experiences.list(verified_only=args.verified_only)
    if args.json:
        cli.emit_json([r.to_dict() for r in results])
    else:
        _print_results(results, with_score=False)
    return cli.EXIT_OK


def register(sub, common: argparse.ArgumentParser) -> None:
    description = ("lessons learned ('when X fails with Y, do Z') that earn trust when "
                   "verified and used")
    parser = sub.add_parser("experience", parents=[common], help=description, description=description)
    commands = parser.add_subparsers(dest="experience_command", metavar="ACTION")
    commands.required = True
    # The same options once more after the action ("palace experience list --json"),
    # but without defaults: argparse copies a sub-parser's defaults over what the
    # level above parsed, which would drop "palace experience --json list".
    late = argparse.ArgumentParser(add_help=False)
    late.add_argument("--workspace", "-w", default=argparse.SUPPRESS,
                      help="workspace folder (default: MEMORY_WORKSPACE_DIR or .)")
    late.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                      help="print JSON (for agents and scripts)")

    def add(name: str, func, help_text: str) -> argparse.ArgumentParser:
        p = commands.add_parser(name, parents=[late], help=help_text, description=help_text)
        p.set_defaults(func=func)
        return p

    p = add("record", cmd_record, "store a lesson: what happened and what worked")
    p.add_argument("--happened", required=True, help="what happened (the problem, the error)")
    p.add_argument("--worked", required=True, help="what worked (the fix, the lesson)")
    p.add_argument("--context", help="where it applies (system, version, …)")
    p.add_argument("--tag", "-t", action="append", help="a tag (repeatable)")
    p.add_argument("--location", "-l", default="experiences", help="room (default: experiences)")
    p.add_argument("--importance", "-i", type=float, default=0.6, help="0..1 (default 0.6)")
    p.add_argument("--created-at", help="ISO time, e.g. 2026-03-18T10:00:00+08:00")

    p = add("verify", cmd_verify, "say whether applying a lesson worked (+0.3) or not (-0.1)")
    p.add_argument("id")
    outcome = p.add_mutually_exclusive_group(required=True)
    outcome.add_argument("--worked", dest="effective", action="store_true", default=None,
                         help="it worked")
    outcome.add_argument("--failed", dest="effective", action="store_false", help="it did not work")
    p.add_argument("--note", help="what you saw")
    p.add_argument("--now", help="pretend it is this ISO time")

    p = add("search", cmd_search, "lessons for a problem, best first (relevance and effectiveness)")
    p.add_argument("query")
    p.add_argument("--top-k", "-k", type=int, default=5)
    p.add_argument("--tag", "-t", action="append")
    p.add_argument("--verified-only", action="store_true", help="only lessons verified 2+ times")
    p.add_argument("--now", help="pretend it is this ISO time")

    p = add("list", cmd_list, "every active lesson, most effective first")
    p.add_argument("--verified-only", action="store_true", help="only lessons verified 2+ times")


if register not in cli.EXTRA_COMMANDS:
    cli.EXTRA_COMMANDS.append(register)
