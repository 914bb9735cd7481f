/**
 * `openclaw palace …`: see and query palace from OpenClaw's own CLI
 * (`openclaw memory …` belongs to memory-core and never reaches palace).
 *
 *   openclaw palace status [--json]           the sidecar, the memory slot, recall and capture
 *   openclaw palace search <query…> [--limit N] [--json]
 *   openclaw palace get <id> [--json]
 *
 * The commands run in the CLI process and talk to the sidecar with the plugin's
 * own config (url, token); `status` also reads OpenClaw's config to say whether
 * the gateway will let recall and capture run.
 */

import { PalaceHttpError, type Health, type PalaceClient } from "./client.js";
import type { OpenClawPluginApi } from "./openclaw-types.js";
import { renderSearch } from "./tools.js";

type CliRegistrar = Parameters<OpenClawPluginApi["registerCli"]>[0];
type CliContext = Parameters<CliRegistrar>[0];
type Program = CliContext["program"];

export const CLI_ROOT = "palace";
export const CLI_DESCRIPTOR = {
  name: CLI_ROOT,
  description: "palace long-term memory: sidecar status, search, one memory",
  hasSubcommands: true,
} as const;

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export interface StatusReport {
  ok: boolean;
  sidecar: { url: string; reachable: boolean; status?: string; model?: string | null; workspace?: boolean; error?: string };
  memorySlot: string;
  conversationAccess: boolean;
  memoryCore: "disabled" | "loaded";
  problems: string[];
}

/** What `status` says, from OpenClaw's config and the sidecar's /health (or why it failed). */
export function statusReport(config: unknown, url: string, health: Health | Error): StatusReport {
  const plugins = record(record(config).plugins);
  const entries = record(plugins.entries);
  const memorySlot = String(record(plugins.slots).memory ?? "memory-core (the default)");
  const conversationAccess = record(record(entries.palace).hooks).allowConversationAccess === true;
  const deny = Array.isArray(plugins.deny) ? plugins.deny : [];
  const memoryCore = record(entries["memory-core"]).enabled === false || deny.includes("memory-core") ? "disabled" : "loaded";
  const problems: string[] = [];
  const sidecar: StatusReport["sidecar"] = health instanceof Error
    ? { url, reachable: false, error: health.message }
    : { url, reachable: true, status: health.status, model: health.model, workspace: health.workspace };
  if (health instanceof Error) problems.push(health.message);
  else if (!health.workspace) problems.push("the sidecar serves no workspace: start it with --workspace DIR");
  if (memorySlot !== "palace") problems.push(`the memory slot is ${memorySlot}: set plugins.slots.memory to "palace"`);
  if (!conversationAccess) {
    problems.push("recall and end-of-turn capture are blocked: set plugins.entries.palace.hooks.allowConversationAccess " +
      "to true (palace install openclaw --allow-conversation-access)");
  }
  if (memoryCore === "loaded") {
    problems.push("memory-core is still loaded (as the memory slot's dreaming companion): its memory_search and " +
      "memory_get clash with palace's; set plugins.entries.memory-core.enabled to false (palace install openclaw does)");
  }
  return { ok: problems.length === 0, sidecar, memorySlot, conversationAccess, memoryCore, problems };
}

export function renderStatus(report: StatusReport): string {
  const s = report.sidecar;
  const sidecar = s.reachable
    ? `${s.url}  ${s.status}${s.model ? ` (model ${s.model})` : ""}${s.workspace ? ", workspace served" : ", no workspace"}`
    : `${s.url}  not reachable`;
  return [
    `sidecar              ${sidecar}`,
    `memory slot          ${report.memorySlot}`,
    `recall and capture   ${report.conversationAccess ? "allowed" : "blocked"} (plugins.entries.palace.hooks.allowConversationAccess)`,
    `memory-core          ${report.memoryCore}`,
    ...report.problems.map((problem) => `problem: ${problem}`),
  ].join("\n");
}

function print(json: boolean, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);
}

/** Runs a command; a sidecar error is one line on stderr and exit code 1, not a stack. */
async function guarded(action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    const code = error instanceof PalaceHttpError ? ` (${error.code})` : "";
    process.stderr.write(`palace: ${(error as Error).message}${code}\n`);
    process.exitCode = 1;
  }
}

export function registerPalaceCli(program: Program, client: PalaceClient, openclawConfig: unknown): void {
  const root = program.command(CLI_ROOT).description(CLI_DESCRIPTOR.description);
  root.command("status")
    .description("The sidecar, the memory slot, and whether recall and capture may run (exit 1 if not)")
    .option("--json", "one JSON document")
    .action((opts: { json?: boolean }) => guarded(async () => {
      const health = await client.health({ timeoutMs: 5_000 }).catch((error: Error) => error);
      const report = statusReport(openclawConfig, client.url, health);
      print(opts.json === true, report, renderStatus(report));
      if (!report.ok) process.exitCode = 1;
    }));
  root.command("search")
    .description("Search palace (time words understood: 'last week', '上周')")
    .argument("<query...>", "what to look for")
    .option("--limit <n>", "results at most", "6")
    .option("--json", "the sidecar's answer as JSON")
    .action((words: string[], opts: { limit: string; json?: boolean }) => guarded(async () => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new Error("--limit must be a whole number from 1 to 100");
      const answer = await client.search({ query: words.join(" "), topK: limit });
      print(opts.json === true, answer, renderSearch(answer));
    }));
  root.command("get")
    .description("One memory in full, by the id search shows in [brackets]")
    .argument("<id>", "memory id")
    .option("--json", "the memory as JSON")
    .action((id: string, opts: { json?: boolean }) => guarded(async () => {
      const memory = await client.get(id);
      print(opts.json === true, memory, `[${memory.id}] ${memory.location} · ${memory.type}\n${memory.content}`);
    }));
}
