/**
 * Recall: before each prompt is built, the memories it needs go in front of it.
 *
 * The first prompt of a session gets palace's bootstrap (essence, recent
 * session summaries, open tasks, memories relevant to the prompt) within
 * `recall.bootstrapTokens`; later prompts get the memories relevant to them
 * within `recall.promptTokens`. A sidecar that is slow or down costs at most
 * `recall.timeoutMs` and the prompt goes on without memories.
 *
 * "The first prompt of a session" is read from the session's history that
 * OpenClaw passes with the event (`messages`, the messages before this prompt):
 * no answer in it yet. A new session, `/new`, `/reset` and `sessions.reset` all
 * start with an empty history. Nothing is remembered here, because OpenClaw may
 * run a session's hooks in different instances of the plugin (the real gateway
 * does), and a gateway restart in the middle of a session needs no new bootstrap.
 */

import type { ContextResponse, PalaceClient } from "./client.js";
import type { RecallConfig } from "./config.js";
import type { HookEvent, HookResult, PluginLogger } from "./openclaw-types.js";

export function renderRecall(result: ContextResponse, kind: "bootstrap" | "context"): string {
  const intro = kind === "bootstrap"
    ? "What palace (long-term memory) knows for this session"
    : "Memories from palace relevant to this message";
  return [
    `<palace-memory kind="${kind}" tokens="${result.tokens_used}">`,
    `${intro}. Cite a memory by its [id]; memory_get returns its full text.`,
    "",
    result.text,
    "</palace-memory>",
  ].join("\n");
}

/** Whether a session's history holds no answer yet, so this prompt opens the session. */
export function opensSession(messages: unknown): boolean {
  if (!Array.isArray(messages)) return true;
  return !messages.some((message) => (message as { role?: unknown } | null)?.role === "assistant");
}

export class Recall {
  constructor(
    private readonly client: PalaceClient,
    private readonly config: RecallConfig,
    private readonly logger?: PluginLogger,
  ) {}

  async beforePromptBuild(event: HookEvent<"before_prompt_build">): Promise<HookResult<"before_prompt_build">> {
    if (!this.config.enabled) return;
    const query = (event.currentUserMessage ?? event.prompt ?? "").trim();
    const first = opensSession(event.messages);
    const options = { timeoutMs: this.config.timeoutMs };
    let result: ContextResponse | null = null;
    try {
      if (first) {
        result = await this.client.bootstrap(query || undefined, this.config.bootstrapTokens, options);
      } else if (query) {
        result = await this.client.context(query, this.config.promptTokens, options);
      }
    } catch (error) {
      this.logger?.warn(`palace recall skipped: ${(error as Error).message}`);
      return;
    }
    if (!result || !result.text.trim()) return;
    return { prependContext: renderRecall(result, first ? "bootstrap" : "context") };
  }
}
