import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { mcpRoute } from "../../src/dialects/mcp/route.ts";
import { PolicySet } from "../../src/policy/evaluate.ts";
import { parsePolicies } from "../../src/policy/load.ts";
import { type LocalProxy, startLocalProxy } from "../../src/runtime/local.ts";
import { MemoryStore } from "../../src/state/memory.ts";
import { MemoryAuditSink } from "../../src/telemetry/audit.ts";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const everythingMain = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

/** `@modelcontextprotocol/server-everything` in `streamableHttp` or `sse` mode on a free loopback port. */
export async function startEverything(
  mode: "streamableHttp" | "sse",
): Promise<{ port: number; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [everythingMain, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + 20_000;
  while (!(await listening(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`server-everything ${mode} did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill();
      }),
  };
}

async function listening(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(500) });
    await response.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

/** `toolwall proxy` in process with the MCP route, a policy YAML, a memory store and an audit sink. */
export async function startProxy(policyYaml: string): Promise<{
  proxy: LocalProxy;
  audit: MemoryAuditSink;
  store: MemoryStore;
  url: string;
}> {
  const { policies, problems } = parsePolicies(policyYaml, "policy.yaml");
  if (problems.length > 0) throw new Error(problems.map((p) => `${p.path}: ${p.message}`).join("\n"));
  const audit = new MemoryAuditSink();
  const store = new MemoryStore();
  const proxy = await startLocalProxy({
    policies: PolicySet.fromDocuments(policies),
    audit,
    providers: [],
    listen: { host: "127.0.0.1", port: 0 },
    routes: [mcpRoute({ store })],
    log: () => {},
  });
  return { proxy, audit, store, url: proxy.url };
}
