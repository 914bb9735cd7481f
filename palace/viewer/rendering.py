"""Memory Markdown to safe HTML: raw HTML in a memory is shown as text, never run."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markupsafe import Markup

# "commonmark" with html off: <script> in a memory becomes visible text. markdown-it
# also refuses javascript:/vbscript:/data: link targets (validateLink).
_MD = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")


def render_markdown(text: str | None) -> Markup:
    return Markup(_MD.render(text or ""))
