/**
 * Capture: OpenClaw hook payloads go to the sidecar's `POST /capture` in batches.
 *
 * The agent must never wait for memory or fail because of it, so a hook only
 * serialises its payload and queues it (`push` returns at once and never throws).
 * A timer, or a full batch, sends the queue one request at a time. The queue is
 * bounded: when the sidecar is down for long, the oldest events are dropped, and
 * every dropped event is counted (`stats()`, also in the memory status).
 *
 * A batch, once formed, keeps its events and its `Idempotency-Key` until the
 * sidecar answers it or it is given up: a request that timed out may still have
 * been captured, and its retry must not capture the same run end twice.
 *
 * Body sent: `{"source": "openclaw", "events": [payload + {"hook": name, "context": {…}}]}`,
 * where `context` holds the hook context's plain fields (agentId, sessionKey,
 * sessionId, workspaceDir, toolName…): the payloads of some hooks do not say
 * which session they belong to.
 */

import { randomUUID } from "node:crypto";

import { PalaceHttpError, type PalaceClient } from "./client.js";
import type { CaptureConfig } from "./config.js";
import type { PluginLogger } from "./openclaw-types.js";

export interface CaptureStats {
  /** Events waiting to be sent. */
  queued: number;
  /** Events the sidecar accepted. */
  sent: number;
  /** Of those, how many it stored as memories (or skipped as trivial). */
  stored: number;
  skipped: number;
  /** Events given up: queue overflow, too large, refused by the sidecar, or out of attempts. */
  dropped: number;
  /** Requests that failed (each is retried until maxAttempts). */
  failedRequests: number;
  lastError: string | null;
}

interface QueuedEvent {
  json: string;
  bytes: number;
}

/** Events sent together, under one key, until the sidecar answers or they are given up. */
interface Batch {
  key: string;
  events: QueuedEvent[];
  attempts: number;
}

const WARN_EVERY_MS = 60_000;
const MAX_BACKOFF_MS = 30_000;

/** JSON of a hook payload: functions and signals left out, cycles cut, bigints as text. */
export function serialiseEvent(hook: string, event: unknown, context: unknown): string {
  const seen = new WeakSet<object>();
  const replacer = (_key: string, value: unknown): unknown => {
    if (typeof value === "function" || typeof value === "symbol") return undefined;
    if (typeof value === "bigint") return value.toString();
    if (typeof AbortSignal !== "undefined" && value instanceof AbortSignal) return undefined;
    if (typeof value === "object" && value !== null) {
      if (seen.has(value)) return "[circular]";
      seen.add(value);
    }
    return value;
  };
  const payload = typeof event === "object" && event !== null && !Array.isArray(event) ? event : { value: event };
  seen.add(payload); // the copy below is what gets serialised; a reference back to the original is a cycle
  return JSON.stringify({ ...(payload as object), hook, context: plainFields(context) }, replacer);
}

/** The string, number and boolean fields of a hook context (ids, names, paths). */
function plainFields(context: unknown): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  if (typeof context !== "object" || context === null) return out;
  for (const [key, value] of Object.entries(context)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") out[key] = value;
  }
  return out;
}

export class CaptureQueue {
  private readonly queue: QueuedEvent[] = [];
  /** A batch that failed and waits for its next attempt (sent before anything newer). */
  private retrying: Batch | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private sending: Promise<void> | null = null;
  private lastWarnAt = -Infinity;
  private closed = false;
  private readonly counts = { sent: 0, stored: 0, skipped: 0, dropped: 0, failedRequests: 0 };
  private lastError: string | null = null;

  constructor(
    private readonly client: PalaceClient,
    private readonly config: CaptureConfig,
    private readonly logger?: PluginLogger,
  ) {}

  /** Queue one hook payload. Returns at once; never throws. */
  push(hook: string, event: unknown, context?: unknown): void {
    if (!this.config.enabled || this.closed) return;
    let json: string;
    try {
      json = serialiseEvent(hook, event, context);
    } catch (error) {
      this.drop(1, `could not serialise a ${hook} payload: ${(error as Error).message}`);
      return;
    }
    const bytes = Buffer.byteLength(json);
    if (bytes + 64 > this.config.maxBatchBytes) {
      this.drop(1, `a ${hook} payload of ${bytes} bytes is over capture.maxBatchBytes`);
      return;
    }
    if (this.queue.length >= this.config.maxQueue) {
      this.queue.shift();
      this.drop(1, `capture queue full (${this.config.maxQueue}); the oldest event was dropped`);
    }
    this.queue.push({ json, bytes });
    if (this.queue.length >= this.config.batchSize) void this.flush();
    else this.schedule(this.config.flushIntervalMs);
  }

  /** Send everything queued now (one request at a time). Resolves when the queue
   * is empty or a request failed; never rejects. */
  flush(): Promise<void> {
    if (this.sending) return this.sending;
    this.clearTimer();
    this.sending = this.sendAll().finally(() => {
      this.sending = null;
      if ((this.queue.length || this.retrying) && !this.closed) this.schedule(this.backoffMs());
    });
    return this.sending;
  }

  /** Last flush, bounded by `timeoutMs`; afterwards pushes are ignored. */
  async close(timeoutMs = this.config.timeoutMs): Promise<void> {
    const flushed = this.flush();
    this.closed = true;
    this.clearTimer();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([flushed, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }

  stats(): CaptureStats {
    const queued = this.queue.length + (this.retrying?.events.length ?? 0);
    return { queued, ...this.counts, lastError: this.lastError };
  }

  private async sendAll(): Promise<void> {
    for (let batch = this.retrying ?? this.takeBatch(); batch; batch = this.takeBatch()) {
      this.retrying = null;
      try {
        const answer = await this.client.capture(batch.events.map((e) => e.json), batch.key,
          { timeoutMs: this.config.timeoutMs });
        this.counts.sent += batch.events.length;
        this.counts.stored += Number(answer?.stored ?? 0);
        this.counts.skipped += Number(answer?.skipped ?? 0);
        if (Array.isArray(answer?.errors) && answer.errors.length) {
          this.note(`the sidecar refused ${answer.errors.length} event(s): ${JSON.stringify(answer.errors[0])}`);
        }
      } catch (error) {
        this.counts.failedRequests += 1;
        const message = (error as Error).message;
        // A 4xx will not get better by sending the same batch again.
        const hopeless = error instanceof PalaceHttpError && error.status >= 400 && error.status < 500
          && error.status !== 408 && error.status !== 429;
        batch.attempts += 1;
        if (hopeless || batch.attempts >= this.config.maxAttempts) this.drop(batch.events.length, message);
        else {
          this.note(message);
          this.retrying = batch; // the same events under the same key
        }
        return; // the timer tries again after a back-off
      }
    }
  }

  private takeBatch(): Batch | null {
    if (!this.queue.length) return null;
    const events: QueuedEvent[] = [];
    let bytes = 64;
    while (this.queue.length && events.length < this.config.batchSize) {
      const next = this.queue[0]!;
      if (events.length && bytes + next.bytes + 1 > this.config.maxBatchBytes) break;
      events.push(this.queue.shift()!);
      bytes += next.bytes + 1;
    }
    return { key: randomUUID(), events, attempts: 0 };
  }

  private backoffMs(): number {
    return Math.min(MAX_BACKOFF_MS, this.config.flushIntervalMs * 2 ** (this.retrying?.attempts ?? 0));
  }

  private schedule(delayMs: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, delayMs);
    this.timer.unref?.(); // never keep the host process alive for memory
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private drop(count: number, why: string): void {
    this.counts.dropped += count;
    this.note(`dropped ${count} capture event(s): ${why}`);
  }

  private note(message: string): void {
    this.lastError = message;
    const now = Date.now();
    if (now - this.lastWarnAt >= WARN_EVERY_MS) {
      this.lastWarnAt = now;
      this.logger?.warn(`palace capture: ${message}`);
    }
  }
}
