// The plugin inside the real OpenClaw (the `openclaw` npm package, run with Node >= 24.16):
// installed as docs/integrations.md says (`openclaw plugins install --link` of the plugin as npm packs it, then
// `palace install openclaw --allow-conversation-access`), a gateway local on loopback
// with a token, a real palace sidecar (MiniLM), and a stub model on loopback whose
// requests show the prompt OpenClaw built. Between the plugin and the sidecar a proxy
// records what reaches POST /capture.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { REPO, startSidecar, waitFor } from "./helpers.mjs";
import { createOpenClawHost, packPlugin, parseJsonOutput, startSidecarRecorder } from "./host/openclaw-host.mjs";
import { startStubModel } from "./host/stub-model.mjs";

const PYTHON = process.env.PALACE_PYTHON ?? join(REPO, ".venv", "bin", "python");
const USER_FACT = "The user is Quillon Marbury, who wants answers as short bullet lists.";
const LONG_TERM_FACT = "The release train leaves every second Tuesday (codename zephyr-otter).";
const STORED_FACT = "The staging database is called kestrel-db and lives on host orca.";
const HOOKS = ["before_prompt_build", "after_tool_call", "message_received", "agent_end",
               "before_compaction", "before_reset", "session_end", "gateway_stop"];
const TOOLS = ["memory_search", "memory_get", "memory_store", "memory_forget", "memory_restore",
               "experience_record", "experience_verify"];

let sidecar;
let recorder;
let model;
let host;
const started = Date.now();
const log = (what) => console.log(`# [${((Date.now() - started) / 1000).toFixed(1)} s] ${what}`);

async function openclaw(args, { expectCode = 0, timeoutMs } = {}) {
  const result = await host.openclaw(args, timeoutMs ? { timeoutMs } : {});
  log(`openclaw ${args.slice(0, 3).join(" ")} → ${result.code}`);
  assert.equal(result.code, expectCode, `openclaw ${args.join(" ")}\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** One `openclaw agent` turn; the chat requests it made, and its run id. */
async function agentTurn(message) {
  const before = model.chats().length;
  const result = await openclaw(["agent", "--agent", "main", "--message", message, "--json"], { timeoutMs: 240_000 });
  const answer = parseJsonOutput(result.stdout);
  assert.equal(answer.status, "ok", result.stdout);
  return { runId: answer.runId, chats: model.chats().slice(before), answer };
}

/** The text of every observation file in the palace (Markdown on disk). */
function observationFiles() {
  const root = join(sidecar.workspace, "memory", "palace");
  return readdirSync(root, { recursive: true }).filter((path) => String(path).endsWith(".md"))
    .map((path) => readFileSync(join(root, String(path)), "utf8"))
    .filter((text) => /^type: "?observation"?$/m.test(text.slice(0, text.indexOf("\n---\n", 4))));
}

function eventsOf(hook) {
  return recorder.events().filter((event) => event.hook === hook);
}

before(async () => {
  model = await startStubModel();
  const workspace = mkdtempSync(join(tmpdir(), "palace-openclaw-ws-"));
  writeFileSync(join(workspace, "USER.md"), `# USER.md\n\n${USER_FACT}\n`);
  writeFileSync(join(workspace, "MEMORY.md"), `# MEMORY.md\n\n${LONG_TERM_FACT}\n`);
  host = await createOpenClawHost({ modelBaseUrl: model.baseUrl, workspace });
  const plugin = packPlugin(join(host.root, "plugin"));
  // As docs/integrations.md says: OpenClaw links the plugin (a user reviews its
  // capabilities when asked; here the flags say yes), then palace configures it.
  // The sidecar loads its model meanwhile.
  [sidecar] = await Promise.all([startSidecar({ workspace }),
    openclaw(["plugins", "install", "--link", plugin, "--force", "--accept-capabilities"])]);
  recorder = await startSidecarRecorder(sidecar.url);
  log("sidecar ready, plugin linked");
  const installed = await host.exec(PYTHON, ["-m", "palace", "install", "openclaw", "--workspace", sidecar.workspace,
    "--url", recorder.url, "--plugin-dir", plugin, "--allow-conversation-access"],
  { env: { PYTHONPATH: process.env.PYTHONPATH ?? REPO } });
  assert.equal(installed.code, 0, installed.stdout + installed.stderr);
  log("palace install openclaw");
}, { timeout: 600_000 });

after(async () => {
  // PALACE_HOST_DUMP=FILE: what reached /capture, for looking into a failure
  if (process.env.PALACE_HOST_DUMP) writeFileSync(process.env.PALACE_HOST_DUMP, JSON.stringify(recorder?.events(), null, 1));
  await host?.stop();
  await Promise.all([sidecar?.stop(), recorder?.stop(), model?.stop()]);
});

describe("palace inside the real OpenClaw", { timeout: 900_000 }, () => {
  test("the install leaves the config the docs describe", () => {
    const plugins = host.config().plugins;
    assert.equal(plugins.slots.memory, "palace");
    assert.deepEqual(plugins.entries.palace.hooks, { allowConversationAccess: true });
    assert.equal(plugins.entries.palace.config.url, recorder.url);
    assert.equal(plugins.entries["memory-core"].enabled, false);
  });

  // each OpenClaw command loads the whole host (seconds on a busy machine): these two
  // read the config only, so they run side by side
  describe("before the gateway starts", { concurrency: true }, () => {
    test("plugins inspect --runtime: every hook and tool, nothing blocked", async () => {
      const inspected = parseJsonOutput((await openclaw(["plugins", "inspect", "palace", "--runtime", "--json"])).stdout);
      assert.equal(inspected.plugin.status, "loaded");
      assert.equal(inspected.plugin.memorySlotSelected, true);
      assert.deepEqual(inspected.typedHooks.map((hook) => hook.name).sort(), [...HOOKS].sort());
      assert.deepEqual(inspected.tools.flatMap((tool) => tool.names).sort(), [...TOOLS].sort());
      assert.deepEqual(inspected.cliCommands.map((command) => command.name ?? command), ["palace"]);
      const palaceDiagnostics = inspected.diagnostics.filter((d) => d.pluginId === "palace" || /blocked/i.test(d.message));
      assert.deepEqual(palaceDiagnostics, []);
    });

    test("plugins doctor is clean", async () => {
      const doctor = await openclaw(["plugins", "doctor"]);
      assert.match(doctor.stdout, /checks passed/);
    });
  });

  test("the gateway starts with palace loaded", { timeout: 300_000 }, async () => {
    await host.startGateway();
    log("gateway listening");
    assert.match(host.gatewayLog(), /http server listening \(\d+ plugins: [^)]*\bpalace\b/);
  });

  let storedId;
  test("/tools/invoke memory_store and memory_search", async () => {
    const stored = await host.invokeTool("memory_store", { content: STORED_FACT, type: "fact", location: "projects/infra" });
    assert.equal(stored.status, 200, JSON.stringify(stored.body));
    const text = JSON.stringify(stored.body);
    storedId = /Stored \[([0-9a-f]+)\]/.exec(text)?.[1];
    assert.ok(storedId, text);
    const found = await host.invokeTool("memory_search", { query: "what is the staging database called" });
    assert.equal(found.status, 200, JSON.stringify(found.body));
    assert.match(JSON.stringify(found.body), new RegExp(`\\[${storedId}\\][^"]*projects/infra[\\s\\S]*kestrel-db`));
  });

  test("gateway call memory.search: provider palace, citations at the text in the file", async () => {
    const answer = await host.call("memory.search", { query: "staging database kestrel" });
    assert.equal(answer.provider, "palace");
    const hit = answer.results.find((result) => result.path.endsWith(`/${storedId}.md`));
    assert.ok(hit, JSON.stringify(answer));
    assert.equal(hit.citation, `${hit.path}#L${hit.startLine}-L${hit.endLine}`);
    const file = readFileSync(join(sidecar.workspace, hit.path), "utf8").split("\n");
    assert.equal(file[0], "---");
    assert.deepEqual(file.slice(hit.startLine - 1, hit.endLine), [STORED_FACT]);
  });

  test("an openclaw agent turn: recall, USER.md and MEMORY.md in the prompt; captured once, with its request",
    { timeout: 300_000 }, async () => {
      const request = "What is the staging database called?";
      const turn = await agentTurn(request);
      assert.equal(turn.chats.length, 1);
      const prompt = turn.chats[0].text;
      assert.match(prompt, /<palace-memory kind="bootstrap" tokens="\d+">[\s\S]*kestrel-db[\s\S]*<\/palace-memory>/);
      assert.ok(prompt.includes(USER_FACT), "USER.md is not in the prompt");
      assert.ok(prompt.includes(LONG_TERM_FACT), "MEMORY.md is not in the prompt");
      await waitFor(() => eventsOf("agent_end").some((e) => e.context.runId === turn.runId), 30_000);
      const ends = eventsOf("agent_end").filter((e) => e.context.runId === turn.runId);
      assert.equal(new Set(ends.map((e) => e.batchKey)).size, 1, "agent_end reached /capture in two batches");
      assert.equal(ends.length, 1);
      // no channel message opened this turn: its request came with before_prompt_build
      const asked = eventsOf("before_prompt_build").filter((e) => e.context.runId === turn.runId);
      assert.deepEqual(asked.map((e) => e.currentUserMessage), [request]);
      const observation = await waitFor(async () => {
        const found = await (await fetch(`${sidecar.url}/memories/search`, { method: "POST",
          body: JSON.stringify({ query: "staging database called", type: "observation" }) })).json();
        return found.results.find((hit) => hit.content.includes(request));
      }, 30_000);
      assert.match(observation.content, /Noted\./); // the turn's answer beside its request
    });

  test("a tool called through tool search is captured once", { timeout: 300_000 }, async () => {
    const turn = await agentTurn('Look it up [[tool tool_call {"id":"memory_search","args":{"query":"release train"}}]]');
    assert.equal(turn.chats.length, 2); // the call, then the answer after its result
    assert.match(turn.chats[1].text, /zephyr-otter|No memories found|kestrel/);
    await waitFor(() => eventsOf("agent_end").some((e) => e.context.runId === turn.runId), 30_000);
    const calls = eventsOf("after_tool_call").filter((e) => e.context.runId === turn.runId);
    assert.deepEqual(calls.map((e) => e.toolName), ["memory_search"]);
    assert.deepEqual(calls[0].params, { query: "release train" });
  });

  test("chat.send reaches message_received and before_prompt_build; the palace keeps its request once",
    { timeout: 300_000 }, async () => {
      const idempotencyKey = `chat-${Date.now()}`;
      const request = "Remember: the VPN is wg-orca.";
      const sent = await host.call("chat.send", { sessionKey: "agent:main:main", message: request, idempotencyKey });
      assert.equal(sent.status, "started");
      await waitFor(() => eventsOf("agent_end").some((e) => e.context.runId === idempotencyKey), 120_000);
      // message_received is fired and forgotten by the channel dispatch: it may come late
      const received = await waitFor(() => {
        const found = eventsOf("message_received").filter((e) => e.messageId === idempotencyKey);
        return found.length ? found : null;
      }, 10_000);
      assert.deepEqual(received.map((e) => e.content), [request]);
      // the run gives the same request (OpenClaw dispatches the two hooks to different
      // plugin instances, so the plugin cannot leave one out); capture keeps it once
      assert.deepEqual(eventsOf("before_prompt_build").filter((e) => e.context.runId === idempotencyKey)
        .map((e) => e.currentUserMessage), [request]);
      assert.equal(eventsOf("agent_end").filter((e) => e.context.runId === idempotencyKey).length, 1);
      const stored = await waitFor(() => {
        const found = observationFiles().filter((text) => text.includes("wg-orca"));
        return found.length ? found : null;
      }, 30_000);
      // one observation (a second one would be the request on its own, without an answer)
      assert.equal(stored.length, 1, stored.join("\n----\n"));
      assert.match(stored[0], /\n---\n+Remember: the VPN is wg-orca\.\n+Answer: Noted\./);
    });

  test("a heartbeat run gets no recall and is not captured", { timeout: 300_000 }, async () => {
    const marker = "palace-heartbeat-check-7c1";
    const endsBefore = eventsOf("agent_end").length;
    const eventsBefore = recorder.events().length;
    await openclaw(["system", "event", "--text", marker, "--mode", "now", "--json"]);
    const heartbeat = await waitFor(() => model.chats().find((chat) => chat.text.includes(marker)), 120_000);
    const lastUser = [...heartbeat.body.messages].reverse().find((m) => m.role === "user");
    assert.doesNotMatch(JSON.stringify(lastUser), /<palace-memory/);
    await new Promise((ok) => setTimeout(ok, 5_000)); // the run ends; capture would send within a second
    assert.equal(eventsOf("agent_end").length, endsBefore);
    assert.deepEqual(recorder.events().slice(eventsBefore).filter((e) => e.context?.trigger === "heartbeat"), []);
  });

  test("sessions.compact and sessions.reset reach before_compaction, before_reset and session_end",
    { timeout: 300_000 }, async () => {
      const compacted = await host.call("sessions.compact", { key: "agent:main:main" });
      assert.equal(compacted.ok, true);
      await waitFor(() => eventsOf("before_compaction").length === 1, 30_000);
      const reset = await host.call("sessions.reset", { key: "agent:main:main" });
      assert.equal(reset.ok, true);
      await waitFor(() => eventsOf("before_reset").length === 1 && eventsOf("session_end").length === 1, 30_000);
      assert.equal(eventsOf("session_end")[0].reason, "reset");
      // the reset gave the conversation a new transcript, whose first prompt gets a bootstrap
      const turn = await agentTurn("What do you know about the staging database?");
      assert.match(turn.chats[0].text, /<palace-memory kind="bootstrap"[\s\S]*kestrel-db/);
    });

  describe("openclaw palace, the plugin's own commands", { concurrency: true }, () => {
    test("status: the sidecar, the memory slot, the consent, memory-core off", async () => {
      const status = JSON.parse((await openclaw(["palace", "status", "--json"])).stdout);
      assert.deepEqual([status.ok, status.memorySlot, status.conversationAccess, status.memoryCore],
        [true, "palace", true, "disabled"], JSON.stringify(status));
    });
    test("search", async () => {
      const found = await openclaw(["palace", "search", "staging", "database"]);
      assert.match(found.stdout, new RegExp(`\\[${storedId}\\] projects/infra[\\s\\S]*kestrel-db`));
    });
  });

  test("recall never waited for the sidecar past its limit", () => {
    const recalls = recorder.timings.filter((t) => t.path === "/bootstrap" || t.path === "/context");
    // the first turn, the tool-search turn, chat.send, the turn after the reset
    assert.deepEqual(recalls.map((t) => t.path), ["/bootstrap", "/context", "/context", "/bootstrap"]);
    log(`recall requests (ms): ${recalls.map((t) => `${t.path} ${t.ms.toFixed(0)}`).join(", ")}`);
    assert.doesNotMatch(host.gatewayLog(), /palace recall skipped/);
  });
});
