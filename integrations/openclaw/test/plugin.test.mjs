// The plugin against a real palace sidecar (scripts/vector-service.py with
// MiniLM), driven through what it registers: the memory capability, the tools
// and the hooks, dispatched by OpenClaw's own hook runner.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import entry, { CAPTURED_HOOKS, PalaceVectorSearchProvider, opensSession } from "../dist/index.js";
import { PLUGIN_DIR, createHostApi, startSidecar } from "./helpers.mjs";

const manifest = JSON.parse(readFileSync(`${PLUGIN_DIR}/openclaw.plugin.json`, "utf8"));

let sidecar;
let host;
before(async () => {
  sidecar = await startSidecar();
  host = createHostApi({ url: sidecar.url, recall: { bootstrapTokens: 400, promptTokens: 150 },
                         capture: { flushIntervalMs: 50 } });
  entry.register(host.api);
});
after(async () => {
  await sidecar?.stop();
});

describe("registration", () => {
  test("entry and manifest agree: id, kind, tools, config schema", () => {
    assert.equal(entry.id, "palace");
    assert.equal(entry.kind, "memory");
    assert.equal(manifest.id, entry.id);
    assert.equal(manifest.kind, "memory");
    assert.deepEqual([...host.tools.keys()].sort(), [...manifest.contracts.tools].sort());
    // OpenClaw's validator over the manifest schema fills in defaults and refuses typos.
    const parsed = entry.configSchema.safeParse({ url: "http://127.0.0.1:9", recall: { promptTokens: 300 } });
    assert.equal(parsed.success, true);
    assert.equal(parsed.data.recall.bootstrapTokens, 1500);
    assert.equal(entry.configSchema.safeParse({ recal: {} }).success, false);
  });

  test("one memory capability with a runtime; recall and capture hooks", () => {
    assert.equal(host.memoryCapabilities.length, 1);
    const { runtime, promptBuilder } = host.memoryCapabilities[0];
    assert.equal(typeof runtime.getMemorySearchManager, "function");
    assert.deepEqual(runtime.resolveMemoryBackendConfig({ cfg: {}, agentId: "main" }), { backend: "builtin" });
    const hooks = host.typedHooks.map((h) => h.hookName);
    for (const name of ["before_prompt_build", ...CAPTURED_HOOKS]) assert.ok(hooks.includes(name), name);
    assert.match(promptBuilder({ availableTools: new Set(["memory_search"]) }).join("\n"), /memory_search/);
  });
});

describe("tools and the memory slot", () => {
  let stored;
  test("memory_store, then the search manager finds it with OpenClaw's result shape", async () => {
    const result = await host.callTool("memory_store", {
      content: "The staging database is called kestrel-db and lives on host orca.",
      tags: ["ops"], location: "projects/infra", type: "fact",
    });
    stored = result.details;
    assert.match(result.content[0].text, /^Stored \[[0-9a-f]+\] projects\/infra/);
    assert.equal(stored.source, "openclaw");

    const { manager, error } = await host.memoryCapabilities[0].runtime.getMemorySearchManager({ cfg: {}, agentId: "main" });
    assert.equal(error, undefined);
    const hits = await manager.search("what is the staging database called", { maxResults: 3 });
    const hit = hits[0];
    assert.equal(hit.path, `memory/palace/projects/infra/${stored.id}.md`);
    // the line numbers are the file's: the memory's text, below its frontmatter
    const fileLines = readFileSync(join(sidecar.workspace, hit.path), "utf8").split("\n");
    assert.ok(hit.startLine > 5, `startLine ${hit.startLine} points into the frontmatter`);
    assert.equal(hit.endLine, hit.startLine);
    assert.equal(fileLines[hit.startLine - 1], stored.content);
    assert.equal(hit.source, "memory");
    assert.match(hit.snippet, /kestrel-db/);
    assert.ok(hit.score > 0 && hit.score <= 1.5);
    assert.equal(hit.citation, `${hit.path}#L${hit.startLine}-L${hit.endLine}`);
    assert.deepEqual(await manager.search("what is the staging database called", { minScore: 5 }), []);

    const file = await manager.readFile({ relPath: hit.path });
    assert.equal(file.status, "ok");
    assert.equal(file.text, stored.content);
    assert.deepEqual(await manager.readFile({ relPath: "memory/palace/general/nope.md" }),
      { status: "not_found", text: "", path: "memory/palace/general/nope.md" });
    assert.equal((await manager.readFile({ relPath: "../../etc/passwd" })).status, "not_found");
  });

  test("readFile pages through a long memory by the lines its citation names", async () => {
    const content = Array.from({ length: 30 }, (_, i) => `line ${i + 1} of the release checklist`).join("\n");
    const { details } = await host.callTool("memory_store", { content, location: "projects/release" });
    const { manager } = await host.memoryCapabilities[0].runtime.getMemorySearchManager({ cfg: {}, agentId: "main" });
    const [hit] = await manager.search("release checklist line", { maxResults: 1 });
    const relPath = `memory/palace/projects/release/${details.id}.md`;
    assert.equal(hit.path, relPath);
    assert.equal(hit.endLine - hit.startLine, 29);
    const file = readFileSync(join(sidecar.workspace, relPath), "utf8").split("\n");
    assert.equal(file[hit.startLine - 1 + 10], "line 11 of the release checklist");
    const page = await manager.readFile({ relPath, from: hit.startLine + 10, lines: 5 });
    assert.equal(page.text, "line 11 of the release checklist\nline 12 of the release checklist\n" +
      "line 13 of the release checklist\nline 14 of the release checklist\nline 15 of the release checklist");
    assert.equal(page.from, hit.startLine + 10);
    assert.equal(page.truncated, true);
    assert.equal(page.nextFrom, hit.startLine + 15);
    // from the top (no from, or a line of the frontmatter): the text's first line
    assert.equal((await manager.readFile({ relPath, lines: 1 })).text, "line 1 of the release checklist");
    assert.equal((await manager.readFile({ relPath, from: 1, lines: 1 })).from, hit.startLine);
    const end = await manager.readFile({ relPath, from: hit.endLine });
    assert.deepEqual([end.text, end.truncated], ["line 30 of the release checklist", undefined]);
  });

  test("status and availability probes report the sidecar's model", async () => {
    const { manager } = await host.memoryCapabilities[0].runtime.getMemorySearchManager({ cfg: {}, agentId: "main", purpose: "status" });
    assert.deepEqual(await manager.probeEmbeddingAvailability().then((p) => p.ok), true);
    assert.equal(await manager.probeVectorAvailability(), true);
    assert.equal(manager.getCachedEmbeddingAvailability().cached, true);
    const status = manager.status();
    assert.equal(status.backend, "builtin");
    assert.equal(status.provider, "palace");
    const health = await (await fetch(sidecar.url + "/health")).json();
    assert.equal(status.model, health.model);
    assert.equal(health.workspace, true);  // served, but its path is not disclosed
    assert.equal(status.workspaceDir, undefined);
    assert.equal(status.vector.available, true);
    assert.equal(status.vector.dims, 384);
    assert.equal(status.custom.sidecar, sidecar.url);
  });

  test("memory_search, memory_get, memory_forget, memory_restore", async () => {
    const found = await host.callTool("memory_search", { query: "kestrel-db host", maxResults: 2 });
    assert.match(found.content[0].text, new RegExp(`^\\[${stored.id}\\]`));
    const got = await host.callTool("memory_get", { id: stored.id });
    assert.equal(got.details.content, stored.content);
    assert.match((await host.callTool("memory_forget", { id: stored.id })).content[0].text, /trash/);
    await assert.rejects(host.callTool("memory_get", { id: stored.id }), /in the trash/);
    const restored = await host.callTool("memory_restore", { id: stored.id });
    assert.equal(restored.details.status, "active");
    await assert.rejects(host.callTool("memory_store", { content: "" }), /content must be a non-empty string/);
  });

  test("experience_record and experience_verify", async () => {
    const recorded = await host.callTool("experience_record", {
      whatHappened: "npm ci failed: EACCES on ~/.npm", whatWorked: "npm ci --cache /tmp/npm-cache" });
    const id = recorded.details.id;
    await host.callTool("experience_verify", { id, effective: true });
    const verified = await host.callTool("experience_verify", { id, effective: true, note: "again on CI" });
    assert.equal(verified.details.stats.verified, true);
    assert.match(verified.content[0].text, /worked 2×.*verified/);
  });
});

describe("recall through before_prompt_build", () => {
  test("bootstrap at session start, then only relevant memories within the budget", async () => {
    await host.callTool("memory_store", { content: "Session 2026-11-29: moved CI to the new runners; next: retire the old ones.",
                                          type: "session" });
    await host.callTool("memory_store", { content: "Retire the old CI runners", type: "task" });
    await host.callTool("memory_store", { content: "We decided the CI runners run Debian 13 with Python 3.11.",
                                          type: "decision", location: "projects/ci" });
    const runner = host.hookRunner();
    const ctx = { sessionKey: "agent:main:s1", sessionId: "s1", agentId: "main" };

    const first = await runner.runBeforePromptBuild(
      { prompt: "which OS do the CI runners use?", currentUserMessage: "which OS do the CI runners use?", messages: [] }, ctx);
    assert.match(first.prependContext, /^<palace-memory kind="bootstrap"/);
    assert.match(first.prependContext, /# Recent sessions[\s\S]*moved CI to the new runners/);
    assert.match(first.prependContext, /# Open tasks[\s\S]*Retire the old CI runners/);
    assert.match(first.prependContext, /Debian 13/);
    assert.ok(Number(/tokens="(\d+)"/.exec(first.prependContext)[1]) <= 400);

    // the history OpenClaw passes: the messages before this prompt (as the real gateway sends them)
    const history = [{ role: "user", content: "which OS do the CI runners use?" },
                     { role: "assistant", content: [{ type: "text", text: "Debian 13." }] }];
    const second = await runner.runBeforePromptBuild(
      { prompt: "and which Python?", currentUserMessage: "what Python version do the CI runners have", messages: history }, ctx);
    assert.match(second.prependContext, /^<palace-memory kind="context"/);
    assert.doesNotMatch(second.prependContext, /# Open tasks/);
    assert.match(second.prependContext, /Python 3\.11/);
    assert.ok(Number(/tokens="(\d+)"/.exec(second.prependContext)[1]) <= 150);

    // A reset session (its history empty again) starts with a bootstrap, whichever
    // plugin instance saw the reset; a later prompt of a session with a history never
    // does, even in a fresh instance (a gateway restarted mid-session).
    const again = await runner.runBeforePromptBuild({ prompt: "hello", messages: [] }, ctx);
    assert.match(again.prependContext, /kind="bootstrap"/);
    assert.equal(opensSession(history), false);
    assert.equal(opensSession([{ role: "user", content: "hello" }]), true); // no answer yet
  });
});

test("the seed's VectorSearchProvider shape: index, search, remove", async () => {
  const provider = new PalaceVectorSearchProvider({ url: sidecar.url });
  await provider.index("standup", "Standup moved to 10:30 from next Monday.", { tags: ["work"], path: "memory/2026-11-30.md" });
  const hits = await provider.search("when is the standup", 3, { tags: ["work"] });
  assert.equal(hits[0].id, "standup");
  assert.equal(hits[0].metadata.path, "memory/2026-11-30.md");
  await provider.remove("standup");
  assert.deepEqual((await provider.search("when is the standup", 3, { tags: ["work"] })).map((h) => h.id), []);
});

test("capture into the real sidecar's POST /capture", async () => {
  const { manager } = await host.memoryCapabilities[0].runtime.getMemorySearchManager({ cfg: {}, agentId: "main" });
  await manager.close(); // flushes what earlier tests queued, so it is not counted below
  const before = { ...manager.status().custom.capture };
  const runner = host.hookRunner();
  const ctx = { sessionKey: "agent:main:cap", sessionId: "cap-1", agentId: "main", workspaceDir: "/srv/app" };
  await runner.runMessageReceived({ from: "user", content: "Please fix the flaky upload test in uploader.py", sessionKey: ctx.sessionKey },
    { channelId: "cli", sessionKey: ctx.sessionKey });
  await runner.runAfterToolCall({ toolName: "exec", params: { command: "pytest tests/test_uploader.py" },
    result: "FAILED tests/test_uploader.py::test_retry - TimeoutError: upload took 31s", durationMs: 31000 },
    { toolName: "exec", sessionKey: ctx.sessionKey, sessionId: ctx.sessionId });
  await runner.runAgentEnd({ messages: [{ role: "user", content: "Please fix the flaky upload test" },
    { role: "assistant", content: "Fixed: the retry now waits with backoff; next: run the suite on CI." }], success: true }, ctx);
  await manager.close(); // flushes the capture queue
  const stats = manager.status().custom.capture;
  assert.equal(stats.dropped - before.dropped, 0, stats.lastError ?? "");
  assert.equal(stats.sent - before.sent, 3); // the counters run for the plugin's life: earlier tests sent some
  assert.ok(stats.stored - before.stored >= 1);
  const found = await (await fetch(sidecar.url + "/memories/search", { method: "POST",
    body: JSON.stringify({ query: "flaky upload test TimeoutError" }) })).json();
  assert.ok(found.count >= 1);
  // one observation: the prompt (whose context has only the sessionKey) opened the turn
  // the tool call and the run end (sessionId cap-1) closed
  const observation = found.results.find((hit) => hit.type === "observation");
  assert.ok(observation, JSON.stringify(found.results.map((hit) => hit.type)));
  assert.match(observation.content, /flaky upload test in uploader\.py/);
  assert.match(observation.content, /TimeoutError/);
});
