// A small OpenAI-compatible model server on loopback for the real-OpenClaw test.
// It records every request it gets (so a test can read the prompt OpenClaw built)
// and answers from a script written into the prompt itself:
//
//   [[tool NAME {json args}]]   the model calls tool NAME with those arguments;
//                               after the tool result it answers in text.
//
// Anything else gets a plain text answer. Streaming (SSE) and plain JSON replies
// are both served, as OpenClaw's openai-completions adapter may ask for either.
import { createServer } from "node:http";

const DIRECTIVE = /\[\[tool (\S+) (\{.*?\})\]\]/gs;

function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === "string" ? part : part?.text ?? "")).join("\n");
  return "";
}

/** What the model does next: the last message decides. */
export function decide(messages) {
  const last = messages.at(-1);
  if (!last) return { text: "Hello." };
  if (last.role === "tool") {
    return { text: `Done. The tool said: ${textOf(last.content).slice(0, 200)}` };
  }
  // The prompt is the last user message with a directive; palace's recall block is
  // put in front of it, so the last directive in that message is the live one.
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role === "assistant") break;
    if (message.role !== "user") continue;
    const found = [...textOf(message.content).matchAll(DIRECTIVE)].at(-1);
    if (found) return { tool: { name: found[1], arguments: found[2] } };
  }
  return { text: "Noted." };
}

function completion(model, decision, stream) {
  const id = `chatcmpl-${Math.random().toString(16).slice(2)}`;
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
  const toolCall = decision.tool
    ? { id: `call_${Math.random().toString(16).slice(2, 10)}`, type: "function",
        function: { name: decision.tool.name, arguments: decision.tool.arguments } }
    : null;
  const finish = toolCall ? "tool_calls" : "stop";
  if (!stream) {
    const message = toolCall ? { role: "assistant", content: null, tool_calls: [toolCall] }
      : { role: "assistant", content: decision.text };
    return JSON.stringify({ id, object: "chat.completion", created, model,
      choices: [{ index: 0, message, finish_reason: finish }], usage });
  }
  const chunk = (delta, finishReason, extra = {}) => `data: ${JSON.stringify({ id, object: "chat.completion.chunk",
    created, model, choices: delta === null ? [] : [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
  const first = toolCall ? { role: "assistant", content: null, tool_calls: [{ index: 0, ...toolCall }] }
    : { role: "assistant", content: decision.text };
  return chunk(first, null) + chunk({}, finish) + chunk(null, null, { usage }) + "data: [DONE]\n\n";
}

export async function startStubModel() {
  const requests = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      let parsed = {};
      try {
        parsed = body ? JSON.parse(body) : {};
      } catch {
        res.writeHead(400).end();
        return;
      }
      requests.push({ method: req.method, path: req.url, body: parsed });
      if (req.url.endsWith("/models")) {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: "stub-model", object: "model", owned_by: "test" }] }));
        return;
      }
      if (!req.url.endsWith("/chat/completions")) {
        res.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify({ error: { message: "no such route" } }));
        return;
      }
      const answer = completion(parsed.model, decide(parsed.messages ?? []), parsed.stream === true);
      res.writeHead(200, { "Content-Type": parsed.stream ? "text/event-stream" : "application/json" });
      res.end(answer);
    });
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return {
    baseUrl: `http://127.0.0.1:${server.address().port}/v1`,
    requests,
    /** The chat requests, each with its messages flattened to one text. */
    chats: () => requests.filter((r) => r.path.endsWith("/chat/completions"))
      .map((r) => ({ ...r, text: (r.body.messages ?? []).map((m) => `${m.role}: ${textOf(m.content)}`).join("\n") })),
    stop: () => new Promise((ok) => server.close(ok)),
  };
}
