"""The tools that hand the agent ready-to-read text within a token budget: context for
a query, the start-of-session bootstrap, the persona, and a period's summary. Each
takes the open manager first."""

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from palace.features import context as ctx
from palace.features import summary as period_summary
from palace.mcp.params import Now
from palace.mcp.results import context_result, result

if TYPE_CHECKING:
    from palace.manager import MemoryPalaceManager


def get_context(
    pm: "MemoryPalaceManager",
    query: Annotated[str, Field(description="What you need to know about.")],
    max_tokens: Annotated[int, Field(ge=50, le=100_000, description="Token budget for the "
                                                                     "returned text.")] = 2000,
    tags: Annotated[list[str] | None, Field(description="Only memories with all these tags.")] = None,
    location: Annotated[str | None, Field(description="Only this room.")] = None,
    type: Annotated[str | None, Field(description="Only this type.")] = None,
    now: Now = None,
):
    return context_result(ctx.get_context(pm, query, max_tokens, now=now, tags=tags,
                                          location=location, type=type))


def bootstrap(
    pm: "MemoryPalaceManager",
    query: Annotated[str | None, Field(description="The task at hand, to add relevant "
                                                   "memories (optional).")] = None,
    max_tokens: Annotated[int, Field(ge=50, le=100_000, description="Token budget.")] = 4000,
    now: Now = None,
):
    return context_result(ctx.bootstrap(pm, query, max_tokens, now=now))


def get_persona(
    pm: "MemoryPalaceManager",
    refresh: Annotated[bool, Field(description="Rebuild it from the current facts first.")] = False,
    max_tokens: Annotated[int, Field(ge=50, le=100_000, description="Token budget.")] = 4000,
):
    persona = ctx.persona_context(pm, max_tokens, refresh=refresh)
    return result(persona.to_dict(), persona.text or "\n".join(persona.notes))


def get_summary(
    pm: "MemoryPalaceManager",
    period: Annotated[Literal["day", "week", "month"], Field(description="Length of the period.")] = "day",
    date: Annotated[str | None, Field(description="A day inside the period, YYYY-MM-DD "
                                                  "(default: today).")] = None,
):
    summary = period_summary.get_summary(pm, period, date)
    return result(summary.to_dict(), summary.render())
