/**
 * Which workspace memory files OpenClaw may put into a prompt by itself.
 *
 * OpenClaw's bootstrap reads USER.md and MEMORY.md from the agent workspace and
 * asks the memory slot's runtime where each came from
 * (`classifyWorkspaceMemoryPaths`). A runtime that cannot answer makes OpenClaw
 * drop both files from every prompt, so palace answers with the rule OpenClaw's
 * own memory plugin applies when no provenance record exists: the curated files
 * at the workspace root, `users/<id>/USER.md` and Markdown under `memory/` are
 * written by the owner or the agent ("agent", eligible); dreaming output is
 * "system"; anything else, or a path that leaves the workspace, is "untrusted".
 */

import { realpath } from "node:fs/promises";
import { isAbsolute, posix, relative, resolve, sep } from "node:path";

import type { MemoryRuntime } from "./openclaw-types.js";

type Classifier = NonNullable<MemoryRuntime["classifyWorkspaceMemoryPaths"]>;
type ClassifyParams = Parameters<Classifier>[0];
export type MemoryOriginClass = Awaited<ReturnType<Classifier>>[number]["originClass"];

const CURATED_ROOT_FILES = new Set(["MEMORY.md", "memory.md", "USER.md"]);
const DREAM_FILES = new Set(["DREAMS.md", "dreams.md"]);
const PER_USER_FILE = /^users\/[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}\/USER\.md$/;

/** The origin of one workspace-relative POSIX path (already checked to stay inside). */
export function originOf(relativePath: string): MemoryOriginClass {
  const segments = relativePath.split("/");
  if ((segments.length === 1 && DREAM_FILES.has(segments[0]!))
      || (segments[0] === "memory" && (segments[1] === "dreaming" || segments[1] === ".dreams"))) {
    return "system";
  }
  const curated = segments.length === 1 && CURATED_ROOT_FILES.has(segments[0]!);
  const memoryNote = segments[0] === "memory" && segments.length > 1 && relativePath.endsWith(".md");
  return curated || PER_USER_FILE.test(relativePath) || memoryNote ? "agent" : "untrusted";
}

/** A canonical relative path as OpenClaw hands it over for a file it already read, or null. */
export function canonicalRelative(path: string | undefined): string | null {
  if (!path || path === "." || path === ".." || path.startsWith("../") || path.includes("\\")
      || path.includes("\0") || posix.isAbsolute(path) || posix.normalize(path) !== path) {
    return null;
  }
  return path;
}

/** The path relative to the workspace after following links, or null when it leaves it. */
async function resolvedRelative(workspaceDir: string, relativePath: string): Promise<string | null> {
  try {
    const [root, file] = await Promise.all([realpath(workspaceDir), realpath(resolve(workspaceDir, relativePath))]);
    const inside = relative(root, file);
    if (!inside || inside.startsWith("..") || isAbsolute(inside)) return null;
    return inside.split(sep).join("/");
  } catch {
    return null; // missing or unreadable: nothing to inject
  }
}

export const classifyWorkspaceMemoryPaths: Classifier = async (params: ClassifyParams) =>
  Promise.all(params.relativePaths.map(async (relativePath) => {
    const path = params.readSources !== undefined
      // files OpenClaw already read (a remote workspace): trust only their canonical path
      ? canonicalRelative(params.readSources.find((source) => source.relativePath === relativePath)?.canonicalRelativePath)
      : await resolvedRelative(params.workspaceDir, relativePath);
    return { relativePath, originClass: path === null ? "untrusted" : originOf(path) };
  }));
