/**
 * The plugin's configuration (`plugins.entries.palace.config` in openclaw.json),
 * with defaults. The JSON schema that OpenClaw validates it against is in
 * openclaw.plugin.json; `resolveConfig` also checks it here, because a plugin
 * loaded by another host (or a test) gets no validation for free.
 */

export interface RecallConfig {
  /** Add memories to the prompt in before_prompt_build. */
  enabled: boolean;
  /** Token budget of the start-of-session context (essence, sessions, tasks, relevant). */
  bootstrapTokens: number;
  /** Token budget of the memories added to each later prompt. */
  promptTokens: number;
  /** How long recall may hold up a prompt before it is skipped, in ms. */
  timeoutMs: number;
}

export interface CaptureConfig {
  /** Send hook payloads to the sidecar's POST /capture. */
  enabled: boolean;
  /** Events per request. */
  batchSize: number;
  /** A partial batch is sent after this many ms. */
  flushIntervalMs: number;
  /** Events waiting at most (besides the one batch being retried); beyond this the oldest are dropped (and counted). */
  maxQueue: number;
  /** Attempts per batch before it is dropped (and counted). */
  maxAttempts: number;
  /** Per-request timeout in ms. */
  timeoutMs: number;
  /** Largest request body in bytes; an event that alone is larger is dropped (and counted). */
  maxBatchBytes: number;
}

export interface PalaceConfig {
  /** The palace sidecar, e.g. http://127.0.0.1:8765 (scripts/vector-service.py --workspace …). */
  url: string;
  /** MEMORY_VECTOR_SERVICE_TOKEN of the sidecar, if it has one. */
  token: string | undefined;
  /** Timeout of search, get and tool calls, in ms. */
  timeoutMs: number;
  recall: RecallConfig;
  capture: CaptureConfig;
}

export const DEFAULT_URL = "http://127.0.0.1:8765";

export const DEFAULTS: PalaceConfig = {
  url: DEFAULT_URL,
  token: undefined,
  timeoutMs: 10_000,
  // Recall holds the prompt, so its limit is what a user may wait for memories on a
  // busy machine (a warm sidecar answers in tens of ms; a cold first bootstrap with
  // the gateway's own start-up competing for 2 cores took seconds). Capture runs in
  // the background: its limit only has to outlast a slow capture, since a request
  // that times out is retried under the same Idempotency-Key.
  recall: { enabled: true, bootstrapTokens: 1500, promptTokens: 800, timeoutMs: 6_000 },
  capture: {
    enabled: true,
    batchSize: 20,
    flushIntervalMs: 1_000,
    maxQueue: 500,
    maxAttempts: 3,
    timeoutMs: 15_000,
    maxBatchBytes: 1_000_000,
  },
};

export class PalaceConfigError extends Error {
  override name = "PalaceConfigError";
}

type Env = Record<string, string | undefined>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function pick<T extends object>(
  given: unknown,
  defaults: T,
  where: string,
): T {
  if (given === undefined || given === null) return { ...defaults };
  if (!isObject(given)) throw new PalaceConfigError(`${where} must be an object`);
  const out: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
  for (const [key, value] of Object.entries(given)) {
    if (!(key in defaults)) {
      throw new PalaceConfigError(
        `unknown setting ${where}.${key}; known: ${Object.keys(defaults).join(", ")}`,
      );
    }
    const expected = typeof (defaults as Record<string, unknown>)[key];
    if (expected === "object") continue; // nested sections are resolved by the caller
    if (key === "token") {
      if (value !== undefined && typeof value !== "string") {
        throw new PalaceConfigError(`${where}.token must be a string`);
      }
    } else if (typeof value !== expected) {
      throw new PalaceConfigError(`${where}.${key} must be a ${expected}, got ${JSON.stringify(value)}`);
    } else if (expected === "number" && (!Number.isFinite(value) || (value as number) <= 0)) {
      throw new PalaceConfigError(`${where}.${key} must be a positive number, got ${String(value)}`);
    }
    out[key] = value;
  }
  return out as T;
}

/** The plugin config with defaults filled in; the environment supplies the
 * sidecar's URL and token when the config does not (the variables palace's own
 * processes read). */
export function resolveConfig(pluginConfig: unknown, env: Env = process.env): PalaceConfig {
  const top = pick(pluginConfig, DEFAULTS, "palace");
  const given = isObject(pluginConfig) ? pluginConfig : {};
  const url = (typeof given.url === "string" ? given.url : env.MEMORY_VECTOR_SERVICE_URL) ?? DEFAULT_URL;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http");
  } catch {
    throw new PalaceConfigError(`palace.url must be an http(s) URL like ${DEFAULT_URL}, got ${JSON.stringify(url)}`);
  }
  return {
    ...top,
    url: url.replace(/\/+$/, ""),
    token: (typeof given.token === "string" ? given.token : env.MEMORY_VECTOR_SERVICE_TOKEN) || undefined,
    recall: pick(given.recall, DEFAULTS.recall, "palace.recall"),
    capture: pick(given.capture, DEFAULTS.capture, "palace.capture"),
  };
}
