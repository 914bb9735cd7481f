/**
 * The memory slot: OpenClaw's `MemorySearchManager` backed by palace search
 * (keyword and vector relevance fused, time words, concepts, decay).
 *
 * A hit's `path` is the memory's Markdown file relative to the workspace
 * (`memory/palace/<room>/<id>.md`), so `readFile` and citations point at a real
 * file. Line numbers are the file's own: the memory's text starts below its
 * frontmatter, at the line the sidecar reports (`lines: [start, end]`), and
 * `readFile` counts from the same origin while it reads the text through the
 * sidecar by the id in the file's name.
 */

import {
  PalaceHttpError,
  PalaceUnavailableError,
  type Health,
  type MemoryView,
  type PalaceClient,
  type SearchHit,
} from "./client.js";
import type { CaptureQueue } from "./capture.js";
import type {
  BackendConfig,
  EmbeddingProbeResult,
  GetManagerParams,
  GetManagerResult,
  MemoryProviderStatus,
  MemoryRuntime,
  MemorySearchManager,
  MemorySearchOptions,
  MemorySearchResult,
  ReadFileParams,
  ReadFileResult,
} from "./openclaw-types.js";
import { classifyWorkspaceMemoryPaths } from "./workspace-memory.js";

export const DEFAULT_MAX_RESULTS = 6;
export const SNIPPET_CHARS = 700;
const MEMORY_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Line count of a text, as a 1-based inclusive range starts at line 1. */
function lineCount(text: string): number {
  return Math.max(1, text.split("\n").length);
}

/** Where a memory's text lies in its file: the sidecar's `lines`, else (a backend
 * without files) the text's own lines. */
export function textLines(memory: Pick<MemoryView, "content" | "lines">): [number, number] {
  const given = memory.lines;
  if (Array.isArray(given) && given.length === 2 && given.every((n) => Number.isInteger(n) && n >= 1)
      && given[1] >= given[0]) {
    return [given[0], given[1]];
  }
  return [1, lineCount(memory.content)];
}

export function toSearchResult(hit: SearchHit): MemorySearchResult {
  const path = hit.path ?? `memory/palace/${hit.location}/${hit.id}.md`;
  // a shortened preview ends early; its citation still covers the whole memory
  const [startLine, endLine] = textLines(hit);
  const snippet = hit.content.length > SNIPPET_CHARS ? `${hit.content.slice(0, SNIPPET_CHARS)} …` : hit.content;
  return {
    path,
    startLine,
    endLine,
    score: hit.score,
    snippet,
    source: "memory",
    importance: hit.importance,
    citation: `${path}#L${startLine}-L${endLine}`,
  };
}

/** The memory id a workspace path names (`…/<id>.md`), or null. */
export function idFromPath(relPath: string): string | null {
  const name = relPath.split(/[\\/]/).pop() ?? "";
  const id = name.endsWith(".md") ? name.slice(0, -3) : name;
  return MEMORY_ID.test(id) && !id.includes("..") ? id : null;
}

export class PalaceSearchManager implements MemorySearchManager {
  private health: Health | null = null;
  private probe: EmbeddingProbeResult | null = null;

  constructor(
    private readonly client: PalaceClient,
    private readonly capture: CaptureQueue | null = null,
  ) {}

  async search(query: string, opts: MemorySearchOptions = {}): Promise<MemorySearchResult[]> {
    const answer = await this.client.search(
      { query, topK: Math.min(100, Math.max(1, opts.maxResults ?? DEFAULT_MAX_RESULTS)) },
      { signal: opts.signal },
    );
    const minScore = opts.minScore ?? 0;
    return answer.results.map(toSearchResult).filter((hit) => hit.score >= minScore);
  }

  async readFile(params: ReadFileParams): Promise<ReadFileResult> {
    const id = idFromPath(params.relPath);
    if (id === null) return { status: "not_found", text: "", path: params.relPath };
    let memory: MemoryView;
    try {
      memory = await this.client.get(id);
    } catch (error) {
      if (error instanceof PalaceHttpError && (error.status === 404 || error.status === 400)) {
        return { status: "not_found", text: "", path: params.relPath };
      }
      throw error;
    }
    // `from` and `nextFrom` are lines of the file, as in the citations; the
    // frontmatter above the text is not part of the memory and is skipped
    const lines = memory.content.split("\n");
    const [start] = textLines(memory);
    const first = Math.max(0, (params.from ?? start) - start);
    const count = params.lines ?? lines.length;
    const shown = lines.slice(first, first + count);
    const next = first + shown.length;
    const truncated = next < lines.length;
    return {
      status: "ok",
      text: shown.join("\n"),
      path: params.relPath,
      from: start + first,
      lines: shown.length,
      ...(truncated ? { truncated: true, nextFrom: start + next } : {}),
    };
  }

  status(): MemoryProviderStatus {
    const health = this.health;
    const ready = health?.status === "ready";
    return {
      backend: "builtin",
      provider: "palace",
      ...(health?.model ? { model: health.model } : {}),
      sources: ["memory"],
      fts: { enabled: true, available: health !== null },
      vector: {
        enabled: true,
        available: ready,
        semanticAvailable: ready,
        ...(health?.dimension ? { dims: health.dimension } : {}),
        ...(health?.error ? { loadError: health.error } : {}),
      },
      custom: {
        sidecar: this.client.url,
        sidecarStatus: health?.status ?? "unknown",
        ...(this.capture ? { capture: this.capture.stats() } : {}),
      },
    };
  }

  /** Asks the sidecar now (also refreshes what `status()` reports). */
  async probeEmbeddingAvailability(): Promise<EmbeddingProbeResult> {
    const checkedAtMs = Date.now();
    try {
      this.health = await this.client.health({ timeoutMs: 2_000 });
      const ok = this.health.status === "ready";
      const error = ok ? undefined
        : this.health.status === "loading" ? "the embedding model is still loading (keyword search works)"
        : this.health.error ?? "the embedding model failed to load";
      this.probe = { ok, checked: true, checkedAtMs, ...(error ? { error } : {}) };
    } catch (error) {
      this.health = null;
      this.probe = { ok: false, checked: true, checkedAtMs, error: (error as Error).message };
    }
    return this.probe;
  }

  getCachedEmbeddingAvailability(): EmbeddingProbeResult | null {
    return this.probe ? { ...this.probe, cached: true } : null;
  }

  async probeVectorAvailability(): Promise<boolean> {
    return (await this.probeEmbeddingAvailability()).ok;
  }

  async probeVectorStoreAvailability(): Promise<boolean> {
    try {
      this.health = await this.client.health({ timeoutMs: 2_000 });
      return this.health.workspace === true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.capture?.flush();
  }
}

/** `registerMemoryCapability({ runtime })`: one manager for every agent (palace
 * keeps one workspace per sidecar), and the provenance of the workspace's memory
 * files, without which OpenClaw leaves USER.md and MEMORY.md out of the prompt. */
export function createMemoryRuntime(manager: PalaceSearchManager): MemoryRuntime {
  return {
    supportsWorkspaceMemoryReadSources: true,
    classifyWorkspaceMemoryPaths,
    async getMemorySearchManager(params: GetManagerParams): Promise<GetManagerResult> {
      const started = Date.now();
      const probe = await manager.probeEmbeddingAvailability();
      const debug = { backend: "builtin" as const, managerMs: Date.now() - started,
                      ...(params.purpose ? { purpose: params.purpose } : {}) };
      if (!probe.ok && probe.error?.includes("not reachable")) {
        return { manager, debug, error: probe.error };
      }
      return { manager, debug };
    },
    resolveMemoryBackendConfig(): BackendConfig {
      return { backend: "builtin" };
    },
    async closeAllMemorySearchManagers(): Promise<void> {
      await manager.close();
    },
  };
}

export { PalaceUnavailableError };
