/**
 * MCP dialect benchmarks (docs/benchmarks.md, section "MCP"):
 *   1. tools/call latency added by the proxy: p50/p99 direct vs through `/mcp/<server>`.
 *   2. a 500-tool tools/list filtered and inspected: first time (new definitions) and unchanged.
 *   3. the first listing, and the first LLM request's offered tools, of two fresh pods sharing a
 *      redis-server: the first inspects, the second takes the findings the first recorded
 *      (src/inspect/shared.ts).
 * Run: node bench/mcp.bench.ts [--calls N]
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Agent } from "undici";
import { ToolCatalog } from "../src/dialects/mcp/catalog.ts";
import { McpGate } from "../src/dialects/mcp/gate.ts";
import { mcpRoute } from "../src/dialects/mcp/route.ts";
import { policyInspector } from "../src/engine/inspection.ts";
import type { ToolDefinition } from "../src/inspect/types.ts";
import { createProxyContext } from "../src/net/server.ts";
import { Upstream } from "../src/net/upstream.ts";
import { PolicySet } from "../src/policy/evaluate.ts";
import { parsePolicies } from "../src/policy/load.ts";
import { SessionToolRegistry } from "../src/registry/registry.ts";
import { startLocalProxy } from "../src/runtime/local.ts";
import { MemoryStore } from "../src/state/memory.ts";
import { openState } from "../src/state/open.ts";
import type { AuditEvent, AuditSink } from "../src/telemetry/audit.ts";
import { sharedInspections } from "../src/telemetry/metrics.ts";
import { RedisServer } from "../test/helpers/redis.ts";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "4000" },
    "pod-listing": { type: "string" },
    "pod-offer": { type: "string" },
  },
});
const calls = Number(values.calls);

const corpusDir = fileURLToPath(new URL("../test/inspect/corpus/benign/", import.meta.url));

/** 500 real tool definitions (the benign corpus, repeated under fresh names). */
function fiveHundredTools(round: string): ToolDefinition[] {
  const base: ToolDefinition[] = [];
  for (const file of readdirSync(corpusDir).sort()) {
    const { tools } = JSON.parse(readFileSync(corpusDir + file, "utf8")) as { tools: ToolDefinition[] };
    base.push(...tools);
  }
  return Array.from({ length: 500 }, (_, i) => {
    const tool = base[i % base.length]!;
    return { ...tool, name: `${tool.name}_${round}_${i}` };
  });
}

const policyYaml = (port: number) => `
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: bench, namespace: bench }
spec:
  servers: [{ name: bench, transport: StreamableHTTP, url: "http://127.0.0.1:${port}/mcp" }]
  toolPolicy:
    rules:
      - { action: Deny, servers: ["*"], tools: ["delete_*", "execute_command"], reason: destructive }
      - action: Deny
        servers: [bench]
        tools: [create_issue]
        when: { any: [{ path: repo, op: Matches, value: "^secret-" }] }
  inspection: { action: Block, threshold: High }
  pinning: { onChange: Block }
`;

const quietAudit: AuditSink & { count: number } = {
  count: 0,
  emit(_event: AuditEvent) {
    this.count++;
  },
};

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const ms = (value: number) => `${value.toFixed(3)} ms`;

async function callLatency(): Promise<void> {
  let listing = "";
  const upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const message = JSON.parse(Buffer.concat(chunks).toString()) as { id: number; method: string };
      const body =
        message.method === "tools/list"
          ? `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${listing}}`
          : JSON.stringify({
              jsonrpc: "2.0",
              id: message.id,
              result: { content: [{ type: "text", text: "ok" }] },
            });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const port = (upstream.address() as AddressInfo).port;
  const proxy = await startLocalProxy({
    policies: PolicySet.fromDocuments(parsePolicies(policyYaml(port), "bench.yaml").policies),
    audit: quietAudit,
    providers: [],
    listen: { host: "127.0.0.1", port: 0 },
    routes: [mcpRoute({ store: new MemoryStore() })],
    log: () => {},
  });
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 4 });
  const direct = `http://127.0.0.1:${port}/mcp`;
  const proxied = `${proxy.url}/mcp/bench`;
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  let id = 0;
  const post = async (url: string, method: string, params: unknown) => {
    const started = performance.now();
    const response = await agent.request({
      origin: new URL(url).origin,
      path: new URL(url).pathname,
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    await response.body.text();
    return performance.now() - started;
  };
  const call = {
    name: "create_issue",
    arguments: { owner: "acme", repo: "api", title: "t", body: "b".repeat(200) },
  };
  for (let i = 0; i < 500; i++) {
    await post(direct, "tools/call", call);
    await post(proxied, "tools/call", call);
  }
  const times = { direct: [] as number[], proxied: [] as number[] };
  for (let i = 0; i < calls; i++) {
    // Alternating keeps both sides under the same machine load.
    times.direct.push(await post(direct, "tools/call", call));
    times.proxied.push(await post(proxied, "tools/call", call));
  }
  for (const list of Object.values(times)) list.sort((a, b) => a - b);
  // CPU per call of the whole process (client, upstream and proxy live in it): the difference between
  // a proxied and a direct block is what the proxy spends, whatever the load of the machine.
  const cpuPerCall = async (url: string, method: string, params: unknown, n: number) => {
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) await post(url, method, params);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000 / n;
  };
  const cpuDirect = await cpuPerCall(direct, "tools/call", call, 1000);
  const cpuProxied = await cpuPerCall(proxied, "tools/call", call, 1000);
  console.log(`\n### tools/call, ${calls} sequential calls each (keep-alive, JSON answers)\n`);
  console.log("| | p50 | p90 | p99 |\n|---|---|---|---|");
  for (const [name, list] of Object.entries(times)) {
    console.log(
      `| ${name} | ${ms(percentile(list, 50))} | ${ms(percentile(list, 90))} | ${ms(percentile(list, 99))} |`,
    );
  }
  console.log(
    `| added | ${ms(percentile(times.proxied, 50) - percentile(times.direct, 50))} | ${ms(percentile(times.proxied, 90) - percentile(times.direct, 90))} | ${ms(percentile(times.proxied, 99) - percentile(times.direct, 99))} |`,
  );
  console.log(
    `\nCPU per call, whole process: direct ${ms(cpuDirect)}, proxied ${ms(cpuProxied)}, proxy's share ${ms(cpuProxied - cpuDirect)}`,
  );

  // The same 500-tool listing over HTTP: first (new definitions) and unchanged.
  const tools = fiveHundredTools("http");
  listing = JSON.stringify({ tools });
  const first = await post(proxied, "tools/list", {});
  const unchanged: number[] = [];
  const directList: number[] = [];
  for (let i = 0; i < 50; i++) {
    directList.push(await post(direct, "tools/list", {}));
    unchanged.push(await post(proxied, "tools/list", {}));
  }
  unchanged.sort((a, b) => a - b);
  directList.sort((a, b) => a - b);
  const listCpuDirect = await cpuPerCall(direct, "tools/list", {}, 20);
  const listCpuProxied = await cpuPerCall(proxied, "tools/list", {}, 20);
  console.log(
    `\n### tools/list of 500 tools over HTTP (${(Buffer.byteLength(listing) / 1024).toFixed(0)} KiB)\n\n| | time |\n|---|---|\n| direct, p50 of 50 | ${ms(percentile(directList, 50))} |\n| through the proxy, first time | ${ms(first)} |\n| through the proxy, unchanged, p50 of 50 | ${ms(percentile(unchanged, 50))} |\n\nCPU per unchanged listing, whole process: direct ${ms(listCpuDirect)}, proxied ${ms(listCpuProxied)}, proxy's share ${ms(listCpuProxied - listCpuDirect)}`,
  );
  await agent.close();
  await proxy.close(1000);
  upstream.close();
}

/** The MCP policy point without HTTP: a catalog on `store`, quiet audit, one pod's identity. */
function gateOnly(
  policies: () => PolicySet,
  store: ConstructorParameters<typeof ToolCatalog>[0]["store"],
  upstream: Upstream,
): McpGate {
  const context = createProxyContext({
    policies,
    audit: quietAudit,
    registry: new SessionToolRegistry(),
    upstream,
    identity: { namespace: "bench", pod: "bench", session: "bench" },
  });
  return new McpGate(context, new ToolCatalog({ policies, store, namespace: "bench", audit: quietAudit }));
}

async function listingCost(): Promise<void> {
  const load = () => PolicySet.fromDocuments(parsePolicies(policyYaml(1), "bench.yaml").policies);
  let policies = load();
  const upstream = new Upstream();
  const gate = gateOnly(() => policies, new MemoryStore(), upstream);
  const mcp = { server: "bench", requestId: "bench" };
  const time = async (tools: ToolDefinition[]) => {
    // Each listing arrives as fresh JSON, as it would from the wire.
    const result = JSON.parse(JSON.stringify({ tools }));
    const cpu = process.cpuUsage();
    const started = performance.now();
    await gate.filterResult(mcp, "tools/list", undefined, result);
    const used = process.cpuUsage(cpu);
    return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 };
  };
  const cold = await time(fiveHundredTools("cold"));
  const fresh = await time(fiveHundredTools("fresh"));
  const same = fiveHundredTools("fresh");
  const unchanged: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < 50; i++) unchanged.push(await time(same));
  // A policy update (the same inspection config, compiled anew): the pod's findings come back from
  // the store instead of the rules.
  policies = load();
  const afterUpdate = await time(same);
  const wall = unchanged.map((u) => u.wall).sort((a, b) => a - b);
  const cpu = unchanged.map((u) => u.cpu).sort((a, b) => a - b);
  const row = (label: string, t: { wall: number; cpu: number }) =>
    `| ${label} | ${ms(t.wall)} | ${ms(t.cpu)} |`;
  console.log(
    [
      "\n### tools/list of 500 tools: filter + inspect + pin (gate only, no HTTP)\n",
      "| | wall | CPU |",
      "|---|---|---|",
      row("first listing of the process (inspection rules compiled on first use)", cold),
      row("first time these 500 definitions are seen", fresh),
      row("the same listing after a policy update (inspection config unchanged)", afterUpdate),
      row("unchanged, p50 of 50", { wall: percentile(wall, 50), cpu: percentile(cpu, 50) }),
      row("unchanged, p99 of 50", { wall: percentile(wall, 99), cpu: percentile(cpu, 99) }),
    ].join("\n"),
  );
  await upstream.close();
}

/** Tools an LLM request of a coding agent offers: 60 real definitions. */
const OFFERED_TOOLS = 60;

/**
 * One fresh pod (this script in a child process) with the store at `redisUrl`: its first 500-tool
 * listing through the MCP gate, or its first LLM request offering 60 tools to the model.
 */
async function podFirst(mode: "listing" | "offer", redisUrl: string): Promise<void> {
  const policies = PolicySet.fromDocuments(parsePolicies(policyYaml(1), "bench.yaml").policies);
  const guard = await openState({ redisUrl, log: () => {}, timeoutMs: 5000 });
  if (!(await guard.store.waitUntilReachable(5000))) throw new Error("redis-server did not answer");
  const upstream = new Upstream();
  const gate = gateOnly(() => policies, guard.store, upstream);
  const inspector = policyInspector(
    () => policies,
    quietAudit,
    { namespace: "bench", pod: "pod", session: "pod" },
    guard.store,
  );
  // Names of their own per mode: the listing pods' findings must not answer the offering pods.
  const tools = JSON.parse(JSON.stringify(fiveHundredTools(`pods-${mode}`))) as ToolDefinition[];
  const cpu = process.cpuUsage();
  const started = performance.now();
  if (mode === "listing")
    await gate.filterResult({ server: "bench", requestId: "pod" }, "tools/list", undefined, { tools });
  else await inspector.inspect(tools.slice(0, OFFERED_TOOLS), { dialect: "anthropic", requestId: "pod" });
  const used = process.cpuUsage(cpu);
  const shared = (await sharedInspections.get()).values;
  const count = (outcome: string) => shared.find((v) => v.labels.outcome === outcome)?.value ?? 0;
  console.log(
    JSON.stringify({
      wall: performance.now() - started,
      cpu: (used.user + used.system) / 1000,
      shared: count("shared"),
      inspected: count("inspected"),
    }),
  );
  await upstream.close();
  await guard.close();
}

async function podsSharingFindings(): Promise<void> {
  let server: RedisServer;
  try {
    server = await RedisServer.start();
  } catch (error) {
    console.log(`\n(fresh pods sharing findings: skipped, ${(error as Error).message})`);
    return;
  }
  const pod = (mode: "listing" | "offer") => {
    const out = execFileSync(
      process.execPath,
      [fileURLToPath(import.meta.url), `--pod-${mode}`, server.url],
      {
        encoding: "utf8",
      },
    );
    return JSON.parse(out.trim().split("\n").at(-1)!) as {
      wall: number;
      cpu: number;
      shared: number;
      inspected: number;
    };
  };
  try {
    const row = (label: string, t: { wall: number; cpu: number; shared: number; inspected: number }) =>
      `| ${label} | ${ms(t.wall)} | ${ms(t.cpu)} | ${t.inspected} | ${t.shared} |`;
    const lines = ["| | wall | CPU | inspected here | taken from the store |", "|---|---|---|---|---|"];
    for (const [mode, what] of [
      ["listing", "500-tool tools/list (gate only)"],
      ["offer", `LLM request offering ${OFFERED_TOOLS} tools (definition inspector)`],
    ] as const) {
      lines.push(row(`${what}: first pod of the cluster to see these definitions`, pod(mode)));
      lines.push(row(`${what}: next fresh pod`, pod(mode)));
    }
    console.log(
      [
        "\n### The first listing and the first LLM request of a fresh pod, findings shared through redis-server\n",
        ...lines,
      ].join("\n"),
    );
  } finally {
    await server.dispose();
  }
}

if (values["pod-listing"] || values["pod-offer"]) {
  await podFirst(
    values["pod-listing"] ? "listing" : "offer",
    (values["pod-listing"] ?? values["pod-offer"])!,
  );
  process.exit(0);
}

console.log(
  `MCP benchmarks on Node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}, ${new Date().toISOString()}`,
);
await listingCost();
await podsSharingFindings();
await callLatency();
