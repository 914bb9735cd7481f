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
 *   memory_restore, experience_record, experience_verify (src/tools.ts).
 *
 * Everything goes through the palace sidecar (`scripts/vector-service.py
 * --workspace DIR`), whose URL and token come from the plugin config.
 */

import { readFileSync } from "node:fs";

import { buildJsonPluginConfigSchema, definePluginEntry } from "openclaw/plugin-sdk/plugin-entry";

import { CaptureQueue } from "./capture.js";
import { PalaceClient } from "./client.js";
import { resolveConfig, type PalaceConfig } from "./config.js";
import { PalaceSearchManager, createMemoryRuntime } from "./memory.js";
import type { HookName, OpenClawPluginApi } from "./openclaw-types.js";
import { Recall } from "./recall.js";
import { createTools } from "./tools.js";

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
}

/** Everything `register` wires, returned so that hosts and tests can reach it. */
export function registerPalace(api: OpenClawPluginApi): PalacePlugin {
  const config = resolveConfig(api.pluginConfig);
  const client = new PalaceClient({ url: config.url, token: config.token, timeoutMs: config.timeoutMs });
  const capture = new CaptureQueue(client, config.capture, api.logger);
  const recall = new Recall(client, config.recall, api.logger);
  const manager = new PalaceSearchManager(client, capture);

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
  api.on("before_prompt_build", (event, ctx) => recall.beforePromptBuild(event, ctx),
    { timeoutMs: config.recall.timeoutMs + 500 });

  // Capture: queue and return; the queue sends in the background.
  api.on("after_tool_call", (event, ctx) => capture.push("after_tool_call", event, ctx));
  api.on("message_received", (event, ctx) => capture.push("message_received", event, ctx));
  api.on("before_compaction", (event, ctx) => capture.push("before_compaction", event, ctx));
  api.on("agent_end", (event, ctx) => {
    capture.push("agent_end", event, ctx);
    void capture.flush(); // a finished run is worth sending now
  });
  api.on("before_reset", (event, ctx) => {
    capture.push("before_reset", event, ctx);
    recall.forget(ctx.sessionKey ?? ctx.sessionId);
    void capture.flush();
  });
  api.on("session_end", (event, ctx) => {
    capture.push("session_end", event, ctx);
    recall.forget(event.sessionKey ?? ctx.sessionKey);
    recall.forget(event.sessionId);
    void capture.flush();
  });
  api.on("gateway_stop", () => capture.close());

  api.logger.info(`palace memory: sidecar ${config.url}, recall ${config.recall.enabled ? "on" : "off"}, ` +
    `capture ${config.capture.enabled ? "on" : "off"}`);
  return { config, client, capture, recall, manager };
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
    registerPalace(api);
  },
});

export { CaptureQueue, serialiseEvent, type CaptureStats } from "./capture.js";
export { PalaceClient, PalaceHttpError, PalaceUnavailableError } from "./client.js";
export { DEFAULTS, PalaceConfigError, resolveConfig, type PalaceConfig } from "./config.js";
export { PalaceSearchManager, createMemoryRuntime, idFromPath, toSearchResult } from "./memory.js";
export {
  PalaceVectorSearchProvider,
  type SearchFilter,
  type VectorSearchProvider,
  type VectorSearchResult,
} from "./provider.js";
export { Recall, renderRecall } from "./recall.js";
export { TOOL_NAMES, createTools } from "./tools.js";
