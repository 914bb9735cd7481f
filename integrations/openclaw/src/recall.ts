/**
 * Recall: before each prompt is built, the memories it needs go in front of it.
 *
 * The first prompt of a session gets palace's bootstrap (essence, recent
 * session summaries, open tasks, memories relevant to the prompt) within
 * `recall.bootstrapTokens`; later prompts get the memories relevant to them
 * within `recall.promptTokens`. A sidecar that is slow or down costs at most
 * `recall.timeoutMs` and the prompt goes on without memories.
 */

import type { ContextResponse, PalaceClient } from "./client.js";
import type { RecallConfig } from "./config.js";
import type { HookContext, HookEvent, HookResult, PluginLogger } from "./openclaw-types.js";

const MAX_SESSIONS_REMEMBERED = 1_000;

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

export class Recall {
  /** Sessions that already had their bootstrap, oldest first. */
  private readonly bootstrapped = new Set<string>();

  constructor(
    private readonly client: PalaceClient,
    private readonly config: RecallConfig,
    private readonly logger?: PluginLogger,
  ) {}

  async beforePromptBuild(
    event: HookEvent<"before_prompt_build">,
    ctx: HookContext<"before_prompt_build">,
  ): Promise<HookResult<"before_prompt_build">> {
    if (!this.config.enabled) return;
    const session = ctx.sessionKey ?? ctx.sessionId ?? "default";
    const query = (event.currentUserMessage ?? event.prompt ?? "").trim();
    const first = !this.bootstrapped.has(session);
    const options = { timeoutMs: this.config.timeoutMs };
    let result: ContextResponse | null = null;
    try {
      if (first) {
        result = await this.client.bootstrap(query || undefined, this.config.bootstrapTokens, options);
        this.remember(session);
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

  /** A session that ends or is reset starts with a bootstrap again. */
  forget(sessionKeyOrId: string | undefined): void {
    if (sessionKeyOrId) this.bootstrapped.delete(sessionKeyOrId);
  }

  private remember(session: string): void {
    this.bootstrapped.add(session);
    if (this.bootstrapped.size > MAX_SESSIONS_REMEMBERED) {
      const oldest = this.bootstrapped.values().next().value;
      if (oldest !== undefined) this.bootstrapped.delete(oldest);
    }
  }
}
