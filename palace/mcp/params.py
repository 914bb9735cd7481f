"""The argument types several tools share: their JSON schema (and its descriptions)
is what clients see, so each is declared once."""

from typing import Annotated

from pydantic import Field

from palace import limits

MAX_RESULTS = limits.MAX_RESULTS  # palace/limits.py holds every limit

Id = Annotated[str, Field(description="Memory id, as returned by save_memory or search_memory.")]
Tags = Annotated[list[str] | None, Field(description='Tags, e.g. ["数据库", "decision"].')]
Now = Annotated[str | None, Field(
    description="For testing and replay only: pretend it is this ISO 8601 time (time words like "
                "'上周' are read relative to it). Leave out in normal use.")]
