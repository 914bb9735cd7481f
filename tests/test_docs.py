"""The documentation renders as written: every code fence closes where it was meant to.

A fence closed too late swallows the prose after it into a code block (README's
"Reliability and safety" once rendered as one). A code block never holds the prose
constructs our docs write outside code: a bold bullet ("- **Crashes.** …") or a
Markdown table's separator row. The fences are read as CommonMark reads them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# our own READMEs only: the integrations' node_modules hold hundreds of npm packages' ones,
# which an install beside the suite (.ci/run) adds and removes while it collects
DOCS = sorted([REPO / "README.md", *(REPO / "docs").glob("*.md"),
               *(p for p in (REPO / "integrations").rglob("README.md") if "node_modules" not in p.parts)])
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
PROSE = re.compile(r"^\s*(- \*\*\S|\|\s*-{3,}\s*\|)")


def code_blocks(text: str) -> list[tuple[int, int, list[str]]]:
    """(first line, last line, lines inside) of each fenced block, 1-based; an unclosed
    fence runs to the end of the document, as CommonMark renders it."""
    blocks, opened, fence, body = [], 0, "", []
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if not fence:
            if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
                opened, fence, body = number, match.group(1), []
            continue
        if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                and not match.group(2).strip():
            blocks.append((opened, number, body))
            fence = ""
        else:
            body.append(line)
    if fence:
        blocks.append((opened, -1, body))
    return blocks


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_fence_closes_before_the_prose_after_it(doc):
    for first, last, body in code_blocks(doc.read_text(encoding="utf-8")):
        assert last != -1, f"{doc.name}: the fence opened at line {first} is never closed"
        prose = [line for line in body if PROSE.match(line)]
        assert not prose, (f"{doc.name}: the code block of lines {first}-{last} holds prose "
                           f"({prose[0]!r}): its fence closes too late")


def test_the_checker_sees_a_fence_closed_too_late():
    late = "```markdown\n---\nid: x\n---\n\n## Reliability\n\n- **Crashes.** text\n\n## Summary\n```\n"
    [(first, last, body)] = code_blocks(late)
    assert (first, last) == (1, 11) and any(PROSE.match(line) for line in body)
    assert code_blocks("```bash\nls\n") == [(1, -1, ["ls"])]


ROW = re.compile(r"^\s*\|")
SEPARATOR = re.compile(r"^\s*\|\s*:?-{3,}")


def broken_tables(text: str) -> list[int]:
    """Line numbers of table rows cut off from their table by a blank line: a row after a
    blank line that follows a row, and that starts no new table (no separator row next),
    renders as a paragraph of pipes."""
    lines = text.splitlines()
    return [number + 1 for number in range(2, len(lines))
            if ROW.match(lines[number]) and not lines[number - 1].strip()
            and ROW.match(lines[number - 2])
            and not (number + 1 < len(lines) and SEPARATOR.match(lines[number + 1]))]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_no_table_is_split_by_a_blank_line(doc):
    broken = broken_tables(doc.read_text(encoding="utf-8"))
    assert not broken, (f"{doc.name}: the table row at line {broken[0]} follows a blank "
                        f"line inside its table; remove the blank line")


def test_the_checker_sees_a_split_table():
    assert broken_tables("| a | b |\n|---|---|\n| 1 | 2 |\n\n| 3 | 4 |\n") == [5]
    assert broken_tables("| a |\n|---|\n| 1 |\n\n| b |\n|---|\n") == []
