/**
 * What the hooks of one agent run add up to, as far as memory cares:
 *
 * - a heartbeat run (`ctx.trigger: "heartbeat"`) is OpenClaw polling itself, not
 *   a conversation: it gets no recall and none of its events are captured;
 * - a turn's request reaches capture through `before_prompt_build`, once per run:
 *   it fires for every run, also one no channel message opened (`openclaw agent`,
 *   a cron run), where `message_received` never fires. A channel message gives its
 *   request through both hooks, in either order, and OpenClaw may dispatch them to
 *   different instances of this plugin (the real gateway does), so no state here
 *   could tell the two apart: palace's capture keeps a request repeated within its
 *   open turn once;
 * - in OpenClaw's tool-search mode the model calls a tool through the `tool_call`
 *   wrapper, and `after_tool_call` fires for the tool and again for the wrapper:
 *   the wrapper's event repeats the call and is left out.
 *
 * State is kept per run id, bounded, so a long-lived gateway
 * never grows it without end.
 */

import type { HookContext, HookEvent } from "./openclaw-types.js";

const REMEMBERED = 1_000;
/** OpenClaw's tool-search wrapper, whose after_tool_call repeats the wrapped call. */
export const TOOL_SEARCH_WRAPPER = "tool_call";

/** A set that forgets its oldest members beyond `limit`. */
class BoundedSet<T> {
  private readonly items = new Set<T>();
  constructor(private readonly limit = REMEMBERED) {}
  add(item: T): void {
    this.items.delete(item);
    this.items.add(item);
    if (this.items.size > this.limit) this.items.delete(this.items.values().next().value as T);
  }
  has(item: T): boolean {
    return this.items.has(item);
  }
  delete(item: T): boolean {
    return this.items.delete(item);
  }
}

/** The tool a `tool_call` wrapper ran: its `id` (a name or a search result id such as
 * `openclaw:palace:memory_search`) or `name`. */
function wrappedToolName(params: unknown): string | null {
  if (typeof params !== "object" || params === null) return null;
  const { id, name } = params as { id?: unknown; name?: unknown };
  const target = typeof id === "string" ? id : typeof name === "string" ? name : null;
  return target ? target.split(":").at(-1) ?? null : null;
}

export interface PromptEvent {
  currentUserMessage: string;
  currentUserMessageId?: string;
}

export class Turns {
  private readonly heartbeatRuns = new BoundedSet<string>();
  private readonly promptedRuns = new BoundedSet<string>();
  /** `runId toolName` of tool calls captured, for the wrapper's repeat. */
  private readonly toolCalls = new BoundedSet<string>();

  /** At the start of a run (before_prompt_build): is it a heartbeat? Remembered for the
   * run's later hooks, whose contexts may not say. */
  isHeartbeat(ctx: { trigger?: string | undefined; runId?: string | undefined }): boolean {
    if (ctx.trigger === "heartbeat") {
      if (ctx.runId) this.heartbeatRuns.add(ctx.runId);
      return true;
    }
    return ctx.runId !== undefined && this.heartbeatRuns.has(ctx.runId);
  }

  /** The request to capture for this run (once: the prompt is rebuilt within a run). */
  promptToCapture(event: HookEvent<"before_prompt_build">, ctx: HookContext<"before_prompt_build">): PromptEvent | null {
    if (ctx.runId) {
      if (this.promptedRuns.has(ctx.runId)) return null; // the prompt is rebuilt within one run
      this.promptedRuns.add(ctx.runId);
    }
    const text = (event.currentUserMessage ?? event.prompt ?? "").trim();
    if (!text) return null;
    return { currentUserMessage: text,
             ...(event.currentUserMessageId ? { currentUserMessageId: event.currentUserMessageId } : {}) };
  }

  /** Whether this after_tool_call only repeats a call already captured. */
  isRepeatedToolCall(event: HookEvent<"after_tool_call">, ctx: HookContext<"after_tool_call">): boolean {
    const run = ctx.runId ?? event.runId ?? "";
    if (event.toolName !== TOOL_SEARCH_WRAPPER) {
      this.toolCalls.add(`${run} ${event.toolName}`);
      return false;
    }
    const wrapped = wrappedToolName(event.params);
    return wrapped !== null && this.toolCalls.delete(`${run} ${wrapped}`);
  }
}
