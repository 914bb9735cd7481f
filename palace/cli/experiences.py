"""``palace experience record | verify | search | list``: lessons learned."""

from __future__ import annotations

import click

from palace.errors import InvalidInputError
from palace.features.experiences import ExperienceResult, parse_experience
from palace.cli import render
from palace.cli.app import PalaceGroup, Reply, open_manager, shared_options

NOW = click.option("--now", help="Pretend it is this ISO time.")
VERIFIED_ONLY = click.option("--verified-only", is_flag=True, help="Only lessons verified 2+ times.")


@click.group("experience", cls=PalaceGroup, short_help="Lessons learned: record, verify, search, list.")
@shared_options
def experience() -> None:
    """Lessons learned ('when X fails with Y, do Z') that earn trust when verified and used."""


def _results_text(results: list[ExperienceResult], *, with_score: bool) -> str:
    if not results:
        return "(no experiences)"
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
    lines = [render.table(headers, rows), ""]
    for i, result in enumerate(results, 1):
        lesson = parse_experience(result.memory.content)
        lines.append(f"{i}. {result.memory.id}")
        lines.append(f"   what happened: {render.short(lesson['what_happened'] or '-', 100)}")
        lines.append(f"   what worked:   {render.short(lesson['what_worked'] or '-', 100)}")
        if lesson["context"]:
            lines.append(f"   context:       {render.short(lesson['context'], 100)}")
    return "\n".join(lines)


@experience.command("record")
@click.option("--happened", required=True, help="What happened (the problem, the error).")
@click.option("--worked", required=True, help="What worked (the fix, the lesson).")
@click.option("--context", help="Where it applies (system, version, …).")
@click.option("--tag", "-t", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--location", "-l", default="experiences", show_default=True, help="Room.")
@click.option("--importance", "-i", type=float, default=0.6, show_default=True, help="0..1.")
@click.option("--created-at", help="ISO time, e.g. 2026-03-18T10:00:00+08:00.")
@shared_options
def record(happened, worked, context, tags, location, importance, created_at) -> Reply:
    """Store a lesson: what happened and what worked."""
    with open_manager() as pm:
        memory = pm.experiences.record(happened, worked, tags=tags, context=context,
                                       location=location, importance=importance,
                                       created_at=created_at, source="cli")
    return Reply(memory.to_dict(),
                 lambda: f"recorded experience {memory.id} in {memory.location} ({memory.path})")


@experience.command("verify")
@click.argument("memory_id", metavar="ID")
@click.option("--worked", is_flag=True, help="It worked (+0.3).")
@click.option("--failed", is_flag=True, help="It did not work (-0.1).")
@click.option("--note", help="What you saw.")
@NOW
@shared_options
def verify(memory_id, worked, failed, note, now) -> Reply:
    """Say whether applying a lesson worked or not (give --worked or --failed)."""
    if worked == failed:
        raise InvalidInputError("give exactly one of --worked or --failed")
    with open_manager() as pm:
        stats = pm.experiences.verify(memory_id, worked, note, now=now)

    def text() -> str:
        outcome = "worked" if worked else "did not work"
        return (f"{memory_id}: noted that it {outcome}; effectiveness {stats.effectiveness:.2f} "
                f"({stats.verified_count} worked, {stats.failed_count} failed, "
                f"{stats.usage_count} uses){', verified' if stats.verified else ''}")

    return Reply({"id": memory_id, "effective": worked} | stats.to_dict(), text)


@experience.command("search")
@click.argument("query")
@click.option("--top-k", "-k", type=int, default=5, show_default=True)
@click.option("--tag", "-t", "tags", multiple=True, help="Only lessons with all these tags.")
@VERIFIED_ONLY
@NOW
@shared_options
def search(query, top_k, tags, verified_only, now) -> Reply:
    """Lessons for a problem, best first (relevance and effectiveness)."""
    with open_manager() as pm:
        results = pm.experiences.search(query, top_k=top_k, now=now, tags=list(tags) or None,
                                        verified_only=verified_only)
    return Reply([r.to_dict() for r in results], lambda: _results_text(results, with_score=True))


@experience.command("list")
@VERIFIED_ONLY
@shared_options
def list_(verified_only) -> Reply:
    """Every active lesson, most effective first."""
    with open_manager() as pm:
        results = pm.experiences.list(verified_only=verified_only)
    return Reply([r.to_dict() for r in results], lambda: _results_text(results, with_score=False))


COMMANDS = (experience,)
