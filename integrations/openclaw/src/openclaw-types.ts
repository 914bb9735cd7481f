/**
 * OpenClaw's plugin SDK types that this plugin implements or consumes, derived
 * from the real `openclaw` package (the SDK exports the API and the memory
 * capability; the search manager, its results and the hook payloads are reached
 * through them, so they follow the installed OpenClaw version exactly).
 */

import type { MemoryPluginCapability } from "openclaw/plugin-sdk/memory-host-core";
import type { AnyAgentTool, OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";

export type { AnyAgentTool, MemoryPluginCapability, OpenClawPluginApi };

export type MemoryRuntime = NonNullable<MemoryPluginCapability["runtime"]>;
export type GetManagerParams = Parameters<MemoryRuntime["getMemorySearchManager"]>[0];
export type GetManagerResult = Awaited<ReturnType<MemoryRuntime["getMemorySearchManager"]>>;
export type BackendConfig = ReturnType<MemoryRuntime["resolveMemoryBackendConfig"]>;
export type MemorySearchManager = NonNullable<GetManagerResult["manager"]>;
export type MemorySearchOptions = NonNullable<Parameters<MemorySearchManager["search"]>[1]>;
export type MemorySearchResult = Awaited<ReturnType<MemorySearchManager["search"]>>[number];
export type ReadFileParams = Parameters<MemorySearchManager["readFile"]>[0];
export type ReadFileResult = Awaited<ReturnType<MemorySearchManager["readFile"]>>;
export type MemoryProviderStatus = ReturnType<MemorySearchManager["status"]>;
export type EmbeddingProbeResult = Awaited<ReturnType<MemorySearchManager["probeEmbeddingAvailability"]>>;
export type PluginLogger = OpenClawPluginApi["logger"];

declare const api: OpenClawPluginApi;
export type HookName = Parameters<OpenClawPluginApi["on"]>[0];
export type HookHandler<K extends HookName> = Parameters<typeof api.on<K>>[1];
export type HookEvent<K extends HookName> = Parameters<HookHandler<K>>[0];
export type HookContext<K extends HookName> = Parameters<HookHandler<K>>[1];
export type HookResult<K extends HookName> = Awaited<ReturnType<HookHandler<K>>>;
