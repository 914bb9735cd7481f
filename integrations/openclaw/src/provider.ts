/**
 * The seed's `VectorSearchProvider` shape over the sidecar's `/search`, `/index`
 * and `/remove`, for hosts that use a provider directly rather than the memory
 * slot (docs/openclaw.md). While the sidecar's model loads, those endpoints
 * answer 503 `loading` with Retry-After; the provider waits and asks again.
 */

import { PalaceClient, PalaceHttpError, type ClientOptions } from "./client.js";

export interface SearchFilter {
  tags?: string[] | string;
  location?: string;
  type?: string;
  includeArchived?: boolean;
}

export interface VectorSearchResult {
  id: string;
  score: number;
  content: string;
  metadata: Record<string, unknown>;
}

export interface VectorSearchProvider {
  search(query: string, topK: number, filter?: SearchFilter): Promise<VectorSearchResult[]>;
  index(id: string, content: string, metadata?: Record<string, unknown>): Promise<void>;
  remove(id: string): Promise<void>;
}

export interface ProviderOptions extends Partial<ClientOptions> {
  /** How many times to wait out a loading model (× Retry-After, 2 s): 15 covers a cold load. */
  loadingRetries?: number;
}

export class PalaceVectorSearchProvider implements VectorSearchProvider {
  private readonly client: PalaceClient;
  private readonly loadingRetries: number;

  constructor(options: ProviderOptions = {}) {
    this.client = new PalaceClient({
      url: options.url ?? process.env.MEMORY_VECTOR_SERVICE_URL ?? "http://127.0.0.1:8765",
      token: options.token ?? process.env.MEMORY_VECTOR_SERVICE_TOKEN,
      timeoutMs: options.timeoutMs ?? 10_000,
    });
    this.loadingRetries = options.loadingRetries ?? 15;
  }

  async search(query: string, topK = 10, filter?: SearchFilter): Promise<VectorSearchResult[]> {
    const body = await this.post<{ results: VectorSearchResult[] }>("/search", {
      query,
      topK,
      ...(filter ? { filter } : {}),
    });
    return body.results;
  }

  async index(id: string, content: string, metadata: Record<string, unknown> = {}): Promise<void> {
    await this.post("/index", { id, content, metadata });
  }

  async remove(id: string): Promise<void> {
    await this.post("/remove", { id });
  }

  private async post<T>(path: string, payload: unknown): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.client.request<T>("POST", path, payload);
      } catch (error) {
        const loading = error instanceof PalaceHttpError && error.status === 503 && error.code === "loading";
        if (!loading || attempt >= this.loadingRetries) throw error;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
    }
  }
}
