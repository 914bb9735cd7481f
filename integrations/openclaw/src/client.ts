/**
 * HTTP client of the palace sidecar (scripts/vector-service.py). Every call has
 * a timeout; every error the sidecar sends is `{error, message}` and becomes a
 * `PalaceHttpError` with that code. A sidecar that is down is a
 * `PalaceUnavailableError`, so callers can tell "not running" from "bad call".
 */

export class PalaceHttpError extends Error {
  override name = "PalaceHttpError";
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
  ) {
    super(message);
  }
}

export class PalaceUnavailableError extends Error {
  override name = "PalaceUnavailableError";
}

export interface Health {
  status: "loading" | "ready" | "error";
  model: string | null;
  dimension: number | null;
  max_chars: number | null;
  backend: string | null;
  load_seconds: number | null;
  /** whether the sidecar serves a workspace (its path is not disclosed to unauthenticated callers) */
  workspace: boolean;
  error?: string;
}

/** A memory as the sidecar (and the MCP server) shows it. */
export interface MemoryView {
  id: string;
  content: string;
  content_truncated?: boolean;
  summary?: string | null;
  tags: string[];
  location: string;
  type: string;
  created_at: string | null;
  importance: number;
  status?: string;
  pinned?: boolean;
  updated_at?: string | null;
  source?: string;
  decay_score?: number;
  access_count?: number;
  path?: string | null;
  /** Where the text lies in the memory's file, 1-based and inclusive (below the frontmatter). */
  lines?: [number, number];
}

export interface SearchHit extends MemoryView {
  score: number;
  why: string;
}

export interface SearchResponse {
  count: number;
  time_range: { text?: string; start?: string; end?: string } | null;
  notes: string[];
  results: SearchHit[];
}

export interface ContextPiece {
  id: string;
  location: string;
  date: string;
  type: string;
  form: "full" | "summary" | "excerpt";
  section: "essence" | "session" | "task" | "relevant";
  tokens: number;
  full_tokens: number;
  score: number | null;
  text: string;
}

export interface ContextResponse {
  query: string | null;
  max_tokens: number;
  tokens_used: number;
  text: string;
  pieces: ContextPiece[];
  omitted_ids: string[];
  notes: string[];
}

export interface CaptureResponse {
  accepted: number;
  stored: number;
  skipped: number;
  errors: unknown[];
  /** This batch (its Idempotency-Key) had been captured already: a retry after a lost answer. */
  duplicate?: boolean;
}

export interface ExperienceStats {
  verified_count: number;
  failed_count: number;
  usage_count: number;
  effectiveness: number;
  verified: boolean;
  last_verified_at: string | null;
}

export interface StoreInput {
  content: string;
  tags?: string[];
  importance?: number;
  location?: string;
  type?: string;
  summary?: string;
  createdAt?: string;
  pinned?: boolean;
  source?: string;
}

export interface SearchInput {
  query: string;
  topK?: number;
  tags?: string[];
  location?: string;
  type?: string;
  includeArchived?: boolean;
  now?: string;
}

export interface ClientOptions {
  url: string;
  token?: string | undefined;
  timeoutMs: number;
}

export interface RequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal | undefined;
  headers?: Record<string, string>;
}

/** A request body that is already JSON text (the capture queue serialises events
 * when they happen, so later changes to the host's objects cannot alter them). */
export class RawJson {
  constructor(readonly text: string) {}
}

export class PalaceClient {
  readonly url: string;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;

  constructor(options: ClientOptions) {
    this.url = options.url.replace(/\/+$/, "");
    this.token = options.token;
    this.timeoutMs = options.timeoutMs;
  }

  async request<T>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? this.timeoutMs);
    const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
    let response: Response;
    try {
      response = await fetch(this.url + path, {
        method,
        headers: {
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
          ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}),
          ...options.headers,
        },
        ...(body === undefined ? {} : { body: body instanceof RawJson ? body.text : JSON.stringify(body) }),
        signal,
      });
    } catch (error) {
      const why = timeout.aborted
        ? `no answer within ${options.timeoutMs ?? this.timeoutMs} ms`
        : (error as Error).message;
      throw new PalaceUnavailableError(
        `palace sidecar at ${this.url} is not reachable (${why}); start it with ` +
          "`python scripts/vector-service.py --workspace DIR` or fix the plugin's url",
      );
    }
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const error = (parsed ?? {}) as { error?: string; message?: string };
      throw new PalaceHttpError(
        error.message ?? `${method} ${path}: HTTP ${response.status}`,
        response.status,
        error.error ?? "http_error",
      );
    }
    return parsed as T;
  }

  health(options?: RequestOptions): Promise<Health> {
    return this.request("GET", "/health", undefined, options);
  }

  search(input: SearchInput, options?: RequestOptions): Promise<SearchResponse> {
    return this.request("POST", "/memories/search", withoutUndefined(input), options);
  }

  bootstrap(query: string | undefined, maxTokens: number, options?: RequestOptions): Promise<ContextResponse> {
    return this.request("POST", "/bootstrap", withoutUndefined({ query, maxTokens }), options);
  }

  context(query: string, maxTokens: number, options?: RequestOptions): Promise<ContextResponse> {
    return this.request("POST", "/context", { query, maxTokens }, options);
  }

  get(id: string, options?: RequestOptions): Promise<MemoryView> {
    return this.request("GET", `/memories/${encodeURIComponent(id)}`, undefined, options);
  }

  store(input: StoreInput, options?: RequestOptions): Promise<MemoryView> {
    return this.request("POST", "/memories", withoutUndefined({ source: "openclaw", ...input }), options);
  }

  forget(id: string, options?: RequestOptions): Promise<{ id: string; removed: boolean }> {
    return this.request("DELETE", `/memories/${encodeURIComponent(id)}`, undefined, options);
  }

  restore(id: string, options?: RequestOptions): Promise<MemoryView> {
    return this.request("POST", `/memories/${encodeURIComponent(id)}/restore`, undefined, options);
  }

  recordExperience(
    input: { whatHappened: string; whatWorked: string; context?: string; tags?: string[] },
    options?: RequestOptions,
  ): Promise<MemoryView> {
    return this.request("POST", "/experiences", withoutUndefined(input), options);
  }

  verifyExperience(
    id: string,
    effective: boolean,
    note?: string,
    options?: RequestOptions,
  ): Promise<{ id: string; stats: ExperienceStats }> {
    return this.request(
      "POST",
      `/experiences/${encodeURIComponent(id)}/verify`,
      withoutUndefined({ effective, note }),
      options,
    );
  }

  /** POST /capture with events already serialised as JSON texts. The batch's key
   * goes with every attempt, so a sidecar that got a batch whose answer was lost
   * (a timeout) answers its retry without capturing it twice. */
  capture(eventJsons: string[], idempotencyKey: string, options: RequestOptions = {}): Promise<CaptureResponse> {
    const body = new RawJson(`{"source":"openclaw","events":[${eventJsons.join(",")}]}`);
    return this.request("POST", "/capture", body,
      { ...options, headers: { ...options.headers, "Idempotency-Key": idempotencyKey } });
  }
}

/** JSON without the keys whose value is undefined (the sidecar refuses nulls it does not expect). */
export function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
