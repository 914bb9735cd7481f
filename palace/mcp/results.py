"""What a tool returns: readable text for the model and the same data as structured
content. The SDK is imported only when a result is built, so the tool modules import
without it."""

import json
from typing import Any


def result(data: dict[str, Any], text: str | None = None) -> Any:
    """A tool result: readable text for the model, the same data as structured content."""
    from mcp_types import CallToolResult, TextContent

    if text is None:  # compact: the agent pays for every token of a result
        text = json.dumps(data, ensure_ascii=False, default=str)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def context_result(context: Any) -> Any:
    """A budgeted context (get_context, bootstrap): its text, and a footer that says what
    it cost and which memories did not fit."""
    footer = (f"\n\n(~{context.tokens_used} of {context.max_tokens} tokens; "
              f"{len(context.pieces)} memories")
    if context.omitted_ids:
        footer += f"; did not fit: {', '.join(context.omitted_ids)}"
    footer += ")"
    text = (context.text or "(no memories found)") + footer
    return result(context.to_dict(), text)
