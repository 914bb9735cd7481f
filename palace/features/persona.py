"""The persona: one memory (id ``persona``) listing what palace knows about the user,
assembled from the user's *current* facts (preferences, where they live and work, the
tools they use), so supersession keeps it current.

The file has two parts: the lines palace writes, between ``<!-- persona:begin -->``
and ``<!-- persona:end -->``, and anything else, which a person may write and which a
refresh keeps as it is. ``bootstrap`` shows the persona after the essence.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from palace.graph.normalise import USER_KEY
from palace.graph.supersede import family
from palace.models import Memory
from palace.features.palace_api import Palace

PERSONA_ID = "persona"
PERSONA_TYPE = "persona"
BEGIN, END = "<!-- persona:begin -->", "<!-- persona:end -->"
_BLOCK = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
HEADING = "# Persona"
_MARKER_LINE = re.compile(r"^[ \t]*(?:" + re.escape(BEGIN) + "|" + re.escape(END) + r")[ \t]*\n?", re.M)
LABELS = {"likes": "likes", "dislikes": "dislikes", "lives_in": "lives in", "works_at": "works at",
          "uses": "uses"}


def persona_lines(pm: Palace, now: Any = None) -> list[str]:
    """One line per current fact about the user whose predicate palace knows."""
    when = pm.now(now)
    lines = []
    for relation in pm.graph.history(USER_KEY):
        if relation.subject_key != USER_KEY or not relation.current(when):
            continue
        fam = family(relation.predicate)
        if fam not in LABELS:
            continue
        purpose = f" for {relation.purpose}" if relation.purpose else ""
        line = f"- {LABELS[fam]} {relation.object}{purpose}"
        if line not in lines:
            lines.append(line)
    return lines


def refresh_persona(pm: Palace, *, now: Any = None) -> Memory | None:
    """Rewrite the generated part of the persona memory (create it when there is
    something to say); a person's own lines around it are kept."""
    block = "\n".join([BEGIN, *persona_lines(pm, now), END])
    with pm.write_lock():
        current = pm.get(PERSONA_ID, record_access=False)
        if current is None:
            if block.count("\n") < 2:
                return None  # no facts yet: no empty persona
            return pm.store(f"{HEADING}\n\n{block}", id=PERSONA_ID, type=PERSONA_TYPE, pinned=True,
                            importance=1.0, source="persona", extra={"entities": []})
        text = _BLOCK.sub(lambda _m: block, current.content) if _BLOCK.search(current.content) \
            else f"{current.content.rstrip()}\n\n{block}"
        return current if text == current.content else pm.update(PERSONA_ID, content=text)


def get_persona(pm: Palace) -> Memory | None:
    memory = pm.get(PERSONA_ID, record_access=False)
    return memory if memory is not None and memory.status == "active" else None


def shown_persona(memory: Memory) -> Memory:
    """The persona as a context shows it, under its own ``# Persona`` heading: the
    file's heading and the markers around palace's lines are for the file, not the
    reader (the file on disk is unchanged)."""
    text = _MARKER_LINE.sub("", memory.content).strip()
    if text.startswith(HEADING + "\n") or text == HEADING:
        text = text[len(HEADING):].strip()
    text = re.sub(r"\n{3,}", "\n\n", text)
    return dataclasses.replace(memory, content=text)
