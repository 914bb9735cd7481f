"""A model for real Claude Code to talk to: Anthropic's Messages API on loopback, just
enough of it (``POST /v1/messages``, streamed as server-sent events, and
``/v1/messages/count_tokens``) to play a turn. Every request body is kept, so a test
can read what Claude Code sent the model: the system prompt, the messages, and the
hooks' ``additionalContext`` inside them.

A request that offers tools and does not yet hold a tool result gets one tool call
(``tool_command`` through Bash); any other gets ``answer`` as text.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class StubModel:
    def __init__(self, answer: str, tool_command: str):
        self.answer = answer
        self.tool_command = tool_command
        self.requests: list[dict[str, Any]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> "StubModel":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def sent(self) -> str:
        """Everything Claude Code sent the model, as one text."""
        return "\n".join(json.dumps(r, ensure_ascii=False) for r in self.requests)

    def reply_to(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        # answered once any message holds the tool's result: Claude Code may add a hook's
        # context after it, so the last message is not always the tool_result
        answered = any(isinstance(m.get("content"), list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in m["content"])
            for m in body.get("messages") or [] if isinstance(m, dict))
        if body.get("tools") and not answered:
            return [{"type": "tool_use", "id": f"toolu_stub{len(self.requests):02d}", "name": "Bash",
                     "input": {"command": self.tool_command, "description": "Check the backups"}}], "tool_use"
        return [{"type": "text", "text": self.answer}], "end_turn"

    def _handler(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _json(self, data: dict[str, Any], status: int = 200) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_GET(self) -> None:
                self._json({"type": "error", "error": {"type": "not_found_error", "message": "stub"}}, 404)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if "count_tokens" in self.path:
                    self._json({"input_tokens": 100})
                    return
                stub.requests.append(body)
                blocks, stop = stub.reply_to(body)
                message = {"id": f"msg_stub{len(stub.requests)}", "type": "message", "role": "assistant",
                           "model": body.get("model"), "stop_sequence": None,
                           "usage": {"input_tokens": 100, "output_tokens": 20}}
                if not body.get("stream"):
                    self._json({**message, "content": blocks, "stop_reason": stop})
                    return
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()

                def event(name: str, data: dict[str, Any]) -> None:
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())

                event("message_start", {"type": "message_start",
                                        "message": {**message, "content": [], "stop_reason": None}})
                for index, block in enumerate(blocks):
                    if block["type"] == "text":
                        start, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
                    else:
                        start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
                    event("content_block_start", {"type": "content_block_start", "index": index,
                                                  "content_block": start})
                    event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
                    event("content_block_stop", {"type": "content_block_stop", "index": index})
                event("message_delta", {"type": "message_delta", "usage": {"output_tokens": 20},
                                        "delta": {"stop_reason": stop, "stop_sequence": None}})
                event("message_stop", {"type": "message_stop"})
                self.wfile.flush()

        return Handler
