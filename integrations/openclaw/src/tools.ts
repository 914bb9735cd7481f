/**
 * The agent's memory tools. Each one is a thin call to the sidecar; the text
 * result is what the model reads (compact), `details` the full answer. Failures
 * throw (OpenClaw turns them into tool errors), with the sidecar's message.
 */

import { Type } from "typebox";

import type { MemoryView, PalaceClient, SearchResponse } from "./client.js";
import type { AnyAgentTool } from "./openclaw-types.js";

export const TOOL_NAMES = [
  "memory_search",
  "memory_get",
  "memory_store",
  "memory_forget",
  "memory_restore",
  "experience_record",
  "experience_verify",
] as const;

function text<T>(body: string, details: T) {
  return { content: [{ type: "text" as const, text: body }], details };
}

function label(memory: MemoryView): string {
  const date = memory.created_at ? memory.created_at.slice(0, 10) : "undated";
  return `[${memory.id}] ${memory.location} · ${date} · ${memory.type}`;
}

export function renderSearch(answer: SearchResponse): string {
  if (!answer.results.length) return "No memories found.";
  const lines = answer.results.map((hit) => `${label(hit)} (score ${hit.score.toFixed(2)})\n${hit.content}`);
  const period = answer.time_range?.text ? `Time words: ${answer.time_range.text}.\n\n` : "";
  return period + lines.join("\n\n");
}

function args(params: unknown): Record<string, unknown> {
  return typeof params === "object" && params !== null ? (params as Record<string, unknown>) : {};
}

function str(params: Record<string, unknown>, key: string): string {
  const value = params[key];
  if (typeof value !== "string" || !value.trim()) throw new Error(`${key} must be a non-empty string`);
  return value;
}

function optional<T>(params: Record<string, unknown>, key: string, kind: "string" | "number" | "boolean"): T | undefined {
  const value = params[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== kind) throw new Error(`${key} must be a ${kind}`);
  return value as T;
}

function tags(params: Record<string, unknown>): string[] | undefined {
  const value = params.tags;
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((t) => typeof t === "string")) throw new Error("tags must be an array of strings");
  return value as string[];
}

export function createTools(client: PalaceClient): AnyAgentTool[] {
  const Id = Type.String({ description: "Memory id, as shown in [brackets] by memory_search and recall." });
  const Tags = Type.Optional(Type.Array(Type.String(), { description: 'Tags, e.g. ["database", "decision"].' }));
  return [
    {
      name: "memory_search",
      label: "Search memory",
      description:
        "Search long-term memory (palace). Time words are understood ('last week', '上周', 'three days ago'); " +
        "results are best first with an id to cite and open with memory_get.",
      parameters: Type.Object({
        query: Type.String({ description: "What to look for, in any language; may hold time words." }),
        maxResults: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
        tags: Tags,
        location: Type.Optional(Type.String({ description: "Only this room (folder) and rooms inside it." })),
        type: Type.Optional(Type.String({ description: "Only this type, e.g. decision." })),
      }),
      async execute(_id, params) {
        const p = args(params);
        const answer = await client.search({
          query: str(p, "query"),
          topK: optional<number>(p, "maxResults", "number") ?? 6,
          tags: tags(p),
          location: optional<string>(p, "location", "string"),
          type: optional<string>(p, "type", "string"),
        });
        return text(renderSearch(answer), answer);
      },
    },
    {
      name: "memory_get",
      label: "Open a memory",
      description: "One memory in full by its id (search and recall may shorten long ones).",
      parameters: Type.Object({ id: Id }),
      async execute(_id, params) {
        const memory = await client.get(str(args(params), "id"));
        return text(`${label(memory)}\n${memory.content}`, memory);
      },
    },
    {
      name: "memory_store",
      label: "Remember",
      description:
        "Save a durable fact, decision, preference, event or task to long-term memory (one idea per memory).",
      parameters: Type.Object({
        content: Type.String({ description: "The memory text (Markdown)." }),
        tags: Tags,
        importance: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: "0..1; 1 never fades." })),
        location: Type.Optional(Type.String({ description: "Room, e.g. 'people' or 'projects/palace'." })),
        type: Type.Optional(Type.String({ description: "fact | decision | preference | event | task | session" })),
        summary: Type.Optional(Type.String()),
      }),
      async execute(_id, params) {
        const p = args(params);
        const memory = await client.store({
          content: str(p, "content"),
          tags: tags(p),
          importance: optional<number>(p, "importance", "number"),
          location: optional<string>(p, "location", "string"),
          type: optional<string>(p, "type", "string"),
          summary: optional<string>(p, "summary", "string"),
        });
        return text(`Stored ${label(memory)}`, memory);
      },
    },
    {
      name: "memory_forget",
      label: "Forget",
      description: "Move a memory to the trash (memory_restore brings it back).",
      parameters: Type.Object({ id: Id }),
      async execute(_id, params) {
        const id = str(args(params), "id");
        const answer = await client.forget(id);
        return text(answer.removed ? `Moved ${id} to the trash.` : `No memory ${id}.`, answer);
      },
    },
    {
      name: "memory_restore",
      label: "Restore",
      description: "Bring a memory back from the trash or the archive.",
      parameters: Type.Object({ id: Id }),
      async execute(_id, params) {
        const memory = await client.restore(str(args(params), "id"));
        return text(`Restored ${label(memory)}`, memory);
      },
    },
    {
      name: "experience_record",
      label: "Record a lesson",
      description: "Record a lesson learned: what happened (the problem) and what worked. Verify it later.",
      parameters: Type.Object({
        whatHappened: Type.String({ description: "The situation or failure, e.g. 'port 5432 in use'." }),
        whatWorked: Type.String({ description: "What solved it." }),
        context: Type.Optional(Type.String({ description: "Where it applies (system, versions)." })),
        tags: Tags,
      }),
      async execute(_id, params) {
        const p = args(params);
        const memory = await client.recordExperience({
          whatHappened: str(p, "whatHappened"),
          whatWorked: str(p, "whatWorked"),
          ...(optional<string>(p, "context", "string") ? { context: p.context as string } : {}),
          ...(tags(p) ? { tags: tags(p)! } : {}),
        });
        return text(`Recorded lesson ${memory.id}`, memory);
      },
    },
    {
      name: "experience_verify",
      label: "Verify a lesson",
      description: "Say whether applying a recorded lesson worked; verified lessons rank higher.",
      parameters: Type.Object({
        id: Id,
        effective: Type.Boolean({ description: "true if the lesson worked this time." }),
        note: Type.Optional(Type.String()),
      }),
      async execute(_id, params) {
        const p = args(params);
        const effective = p.effective;
        if (typeof effective !== "boolean") throw new Error("effective must be true or false");
        const answer = await client.verifyExperience(str(p, "id"), effective, optional<string>(p, "note", "string"));
        const s = answer.stats;
        return text(`Lesson ${answer.id}: worked ${s.verified_count}×, failed ${s.failed_count}×` +
          `${s.verified ? " (verified)" : ""}.`, answer);
      },
    },
  ];
}
