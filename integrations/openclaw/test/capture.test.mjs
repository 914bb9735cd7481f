// Capture and failure behaviour without a palace: what the plugin sends to
// POST /capture (a recording HTTP server stands in for the endpoint, whose real
// implementation comes with issue 13), batching, bounds, retries, and an agent
// that never waits for or fails because of a sidecar that is down.
import assert from "node:assert/strict";
import { test } from "node:test";

import entry, { CaptureQueue, PalaceClient, serialiseEvent } from "../dist/index.js";
import { createHostApi, freePort, startRecorder, waitFor } from "./helpers.mjs";

const OK = (request) => [200, { accepted: request.body.events.length, stored: request.body.events.length, skipped: 0, errors: [] }];

function plugin(config) {
  const host = createHostApi(config);
  entry.register(host.api);
  return host;
}

test("hook payloads reach POST /capture in the contract's shape", async () => {
  const recorder = await startRecorder(OK);
  const host = plugin({ url: recorder.url, capture: { flushIntervalMs: 20 } });
  const runner = host.hookRunner();
  const toolCtx = { toolName: "exec", sessionKey: "agent:main:s9", sessionId: "s9", agentId: "main",
                    abortSignal: new AbortController().signal, getSessionExtension: () => undefined };
  await runner.runAfterToolCall({ toolName: "exec", params: { command: "ls -la" }, result: { stdout: "a\nb" },
                                  toolCallId: "call-1", durationMs: 12 }, toolCtx);
  await runner.runMessageReceived({ from: "telegram:42", content: "remind me to renew the TLS cert", timestamp: 1764550000000 },
                                  { channelId: "telegram", sessionKey: "agent:main:s9" });
  await runner.runBeforeCompaction({ messageCount: 40, tokenCount: 90000 }, { sessionKey: "agent:main:s9" });
  await runner.runBeforeReset({ reason: "new", messages: [] }, { sessionKey: "agent:main:s9" });
  await runner.runAgentEnd({ messages: [{ role: "assistant", content: "done" }], success: true, durationMs: 900 },
                           { sessionKey: "agent:main:s9", sessionId: "s9" });
  await runner.runSessionEnd({ sessionId: "s9", sessionKey: "agent:main:s9", messageCount: 7, reason: "idle" },
                             { sessionId: "s9", sessionKey: "agent:main:s9", agentId: "main" });
  await waitFor(() => recorder.requests.flatMap((r) => r.body.events).length === 6);

  for (const request of recorder.requests) {
    assert.equal(request.method, "POST");
    assert.equal(request.path, "/capture");
    assert.equal(request.body.source, "openclaw");
  }
  const events = recorder.requests.flatMap((r) => r.body.events);
  assert.deepEqual(events.map((e) => e.hook),
    ["after_tool_call", "message_received", "before_compaction", "before_reset", "agent_end", "session_end"]);
  const tool = events[0];
  assert.deepEqual(tool.params, { command: "ls -la" });
  assert.deepEqual(tool.result, { stdout: "a\nb" });
  assert.equal(tool.toolCallId, "call-1");
  // The context's plain fields say which session it was; functions and signals are left out.
  assert.deepEqual(tool.context, { toolName: "exec", sessionKey: "agent:main:s9", sessionId: "s9", agentId: "main" });
  assert.equal(events[1].content, "remind me to renew the TLS cert");
  assert.equal(events[5].reason, "idle");
  await recorder.stop();
});

test("the sidecar's token goes with every request, capture and tools alike", async () => {
  const recorder = await startRecorder((request) => request.path === "/capture" ? OK(request)
    : [200, { count: 0, time_range: null, notes: [], results: [] }]);
  const host = plugin({ url: recorder.url, token: "s3cret", capture: { flushIntervalMs: 10 } });
  await host.hookRunner().runAfterToolCall({ toolName: "read", params: { path: "a.py" } }, { toolName: "read" });
  const found = await host.callTool("memory_search", { query: "anything" });
  assert.equal(found.content[0].text, "No memories found.");
  await waitFor(() => recorder.requests.length === 2);
  assert.deepEqual(recorder.requests.map((r) => r.headers.authorization), ["Bearer s3cret", "Bearer s3cret"]);
  assert.deepEqual(recorder.requests.map((r) => r.path).sort(), ["/capture", "/memories/search"]);
  await recorder.stop();
});

test("events go in batches of batchSize, and the queue is bounded", async () => {
  const recorder = await startRecorder(OK);
  const client = new PalaceClient({ url: recorder.url, timeoutMs: 1000 });
  const queue = new CaptureQueue(client, { enabled: true, batchSize: 3, flushIntervalMs: 10_000, maxQueue: 100,
                                           maxAttempts: 3, timeoutMs: 1000, maxBatchBytes: 1_000_000 });
  for (let i = 0; i < 7; i++) queue.push("after_tool_call", { toolName: "read", params: { path: `f${i}.py` } }, {});
  await queue.flush();
  assert.deepEqual(recorder.requests.map((r) => r.body.events.length), [3, 3, 1]);
  assert.deepEqual(queue.stats(), { queued: 0, sent: 7, stored: 7, skipped: 0, dropped: 0, failedRequests: 0, lastError: null });
  await recorder.stop();
});

test("a batch never exceeds maxBatchBytes; an event alone over it is dropped and counted", async () => {
  const recorder = await startRecorder(OK);
  const client = new PalaceClient({ url: recorder.url, timeoutMs: 1000 });
  const queue = new CaptureQueue(client, { enabled: true, batchSize: 50, flushIntervalMs: 10_000, maxQueue: 100,
                                           maxAttempts: 3, timeoutMs: 1000, maxBatchBytes: 4096 });
  for (let i = 0; i < 4; i++) queue.push("after_tool_call", { toolName: "read", result: "x".repeat(1500) }, {});
  queue.push("after_tool_call", { toolName: "read", result: "y".repeat(5000) }, {});
  await queue.flush();
  assert.deepEqual(recorder.requests.map((r) => r.body.events.length), [2, 2]);
  assert.equal(queue.stats().dropped, 1);
  assert.match(queue.stats().lastError, /over capture.maxBatchBytes/);
  await recorder.stop();
});

test("a failing sidecar is retried with back-off; a 4xx batch is dropped, not retried", async () => {
  const recorder = await startRecorder((request, n) => (n === 1 ? [503, { error: "busy", message: "try later" }] : OK(request)));
  const client = new PalaceClient({ url: recorder.url, timeoutMs: 1000 });
  const queue = new CaptureQueue(client, { enabled: true, batchSize: 10, flushIntervalMs: 20, maxQueue: 100,
                                           maxAttempts: 3, timeoutMs: 1000, maxBatchBytes: 1_000_000 });
  queue.push("agent_end", { messages: [], success: true }, {});
  await queue.flush(); // fails once, then the timer sends it again
  await waitFor(() => queue.stats().sent === 1);
  assert.equal(queue.stats().failedRequests, 1);
  assert.equal(queue.stats().dropped, 0);

  const refusing = await startRecorder(() => [404, { error: "not_found", message: "no endpoint POST /capture" }]);
  const refused = new CaptureQueue(new PalaceClient({ url: refusing.url, timeoutMs: 1000 }),
    { enabled: true, batchSize: 10, flushIntervalMs: 20, maxQueue: 100, maxAttempts: 3, timeoutMs: 1000, maxBatchBytes: 1_000_000 });
  refused.push("agent_end", { messages: [], success: true }, {});
  await refused.flush();
  assert.equal(refusing.requests.length, 1);
  assert.equal(refused.stats().dropped, 1);
  assert.match(refused.stats().lastError, /no endpoint POST \/capture/);
  await Promise.all([recorder.stop(), refusing.stop()]);
});

test("with the sidecar down the agent goes on: hooks return at once, drops are counted", async () => {
  const deadUrl = `http://127.0.0.1:${await freePort()}`;
  const host = plugin({ url: deadUrl, recall: { timeoutMs: 300 },
                        capture: { flushIntervalMs: 10, maxQueue: 5, maxAttempts: 2, timeoutMs: 200 } });
  const runner = host.hookRunner();
  const started = performance.now();
  for (let i = 0; i < 50; i++) {
    await runner.runAfterToolCall({ toolName: "exec", params: { command: `echo ${i}` }, result: String(i) },
                                  { toolName: "exec", sessionKey: "s" });
  }
  const perHookMs = (performance.now() - started) / 50;
  assert.ok(perHookMs < 20, `a capture hook took ${perHookMs.toFixed(2)} ms`);

  const promptStarted = performance.now();
  const result = await runner.runBeforePromptBuild({ prompt: "hello", messages: [] }, { sessionKey: "s" });
  const promptMs = performance.now() - promptStarted;
  assert.equal(result?.prependContext, undefined);
  assert.ok(promptMs < 1000, `recall held the prompt ${promptMs.toFixed(0)} ms`);

  const { manager, error } = await host.memoryCapabilities[0].runtime.getMemorySearchManager({ cfg: {}, agentId: "main" });
  assert.match(error, /not reachable/);
  // 50 tool calls and the prompt (no channel message opened this turn, so
  // before_prompt_build gives it): over the queue bound, or out of attempts
  await waitFor(() => manager.status().custom.capture.dropped === 51, 5_000);
  const stats = manager.status().custom.capture;
  assert.equal(stats.sent, 0);
  assert.equal(stats.dropped, 51);
  assert.equal(stats.queued, 0);
  assert.match(stats.lastError, /not reachable/);
  assert.equal(manager.status().vector.available, false);
  await assert.rejects(host.callTool("memory_search", { query: "anything" }), /palace sidecar at .* is not reachable/);
  assert.ok(host.logs.some(([level, m]) => level === "warn" && /palace (capture|recall)/.test(m)));
});

test("serialiseEvent cuts cycles and leaves out functions", () => {
  const event = { toolName: "x", params: {} };
  event.params.self = event;
  const json = JSON.parse(serialiseEvent("after_tool_call", event, { sessionId: "a", fn: () => 1, n: 2 }));
  assert.equal(json.params.self, "[circular]");
  assert.deepEqual(json.context, { sessionId: "a", n: 2 });
});
