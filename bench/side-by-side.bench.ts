/**
 * Toolwall beside what a skeptic would compare it with, in one run, on one upstream and one load
 * generator: a direct connection, `toolwall proxy` (compiled dist/, its own process), the Node
 * pass-through floor (bench/floor-proxy.ts), nginx as a plain reverse proxy and the Portkey gateway.
 *
 *   npm run build && node bench/side-by-side.bench.ts [--duration 10] [--only toolwall,floor]
 *
 * Upstream: nginx serving fixed bodies (a 2 KB Anthropic message with one allowed tool call, and a
 * 500-event SSE stream); load: wrk (compiled, Debian). On a machine with two cores or more the proxy
 * under test runs alone on the last core and everything else on the others (taskset). Per proxy:
 * CPU per request from /proc/<pid>/stat (the proxy's whole process tree), req/s and added p50/p99 at
 * c=16, added time to the first byte of a stream, RSS idle and after c=64 with 500 open streams.
 * Every Node proxy runs with the NODE_OPTIONS the webhook gives the sidecar, so flags favour none.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { cpus, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { SIDECAR_NODE_OPTIONS } from "../src/webhook/inject.ts";
import { message, request, streamDeltas, streamHead, streamTail } from "./fixtures/anthropic-bodies.ts";
import { percentile, table } from "./harness.ts";

const root = resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    only: { type: "string" },
    "ttfb-samples": { type: "string", default: "300" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(`Usage: node bench/side-by-side.bench.ts [--duration SECONDS] [--only toolwall,node,nginx,portkey] [--ttfb-samples N]
Direct, Toolwall (dist/: npm run build), the Node pass-through floor, nginx and the Portkey gateway on
one nginx upstream and wrk; needs wrk, nginx and taskset (scripts/install-prereqs.sh --bench).`);
  process.exit(0);
}
const seconds = Number(values.duration);
const ttfbSamples = Number(values["ttfb-samples"]);
const only = values.only?.split(",");
const node = process.execPath;
const scratch = mkdtempSync(join(tmpdir(), "toolwall-side-by-side-"));
// nginx started by root serves files as nobody.
chmodSync(scratch, 0o755);

for (const tool of ["wrk", "nginx", "taskset"]) {
  if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) throw new Error(`${tool} is not installed`);
}
if (!existsSync(join(root, "dist/cli/entry.js"))) throw new Error("dist/ missing: run `npm run build` first");

// The proxy under test gets the last core to itself; upstream, wrk and the TTFB client share the rest.
const cores = cpus().length;
const proxyCpus = cores >= 2 ? `${cores - 1}` : "0";
const loadCpus = cores >= 2 ? `0-${cores - 2}` : "0";
const pinned = (cpuList: string, command: string[]) => ["taskset", "-c", cpuList, ...command];

// ---- fixed bodies -------------------------------------------------------------------------------

const stream = streamHead + streamDeltas.join("") + streamTail;
const requestBody = JSON.stringify(request);
const streamRequestBody = JSON.stringify({ ...request, stream: true });

const www = join(scratch, "www");
mkdirSync(www);
writeFileSync(join(www, "message.json"), message);
writeFileSync(join(www, "stream.sse"), stream);
writeFileSync(join(scratch, "request.json"), requestBody);
writeFileSync(join(scratch, "stream-request.json"), streamRequestBody);

// ---- processes ----------------------------------------------------------------------------------

const children: ChildProcess[] = [];
process.on("exit", () => {
  for (const child of children) child.kill("SIGTERM");
});

/**
 * Starts a process and waits for `readyText` in its output. Output is kept only until then and
 * discarded afterwards (Toolwall writes an audit line per tool call: collecting it would grow the
 * harness, not the proxy).
 */
function start(command: string[], readyText: RegExp | undefined): Promise<ChildProcess> {
  const child = spawn(command[0]!, command.slice(1), {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: SIDECAR_NODE_OPTIONS },
  });
  children.push(child);
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (!readyText?.test(output)) return;
    child.stdout!.off("data", collect);
    child.stderr!.off("data", collect);
    child.stdout!.resume();
    child.stderr!.resume();
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  if (!readyText) {
    child.stdout!.off("data", collect).resume();
    child.stderr!.off("data", collect).resume();
    return Promise.resolve(child);
  }
  const started = performance.now();
  return new Promise((ready, fail) => {
    const deadline = setInterval(() => {
      if (readyText.test(output)) {
        clearInterval(deadline);
        ready(child);
      } else if (child.exitCode !== null || performance.now() - started > 30_000) {
        clearInterval(deadline);
        fail(new Error(`${command.join(" ")} did not start: ${output}`));
      }
    }, 10);
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  await new Promise((done) => child.once("exit", done));
}

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    const open = await new Promise<boolean>((answer) => {
      const probe = httpRequest({ host: "127.0.0.1", port, method: "HEAD", path: "/" }, (res) => {
        res.resume();
        answer(true);
      });
      probe.on("error", () => answer(false));
      probe.end();
    });
    if (open) return;
    await sleep(10);
  }
  throw new Error(`nothing listens on ${port}`);
}

function nginxConfig(name: string, server: string, extraHttp = ""): string {
  const file = join(scratch, `${name}.conf`);
  writeFileSync(
    file,
    `worker_processes 1; daemon off; pid ${scratch}/${name}.pid; error_log ${scratch}/${name}.err warn;
events { worker_connections 8192; }
http {
  access_log off; keepalive_requests 10000000; keepalive_timeout 300s;
  client_body_temp_path ${scratch}/${name}-body; proxy_temp_path ${scratch}/${name}-proxy;
  fastcgi_temp_path ${scratch}/${name}-fcgi; uwsgi_temp_path ${scratch}/${name}-uwsgi; scgi_temp_path ${scratch}/${name}-scgi;
  ${extraHttp}
  server { ${server} }
}
`,
  );
  return file;
}

const upstreamPort = 28180;
// POST to a static file is a 405 in nginx; error_page turns it into the file. x-bench picks the body;
// "slow" streams are rate-limited so that 500 of them stay open during the c=64 run.
const upstreamConfig = nginxConfig(
  "upstream",
  `listen 127.0.0.1:${upstreamPort} backlog=4096;
    limit_rate $bench_rate;
    location = /v1/messages { root ${www}; try_files $bench_file =404; error_page 405 =200 $bench_file; }
    location / { root ${www}; }`,
  `types { application/json json; text/event-stream sse; }
  map $http_x_bench $bench_rate { default 0; slow 2k; }
  map $http_x_bench $bench_file { default /message.json; stream /stream.sse; slow /stream.sse; }`,
);

interface Target {
  name: string;
  /** Base URL that `/v1/messages` is appended to. */
  base: string;
  headers: Record<string, string>;
  /** Starts the proxy; undefined for the direct connection. */
  launch?: () => Promise<ChildProcess>;
}

const anthropicHeaders = {
  "content-type": "application/json",
  "x-api-key": "bench",
  "anthropic-version": "2023-06-01",
};
const policy = join(root, "examples/policies/demo.yaml");
const targets: Target[] = [
  { name: "direct", base: `http://127.0.0.1:${upstreamPort}`, headers: anthropicHeaders },
  {
    name: "toolwall",
    base: "http://127.0.0.1:28181/anthropic",
    headers: anthropicHeaders,
    launch: () =>
      start(
        pinned(proxyCpus, [
          node,
          join(root, "dist/cli/entry.js"),
          "proxy",
          "-f",
          policy,
          "--listen",
          "127.0.0.1:28181",
          "--admin",
          "127.0.0.1:28191",
          "--upstream",
          `anthropic=http://127.0.0.1:${upstreamPort}`,
        ]),
        /listening on/,
      ),
  },
  {
    name: "node floor",
    base: "http://127.0.0.1:28182",
    headers: anthropicHeaders,
    launch: () =>
      start(
        pinned(proxyCpus, [
          node,
          join(root, "bench/floor-proxy.ts"),
          "28182",
          `http://127.0.0.1:${upstreamPort}`,
        ]),
        /listening/,
      ),
  },
  {
    name: "nginx",
    base: "http://127.0.0.1:28183",
    headers: anthropicHeaders,
    launch: async () => {
      const config = nginxConfig(
        "reverse",
        `listen 127.0.0.1:28183 backlog=4096;
    location / {
      proxy_pass http://bench_upstream; proxy_http_version 1.1; proxy_set_header Connection "";
      proxy_buffering off; proxy_request_buffering off;
    }`,
        `upstream bench_upstream { server 127.0.0.1:${upstreamPort}; keepalive 256; }`,
      );
      const child = await start(pinned(proxyCpus, ["nginx", "-c", config, "-p", scratch]), undefined);
      await waitForPort(28183);
      return child;
    },
  },
  {
    name: "portkey",
    base: "http://127.0.0.1:28184",
    headers: {
      ...anthropicHeaders,
      "x-portkey-provider": "anthropic",
      "x-portkey-custom-host": `http://127.0.0.1:${upstreamPort}/v1`,
    },
    launch: () =>
      start(
        pinned(proxyCpus, [
          node,
          join(root, "node_modules/@portkey-ai/gateway/build/start-server.js"),
          "--port=28184",
          "--headless",
        ]),
        /Ready for connections/,
      ),
  },
].filter((target) => target.name === "direct" || !only || only.includes(target.name.split(" ")[0]!));

// ---- measurements -------------------------------------------------------------------------------

/** Every process of a tree (nginx's master and worker, taskset's exec'd child). */
function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    for (const task of readdirOrEmpty(`/proc/${tree[i]}/task`)) {
      const children = readOrEmpty(`/proc/${tree[i]}/task/${task}/children`).trim();
      if (children) tree.push(...children.split(" ").map(Number));
    }
  }
  return tree;
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

function readdirOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

const clockTicks = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

function cpuMs(pid: number): number {
  let ticks = 0;
  for (const p of processTree(pid)) {
    const stat = readOrEmpty(`/proc/${p}/stat`);
    if (!stat) continue;
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1000) / clockTicks;
}

function rssMb(pid: number): number {
  let kb = 0;
  for (const p of processTree(pid))
    kb += Number(/VmRSS:\s+(\d+) kB/.exec(readOrEmpty(`/proc/${p}/status`))?.[1] ?? 0);
  return kb / 1024;
}

interface WrkResult {
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

function wrkScript(target: Target, bench: string): string {
  const file = join(scratch, `${target.name.replace(/\W/g, "-")}-${bench}.lua`);
  const headers = Object.entries({ ...target.headers, ...(bench ? { "x-bench": bench } : {}) })
    .map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`)
    .join("\n");
  writeFileSync(
    file,
    `wrk.method = "POST"\nlocal f = io.open(${JSON.stringify(join(scratch, bench ? "stream-request.json" : "request.json"))})\nwrk.body = f:read("*a")\nf:close()\n${headers}\n`,
  );
  return file;
}

const unitMs: Record<string, number> = { us: 0.001, ms: 1, s: 1000 };
function wrkMs(output: string, label: string): number {
  const match = new RegExp(`^\\s+${label}\\s+([\\d.]+)(us|ms|s)$`, "m").exec(output);
  return match ? Number(match[1]) * unitMs[match[2]!]! : Number.NaN;
}

async function wrk(target: Target, connections: number, durationS: number, bench = ""): Promise<WrkResult> {
  const command = pinned(loadCpus, [
    "wrk",
    "-t1",
    `-c${connections}`,
    `-d${durationS}s`,
    "--latency",
    "--timeout",
    "60s",
    "-s",
    wrkScript(target, bench),
    `${target.base}/v1/messages`,
  ]);
  const child = spawn(command[0]!, command.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const code = await new Promise((done) => child.once("exit", done));
  if (code !== 0) throw new Error(`wrk failed: ${output}`);
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(output);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  return {
    requests: Number(/(\d+) requests in/.exec(output)?.[1] ?? 0),
    perSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? 0),
    p50Ms: wrkMs(output, "50%"),
    p99Ms: wrkMs(output, "99%"),
    errors:
      Number(errors?.[1] ?? 0) +
      (socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
  };
}

/**
 * Median time to the first body byte of the 500-event stream, one request at a time, keep-alive; or
 * why the stream failed (Portkey 1.15.2 answers Anthropic streams with a 500 under Node 24).
 */
async function ttfbMs(target: Target): Promise<number | string> {
  const url = new URL(`${target.base}/v1/messages`);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  for (let i = 0; i < ttfbSamples + 20; i++) {
    const sample = await new Promise<number | string>((done, fail) => {
      const started = performance.now();
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          agent,
          headers: { ...target.headers, "x-bench": "stream" },
        },
        (res) => {
          let first = 0;
          res.on("data", () => {
            first ||= performance.now() - started;
          });
          res.on("end", () => done(res.statusCode === 200 ? first : `fails: HTTP ${res.statusCode}`));
        },
      );
      req.on("error", fail);
      req.end(streamRequestBody);
    });
    if (typeof sample === "string") {
      agent.destroy();
      return sample;
    }
    if (i >= 20) samples.push(sample);
  }
  agent.destroy();
  return percentile(
    samples.sort((a, b) => a - b),
    50,
  );
}

interface Figures {
  name: string;
  cpuUsPerRequest: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  ttfbMs: number | string;
  rssIdleMb: number;
  rssLoadedMb: number;
  errors: number;
}

async function measure(target: Target): Promise<Figures> {
  console.error(`side-by-side: ${target.name}…`);
  const child = target.launch ? await target.launch() : undefined;
  const pid = child?.pid;
  await sleep(1000);
  const rssIdleMb = pid ? rssMb(pid) : Number.NaN;
  await wrk(target, 16, Math.min(3, seconds));
  const cpuBefore = pid ? cpuMs(pid) : 0;
  const c16 = await wrk(target, 16, seconds);
  const cpuUsPerRequest = pid ? ((cpuMs(pid) - cpuBefore) * 1000) / Math.max(1, c16.requests) : Number.NaN;
  const ttfb = await ttfbMs(target);
  // Sustained c=64 while 500 rate-limited streams stay open through the proxy (if it streams at all).
  const streams = typeof ttfb === "number";
  const [c64, slow] = await Promise.all([
    wrk(target, 64, seconds),
    streams ? wrk(target, 500, seconds, "slow") : undefined,
  ]);
  const rssLoadedMb = pid ? rssMb(pid) : Number.NaN;
  if (child) await stop(child);
  return {
    name: target.name,
    cpuUsPerRequest,
    perSecond: c16.perSecond,
    p50Ms: c16.p50Ms,
    p99Ms: c16.p99Ms,
    ttfbMs: ttfb,
    rssIdleMb,
    rssLoadedMb,
    errors: c16.errors + c64.errors + (slow?.errors ?? 0),
  };
}

const upstream = await start(pinned(loadCpus, ["nginx", "-c", upstreamConfig, "-p", scratch]), undefined);
await waitForPort(upstreamPort);
const results: Figures[] = [];
try {
  for (const target of targets) results.push(await measure(target));
} finally {
  await stop(upstream);
}

const direct = results.find((r) => r.name === "direct")!;
const floor = results.find((r) => r.name === "node floor");
const fixed = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : "—");
const ratio = (n: number, d: number | undefined) =>
  d && Number.isFinite(n) ? `${(n / d).toFixed(2)}×` : "—";
const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(`## Side by side (bench/side-by-side.bench.ts)

${new Date().toISOString()}; ${cores} × ${cpus()[0]?.model ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; load average after the run ${load}. wrk -t1, ${seconds} s per figure; Node proxies (Toolwall, floor, Portkey) run with the sidecar's NODE_OPTIONS (\`${SIDECAR_NODE_OPTIONS}\`); proxy pinned to CPU ${proxyCpus}, upstream nginx, wrk and the TTFB client to CPU ${loadCpus}. Upstream: nginx serving a ${message.length}-byte Anthropic message with one allowed tool call, or a 500-event stream (${stream.length} bytes); request: ${requestBody.length} bytes, two offered tools. Direct: ${fixed(direct.perSecond, 0)} req/s, p50 ${fixed(direct.p50Ms)} ms, p99 ${fixed(direct.p99Ms)} ms, TTFB ${fixed(direct.ttfbMs as number)} ms.
`);
console.log(
  table(
    [
      "",
      "CPU per request (c=16)",
      "req/s (c=16)",
      "added p50 / p99 (c=16)",
      "added TTFB, 500-event stream",
      "RSS idle → after c=64 + 500 streams",
      "CPU / floor",
      "req/s / floor",
      "errors",
    ],
    results
      .filter((r) => r !== direct)
      .map((r) => [
        r.name,
        `${fixed(r.cpuUsPerRequest, 0)} µs`,
        fixed(r.perSecond, 0),
        `+${fixed(r.p50Ms - direct.p50Ms)} / +${fixed(r.p99Ms - direct.p99Ms)} ms`,
        typeof r.ttfbMs === "number" ? `+${fixed(r.ttfbMs - (direct.ttfbMs as number))} ms` : r.ttfbMs,
        `${fixed(r.rssIdleMb, 0)} → ${fixed(r.rssLoadedMb, 0)} MB`,
        ratio(r.cpuUsPerRequest, floor?.cpuUsPerRequest),
        ratio(r.perSecond, floor?.perSecond),
        String(r.errors),
      ]),
  ),
);
