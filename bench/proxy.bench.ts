/**
 * The LLM proxy against a direct connection, in the same run: `toolwall proxy` runs as its own
 * process (so its CPU and RSS can be read from /proc) in front of a local Anthropic-shaped upstream.
 * Non-streaming 2 KB responses at concurrency 1/16/64; 500-event streams (added TTFB, added total,
 * proxy CPU per stream); RSS with 500 concurrent idle streams.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Agent } from "undici";
import { message, request, streamDeltas, streamHead, streamTail } from "./fixtures/anthropic-bodies.ts";
import { goal, percentile, table } from "./harness.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

const jsonResponse = Buffer.from(message);

/** Idle streams held open for the RSS measurement, released at the end. */
const idle = new Set<ServerResponse>();

async function writeStream(res: ServerResponse): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.write(streamHead);
  for (let i = 0; i < streamDeltas.length; i += 8) {
    if (!res.write(streamDeltas.slice(i, i + 8).join(""))) await new Promise((r) => res.once("drain", r));
    await new Promise((r) => setImmediate(r));
  }
  res.end(streamTail);
}

const upstream = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    if (req.headers["x-bench"] === "stream") void writeStream(res);
    else if (req.headers["x-bench"] === "idle") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(streamHead);
      idle.add(res);
    } else {
      res.writeHead(200, { "content-type": "application/json", "content-length": jsonResponse.length });
      res.end(jsonResponse);
    }
  });
});
upstream.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

const child: ChildProcess = spawn(
  process.execPath,
  [
    `${root}bin/toolwall.js`,
    "proxy",
    "-f",
    `${root}examples/policies/demo.yaml`,
    "--listen",
    "127.0.0.1:0",
    "--admin",
    "127.0.0.1:0",
    "--upstream",
    `anthropic=${upstreamUrl}`,
  ],
  { stdio: ["ignore", "ignore", "pipe"] },
);
let stderr = "";
child.stderr!.on("data", (chunk: Buffer) => {
  stderr += chunk.toString();
});
const deadline = Date.now() + 30_000;
while (!/listening on (http:\/\/\S+:\d+)/.test(stderr)) {
  if (Date.now() > deadline || child.exitCode !== null) throw new Error(`proxy did not start: ${stderr}`);
  await new Promise((r) => setTimeout(r, 50));
}
const proxyUrl = `${/listening on (http:\/\/\S+:\d+)/.exec(stderr)![1]}/anthropic`;

function procStat(pid: number): { cpuMs: number; rssKb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return { cpuMs: (ticks * 1000) / 100, rssKb: Number(rss?.[1] ?? 0) };
}

const requestBody = JSON.stringify(request);

const agent = new Agent({ connections: 600, pipelining: 1, keepAliveTimeout: 60_000 });

async function post(base: string, kind: "json" | "stream" | "idle") {
  const url = new URL(`${base}/v1/messages`);
  const started = performance.now();
  const response = await agent.request({
    origin: url.origin,
    path: url.pathname,
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "sk-ant-bench", "x-bench": kind },
    body: requestBody,
  });
  return { started, response };
}

async function oneJson(base: string): Promise<number> {
  const { started, response } = await post(base, "json");
  await response.body.arrayBuffer();
  return performance.now() - started;
}

async function loadRun(base: string, concurrency: number, total: number) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        latencies.push(await oneJson(base));
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), rps: total / seconds };
}

async function oneStream(base: string): Promise<{ ttfb: number; total: number }> {
  const { started, response } = await post(base, "stream");
  let ttfb = 0;
  for await (const _chunk of response.body) if (ttfb === 0) ttfb = performance.now() - started;
  return { ttfb, total: performance.now() - started };
}

const fmt = (ms: number) => ms.toFixed(2);
const direct = upstreamUrl;
const pid = child.pid!;

// Warm both paths (JIT, connection pools).
await loadRun(direct, 8, 400);
await loadRun(proxyUrl, 8, 400);

const loadRows: (string | number)[][] = [];
let c16: { addedP50: number; addedP99: number; ratio: number } | undefined;
for (const [concurrency, total] of [
  [1, 500],
  [16, 2000],
  [64, 2000],
] as const) {
  const d = await loadRun(direct, concurrency, total);
  const cpuStart = procStat(pid).cpuMs;
  const p = await loadRun(proxyUrl, concurrency, total);
  const cpuPerRequest = ((procStat(pid).cpuMs - cpuStart) / total) * 1000;
  const ratio = p.rps / d.rps;
  if (concurrency === 16) c16 = { addedP50: p.p50 - d.p50, addedP99: p.p99 - d.p99, ratio };
  loadRows.push([
    concurrency,
    `${fmt(d.p50)} / ${fmt(d.p99)}`,
    `${fmt(p.p50)} / ${fmt(p.p99)}`,
    `${fmt(p.p50 - d.p50)} / ${fmt(p.p99 - d.p99)}`,
    `${d.rps.toFixed(0)} → ${p.rps.toFixed(0)}`,
    `${(ratio * 100).toFixed(0)} %`,
    `${cpuPerRequest.toFixed(0)} µs`,
  ]);
}
console.log("Non-streaming, 2 KB JSON response with one allowed tool call (ms):\n");
console.log(
  table(
    [
      "concurrency",
      "direct p50 / p99",
      "proxy p50 / p99",
      "added p50 / p99",
      "req/s direct → proxy",
      "throughput",
      "proxy CPU / request",
    ],
    loadRows,
  ),
);

const streams = 60;
for (let i = 0; i < 5; i++) await oneStream(proxyUrl);
const directStreams: { ttfb: number; total: number }[] = [];
for (let i = 0; i < streams; i++) directStreams.push(await oneStream(direct));
const cpuBefore = procStat(pid).cpuMs;
const proxyStreams: { ttfb: number; total: number }[] = [];
for (let i = 0; i < streams; i++) proxyStreams.push(await oneStream(proxyUrl));
const cpuPerStream = (procStat(pid).cpuMs - cpuBefore) / streams;
const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const addedTtfb = median(proxyStreams.map((s) => s.ttfb)) - median(directStreams.map((s) => s.ttfb));
const addedTotal = median(proxyStreams.map((s) => s.total)) - median(directStreams.map((s) => s.total));
console.log(`\nStreams of 500 SSE events, ${streams} one after another (medians, ms):\n`);
console.log(
  table(
    ["", "direct", "proxy", "added"],
    [
      [
        "time to first byte",
        fmt(median(directStreams.map((s) => s.ttfb))),
        fmt(median(proxyStreams.map((s) => s.ttfb))),
        fmt(addedTtfb),
      ],
      [
        "total time",
        fmt(median(directStreams.map((s) => s.total))),
        fmt(median(proxyStreams.map((s) => s.total))),
        fmt(addedTotal),
      ],
      ["proxy CPU per stream", "", `${cpuPerStream.toFixed(1)} ms`, ""],
    ],
  ),
);

const openCount = 500;
await new Promise((r) => setTimeout(r, 500));
const rssIdle = procStat(pid).rssKb;
const open = await Promise.all(Array.from({ length: openCount }, () => post(proxyUrl, "idle")));
const readers = open.map(({ response }) => {
  const iterator = response.body[Symbol.asyncIterator]();
  return iterator.next().then(() => iterator);
});
const iterators = await Promise.all(readers);
await new Promise((r) => setTimeout(r, 1000));
const rssOpen = procStat(pid).rssKb;
const perStreamKb = (rssOpen - rssIdle) / openCount;
for (const res of idle) res.end(streamTail);
await Promise.all(
  iterators.map(async (iterator) => {
    for (let part = await iterator.next(); !part.done; part = await iterator.next());
  }),
);
console.log(`\nMemory with ${openCount} concurrent open (idle) streams:\n`);
console.log(
  table(
    ["proxy RSS idle", `proxy RSS, ${openCount} open streams`, "per open stream"],
    [
      [
        `${(rssIdle / 1024).toFixed(1)} MB`,
        `${(rssOpen / 1024).toFixed(1)} MB`,
        `${perStreamKb.toFixed(1)} KB`,
      ],
    ],
  ),
);

// The same pipeline in this process (client, proxy and upstream on one event loop): no scheduler
// hop between processes, so on a loaded machine this isolates what the proxy itself costs.
const { startLocalProxy } = await import("../src/runtime/local.ts");
const { providerRoutes } = await import("../src/dialects/providers.ts");
const { PolicySet } = await import("../src/policy/evaluate.ts");
const { loadPolicyFiles } = await import("../src/policy/load.ts");
const { JsonLineAuditSink } = await import("../src/telemetry/audit.ts");
const { Writable } = await import("node:stream");
const inProcess = await startLocalProxy({
  policies: PolicySet.fromDocuments(loadPolicyFiles([`${root}examples/policies/demo.yaml`])),
  audit: new JsonLineAuditSink(new Writable({ write: (_chunk, _encoding, done) => done() })),
  providers: providerRoutes({ anthropic: upstreamUrl }),
  listen: { host: "127.0.0.1", port: 0 },
  state: {},
  log: () => {},
});
async function sequential(base: string, count: number) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) latencies.push(await oneJson(base));
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 50),
    wall: (performance.now() - started) / count,
    cpuUs: (used.user + used.system) / count,
  };
}
await sequential(`${inProcess.url}/anthropic`, 300);
const inProcessRows: (string | number)[][] = [];
for (let round = 1; round <= 3; round++) {
  const d = await sequential(direct, 1000);
  const p = await sequential(`${inProcess.url}/anthropic`, 1000);
  inProcessRows.push([
    round,
    `${fmt(d.p50)} / ${fmt(p.p50)}`,
    fmt(p.p50 - d.p50),
    `${d.cpuUs.toFixed(0)} / ${p.cpuUs.toFixed(0)} µs`,
    `${(p.cpuUs - d.cpuUs).toFixed(0)} µs`,
  ]);
}
await inProcess.close(1000);
console.log("\nIn-process cross-check, 1,000 sequential 2 KB requests per round:\n");
console.log(
  table(
    ["round", "p50 direct / proxy (ms)", "added p50 (ms)", "CPU per request direct / proxy", "added CPU"],
    inProcessRows,
  ),
);

console.log("\nGoals:\n");
console.log(
  table(
    ["goal", "measured", ""],
    [
      ["added p50 ≤ 1 ms at concurrency 16", `${fmt(c16!.addedP50)} ms`, goal(c16!.addedP50 <= 1)],
      ["added p99 ≤ 3 ms at concurrency 16", `${fmt(c16!.addedP99)} ms`, goal(c16!.addedP99 <= 3)],
      ["added TTFB ≤ 1 ms", `${fmt(addedTtfb)} ms`, goal(addedTtfb <= 1)],
      ["throughput ≥ 60 % of direct (c=16)", `${(c16!.ratio * 100).toFixed(0)} %`, goal(c16!.ratio >= 0.6)],
      ["≤ 50 KB per idle open stream", `${perStreamKb.toFixed(1)} KB`, goal(perStreamKb <= 50)],
    ],
  ),
);

child.kill("SIGTERM");
await new Promise((r) => child.once("exit", r));
await agent.close();
upstream.closeAllConnections();
upstream.close();
