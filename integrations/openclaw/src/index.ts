/**
 * palace as OpenClaw's memory plugin.
 *
 * - the memory slot: `registerMemoryCapability({ runtime })` with a search
 *   manager backed by palace search (src/memory.ts);
 * - recall: `before_prompt_build` puts the session's bootstrap, then the
 *   memories relevant to each prompt, in front of the prompt (src/recall.ts);
 * - capture: tool calls, messages, run ends, compactions, resets and session
 *   ends go to the sidecar's `POST /capture` in batches, never holding up the
 *   agent (src/capture.ts);
 * - tools: memory_search, memory_get, memory_store, memory_forget,
 *   memory_restore, experience_record, experience_verify (src/tools.ts);
 * - `openclaw palace status|search|get` (src/cli.ts).
 *
 * Heartbeat runs get no recall and are not captured; every run gives its request
 * from before_prompt_build (a channel message also from message_received, which
 * capture keeps once); the tool-search wrapper's repeat of a tool call is left out
 * (src/turns.ts).
 *
 * Everything goes through the palace sidecar (`scripts/vector-service.py
 * --workspace DIR`), whose URL and token come from the plugin config.
 * OpenClaw runs recall (before_prompt_build) and agent_end for a plugin it did
 * not bundle only with `plugins.entries.palace.hooks.allowConversationAccess:
 * true`; `palace install openclaw` asks for it.
 */

import { readFileSync } from "node:fs";

import { buildJsonPluginConfigSchema, definePluginEntry } from "openclaw/plugin-sdk/plugin-entry";

import { CaptureQueue } from "./capture.js";
import { CLI_DESCRIPTOR, registerPalaceCli } from "./cli.js";
import { PalaceClient } from "./client.js";
import { resolveConfig, type PalaceConfig } from "./config.js";
import { PalaceSearchManager, createMemoryRuntime } from "./memory.js";
import type { HookName, OpenClawPluginApi } from "./openclaw-types.js";
import { Recall } from "./recall.js";
import { createTools } from "./tools.js";
import { Turns } from "./turns.js";

export const PLUGIN_ID = "palace";

/** The hooks whose payloads are captured. */
export const CAPTURED_HOOKS = [
  "after_tool_call",
  "message_received",
  "agent_end",
  "before_compaction",
  "before_reset",
  "session_end",
] as const satisfies readonly HookName[];

export interface PalacePlugin {
  config: PalaceConfig;
  client: PalaceClient;
  capture: CaptureQueue;
  recall: Recall;
  manager: PalaceSearchManager;
  turns: Turns;
}

/** Whether OpenClaw's config still loads memory-core beside palace: with another
 * plugin in the memory slot it runs as that slot's dreaming companion, and its
 * memory_search and memory_get clash with palace's. */
export function memoryCoreStillLoads(openclawConfig: unknown): boolean {
  const plugins = (openclawConfig as { plugins?: { entries?: Record<string, { enabled?: unknown }>; deny?: unknown } })
    ?.plugins;
  const denied = Array.isArray(plugins?.deny) && plugins.deny.includes("memory-core");
  return !denied && plugins?.entries?.["memory-core"]?.enabled !== false;
}

/** Everything `register` wires, returned so that hosts and tests can reach it. */
export function registerPalace(api: OpenClawPluginApi): PalacePlugin {
  const config = resolveConfig(api.pluginConfig);
  const client = new PalaceClient({ url: config.url, token: config.token, timeoutMs: config.timeoutMs });
  const capture = new CaptureQueue(client, config.capture, api.logger);
  const recall = new Recall(client, config.recall, api.logger);
  const manager = new PalaceSearchManager(client, capture);
  const turns = new Turns();

  api.registerMemoryCapability({
    runtime: createMemoryRuntime(manager),
    promptBuilder: ({ availableTools }) =>
      availableTools.has("memory_search")
        ? [
            "## Memory (palace)",
            "Relevant long-term memories are added before your prompt inside <palace-memory>.",
            "Use memory_search for anything else you may have learned before, memory_get to open one by id,",
            "memory_store to save a durable fact or decision, experience_record for a lesson learned.",
          ]
        : [],
  });

  for (const tool of createTools(client)) api.registerTool(tool);

  // The host's own limit, a little above ours: recall gives up first and says why.
  api.on("before_prompt_build", (event, ctx) => {
    if (turns.isHeartbeat(ctx)) return;
    const prompt = turns.promptToCapture(event, ctx);
    if (prompt) capture.push("before_prompt_build", prompt, ctx);
    return recall.beforePromptBuild(event);
  }, { timeoutMs: config.recall.timeoutMs + 500 });

  // Capture: queue and return; the queue sends in the background.
  api.on("after_tool_call", (event, ctx) => {
    if (turns.isHeartbeat(ctx) || turns.isRepeatedToolCall(event, ctx)) return;
    capture.push("after_tool_call", event, ctx);
  });
  api.on("message_received", (event, ctx) => capture.push("message_received", event, ctx));
  api.on("before_compaction", (event, ctx) => capture.push("before_compaction", event, ctx));
  api.on("agent_end", (event, ctx) => {
    if (turns.isHeartbeat(ctx)) return;
    capture.push("agent_end", event, ctx);
    void capture.flush(); // a finished run is worth sending now
  });
  api.on("before_reset", (event, ctx) => {
    capture.push("before_reset", event, ctx);
    void capture.flush();
  });
  api.on("session_end", (event, ctx) => {
    capture.push("session_end", event, ctx);
    void capture.flush();
  });
  api.on("gateway_stop", () => capture.close());

  api.logger.debug?.(`palace memory: sidecar ${config.url}, recall ${config.recall.enabled ? "on" : "off"}, ` +
    `capture ${config.capture.enabled ? "on" : "off"}`);
  if (api.registrationMode === "full" && memoryCoreStillLoads(api.config)) {
    api.logger.warn("palace memory: memory-core is still enabled; with palace in the memory slot OpenClaw loads it " +
      "as the slot's dreaming companion and its memory_search and memory_get clash with palace's. Set " +
      "plugins.entries.memory-core.enabled to false (palace install openclaw does).");
  }
  return { config, client, capture, recall, manager, turns };
}

/** `openclaw palace …`, lazily: OpenClaw reads the descriptor (and the manifest's
 * cliCommands) for help, and runs the registrar only for a palace command. */
export function registerCli(api: OpenClawPluginApi): void {
  api.registerCli(({ program, config }) => {
    const settings = resolveConfig(api.pluginConfig);
    registerPalaceCli(program, new PalaceClient({ url: settings.url, token: settings.token, timeoutMs: settings.timeoutMs }),
      config);
  }, { descriptors: [CLI_DESCRIPTOR] });
}

/** openclaw.plugin.json, beside dist/ (and src/) in the package. */
export function readManifest(): { id: string; configSchema: Record<string, unknown>; contracts: { tools: string[] } } {
  return JSON.parse(readFileSync(new URL("../openclaw.plugin.json", import.meta.url), "utf8"));
}

export default definePluginEntry({
  id: PLUGIN_ID,
  name: "palace memory",
  description: "Long-term memory from a palace sidecar: search, recall before each prompt, session capture, memory tools",
  kind: "memory",
  // OpenClaw validates the config (and fills in defaults) with the manifest's schema.
  configSchema: () => buildJsonPluginConfigSchema(readManifest().configSchema),
  register(api) {
    registerCli(api);
    if (api.registrationMode === "cli-metadata") return; // help and routing need only the descriptor
    registerPalace(api);
  },
});

export { CaptureQueue, serialiseEvent, type CaptureStats } from "./capture.js";
export { CLI_ROOT, renderStatus, statusReport, type StatusReport } from "./cli.js";
export { PalaceClient, PalaceHttpError, PalaceUnavailableError } from "./client.js";
export { DEFAULTS, PalaceConfigError, resolveConfig, type PalaceConfig } from "./config.js";
export { PalaceSearchManager, createMemoryRuntime, idFromPath, textLines, toSearchResult } from "./memory.js";
export {
  PalaceVectorSearchProvider,
  type SearchFilter,
  type VectorSearchProvider,
  type VectorSearchResult,
} from "./provider.js";
export { Recall, opensSession, renderRecall } from "./recall.js";
export { TOOL_NAMES, createTools } from "./tools.js";
export { TOOL_SEARCH_WRAPPER, Turns } from "./turns.js";
export { classifyWorkspaceMemoryPaths, originOf } from "./workspace-memory.js";
