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

REPO = Path(__file__).resolve().parents[2]
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


# --------------------------------------------------------------------------- references

# Where a reader is pointed at a file of this repository: our docs and the code's own
# comments and docstrings (not test fixtures, whose texts name files of made-up projects).
SOURCES = sorted([*DOCS, *(REPO / "palace").rglob("*.py"), *(REPO / "vector_service").glob("*.py"),
                  *(REPO / "scripts").glob("*.py"), *(REPO / "integrations" / "openclaw" / "src").glob("*.ts")])
REPO_PATH = re.compile(r"(?<![\w/.\-~$])((?:palace|docs|scripts|tests|vector_service|integrations|config)"
                       r"/[\w./\-]*\w\.(?:py|md|yaml|yml|json|ts|sh))\b")
DOCUMENT = re.compile(r"(?<![\w/.\-])([A-Z][A-Z_\-]+\.md)\b")
# the host's own workspace files (OpenClaw's bootstrap files), not documents of ours
HOST_FILES = {"USER.md", "MEMORY.md", "DREAMS.md", "AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md",
              "HEARTBEAT.md", "BOOTSTRAP.md", "CLAUDE.md"}
# example texts that demos and benchmarks store as memories, naming a made-up project's files
EXAMPLE_TEXTS = {"docs/weekly-report.md"}


def dangling_references(path: Path, text: str) -> list[str]:
    """The repository paths and documents ``text`` names that exist neither at the
    repository's root nor beside ``path``."""
    named = [m.group(1) for m in REPO_PATH.finditer(text) if m.group(1) not in EXAMPLE_TEXTS]
    named += [m.group(1) for m in DOCUMENT.finditer(text) if m.group(1) not in HOST_FILES]
    return sorted({name for name in named
                   if not ((REPO / name).exists() or (path.parent / name).exists()
                           or (REPO / "docs" / name).exists())})


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_file_a_reader_is_pointed_at_exists(source):
    assert dangling_references(source, source.read_text(encoding="utf-8")) == []


def test_the_checker_sees_a_dangling_reference():
    text = "See DESIGN.md and palace/retrieval.py, not palace/store/files.py or README.md."
    assert dangling_references(REPO / "README.md", text) == ["DESIGN.md", "palace/retrieval.py"]
