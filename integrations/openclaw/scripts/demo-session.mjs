// One OpenClaw agent session against a palace sidecar, driven through the
// plugin's hooks and tools with OpenClaw's own hook runner (the host side is the
// recording api of test/helpers.mjs). Used by scripts/integrations_demo.py.
//
//   node scripts/demo-session.mjs http://127.0.0.1:8765
import entry from "../dist/index.js";
import { createHostApi } from "../test/helpers.mjs";

const url = process.argv[2] ?? "http://127.0.0.1:8765";
const host = createHostApi({ url, recall: { bootstrapTokens: 400, promptTokens: 200 } });
entry.register(host.api);
const runner = host.hookRunner();
const ctx = { agentId: "main", sessionKey: "agent:main:telegram:42", sessionId: "oc-7f3a", workspaceDir: "/home/me/.openclaw/workspace" };
const say = (label, value) => console.log(`${label}: ${typeof value === "string" ? value : JSON.stringify(value)}`);

const prompt = "The nightly backup on db-2 failed again. What do we know?";
await runner.runMessageReceived({ from: "telegram:42", content: prompt, timestamp: Date.now() },
  { channelId: "telegram", sessionKey: ctx.sessionKey });
const recall = await runner.runBeforePromptBuild({ prompt, currentUserMessage: prompt, messages: [] }, ctx);
say("before_prompt_build → prependContext", recall?.prependContext ?? "(none)");

await runner.runAfterToolCall({ toolName: "exec", toolCallId: "t1", params: { command: "ssh db-2 tail -3 /var/log/pg_backup.log" },
  result: { stdout: "pg_dump: error: could not write to output file: No space left on device", exitCode: 1 }, durationMs: 840 },
  { ...ctx, toolName: "exec", toolCallId: "t1" });
const stored = await host.callTool("memory_store", {
  content: "Decision 2026-11-30: backups of db-2 go to /mnt/backup2 (the old volume is full); keep 7 days there.",
  type: "decision", tags: ["backup", "db-2"], location: "projects/infra" });
say("memory_store", stored.content[0].text);
await runner.runAgentEnd({ success: true, durationMs: 5100, messages: [
  { role: "user", content: prompt },
  { role: "assistant", content: "db-2's backup volume is full; I moved the backups to /mnt/backup2 and kept 7 days. Next: grow the old volume." }] }, ctx);
await runner.runSessionEnd({ sessionId: ctx.sessionId, sessionKey: ctx.sessionKey, messageCount: 4, reason: "idle" }, ctx);

const { manager } = await host.memoryCapabilities[0].runtime.getMemorySearchManager({ cfg: {}, agentId: "main" });
await manager.close(); // sends what capture still holds
say("capture", manager.status().custom.capture);
