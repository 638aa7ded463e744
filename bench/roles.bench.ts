/**
 * The weight of each role of the compiled CLI (dist/), before and after in one run: start → ready and
 * RSS of `toolwall sidecar` (fed by the controller's bundle server, as in a pod, and from a policy
 * file) and `toolwall proxy`, wall time and peak RSS of `toolwall init` (real
 * iptables in a throw-away network namespace) and of `toolwall --help`, beside bare Node.
 *
 *   node bench/roles.bench.ts [--dist DIR]… [--runs N]
 *
 * Each --dist is a compiled tree (default: this checkout's dist/, built by `npm run build`); give the
 * dist of another checkout first to compare before/after on the same machine at the same moment.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { goal, percentile, table } from "./harness.ts";

const root = resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    dist: { type: "string", multiple: true },
    runs: { type: "string", default: "5" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(`Usage: node bench/roles.bench.ts [--dist DIR]… [--runs N]
Start → ready and RSS of each role of the compiled CLI (default dist/: npm run build); needs root for
toolwall init's network namespace. Give another checkout's dist first to compare before/after.`);
  process.exit(0);
}
const dists = (values.dist ?? [join(root, "dist")]).map((d) => resolve(d));
const runs = Number(values.runs);
const node = process.execPath;
const policy = join(root, "examples/policies/demo.yaml");
const scratch = mkdtempSync(join(tmpdir(), "toolwall-roles-"));
const resolvConf = join(scratch, "resolv.conf");
writeFileSync(resolvConf, "nameserver 10.0.0.10\n");

for (const dist of dists) {
  if (!existsSync(join(dist, "cli/entry.js")))
    throw new Error(`${dist}/cli/entry.js missing: run npm run build`);
}

function median(samples: number[]): number {
  return percentile(
    [...samples].sort((a, b) => a - b),
    50,
  );
}

function statusKb(pid: number, field: "VmRSS" | "RssAnon"): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? Number.NaN);
}

async function ready(adminPort: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${adminPort}/readyz`)).ok;
  } catch {
    return false;
  }
}

/** A long-running role: ms from spawn to /readyz answering 200, and RSS 1 s after (idle). */
async function serverRole(
  args: string[],
  adminPort: number,
  nodeOptions = "",
): Promise<{ readyMs: number; rssMb: number; anonMb: number }> {
  const started = performance.now();
  const child = spawn(node, args, {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  try {
    while (!(await ready(adminPort))) {
      if (child.exitCode !== null) throw new Error(`${args.join(" ")} exited: ${stderr}`);
      if (performance.now() - started > 20_000) throw new Error(`${args.join(" ")} not ready in 20 s`);
      await sleep(2);
    }
    const readyMs = performance.now() - started;
    await sleep(1000);
    return {
      readyMs,
      rssMb: statusKb(child.pid!, "VmRSS") / 1024,
      anonMb: statusKb(child.pid!, "RssAnon") / 1024,
    };
  } finally {
    child.kill("SIGTERM");
    await new Promise((done) => child.once("exit", done));
  }
}

/** A short-lived role: wall ms and peak RSS (GNU time's maximum resident set size). */
function shortRole(command: string[]): { wallMs: number; peakMb: number } {
  const started = performance.now();
  const result = spawnSync("/usr/bin/time", ["-f", "%M", ...command], { encoding: "utf8" });
  const wallMs = performance.now() - started;
  if (result.status !== 0) throw new Error(`${command.join(" ")} failed: ${result.stderr}`);
  const lines = result.stderr.trim().split("\n");
  return { wallMs, peakMb: Number(lines.at(-1)) / 1024 };
}

/** `toolwall init` for real: a fresh network namespace with a routed veth so the self-check runs. */
function initCommand(dist: string): string[] {
  const setup = [
    "ip link set lo up",
    "ip link add tw0 type veth peer name tw1",
    "ip link set tw1 up",
    "ip addr add 10.9.0.2/24 dev tw0",
    "ip link set tw0 up",
    "ip route add default via 10.9.0.1",
    "ip -6 addr add fd00::2/64 dev tw0 nodad",
    "ip -6 route add default via fd00::1",
  ].join(" && ");
  return [
    "unshare",
    "--net",
    "sh",
    "-c",
    `${setup} && exec "$0" "$@"`,
    node,
    join(dist, "cli/entry.js"),
    "init",
    "--resolv-conf",
    resolvConf,
  ];
}

/** The controller's bundle server (bench/fixtures/bundle-server.ts, one pod): the sidecar's production path. */
async function startBundleServer(): Promise<{ url: string; stop: () => void }> {
  const server = spawn(node, [join(root, "bench/fixtures/bundle-server.ts"), "1"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let output = "";
  const url = await new Promise<string>((found, fail) => {
    server.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\S+)/.exec(output);
      if (match) found(match[1]!);
    });
    server.once("exit", (code) => fail(new Error(`bundle server exited ${code}: ${output}`)));
  });
  return { url, stop: () => server.kill("SIGTERM") };
}

interface RoleFigures {
  bundleReadyMs: number;
  bundleRssMb: number;
  bundleAnonMb: number;
  sidecarReadyMs: number;
  sidecarRssMb: number;
  sidecarAnonMb: number;
  proxyReadyMs: number;
  proxyRssMb: number;
  initMs: number;
  initPeakMb: number;
  helpMs: number;
  helpPeakMb: number;
}

/** NODE_OPTIONS that build's webhook injects into the sidecar container, if any. */
async function sidecarNodeOptions(dist: string): Promise<string> {
  const inject = (await import(join(dist, "webhook/inject.js"))) as { SIDECAR_NODE_OPTIONS?: string };
  return inject.SIDECAR_NODE_OPTIONS ?? "";
}

async function measureDist(dist: string): Promise<RoleFigures> {
  const entry = join(dist, "cli/entry.js");
  const nodeOptions = await sidecarNodeOptions(dist);
  const sidecar = { ready: [] as number[], rss: [] as number[], anon: [] as number[] };
  const bundled = { ready: [] as number[], rss: [] as number[], anon: [] as number[] };
  const proxy = { ready: [] as number[], rss: [] as number[] };
  const init = { wall: [] as number[], peak: [] as number[] };
  const help = { wall: [] as number[], peak: [] as number[] };
  for (let run = 0; run < runs; run++) {
    const s = await serverRole(
      [
        entry,
        "sidecar",
        "--policy-file",
        policy,
        "--listen",
        "127.0.0.1:25101",
        "--admin",
        "127.0.0.1:25120",
        "--ca-dir",
        join(scratch, "ca"),
        "--namespace",
        "bench",
        "--pod",
        "roles",
      ],
      25120,
      nodeOptions,
    );
    sidecar.ready.push(s.readyMs);
    sidecar.rss.push(s.rssMb);
    sidecar.anon.push(s.anonMb);
    const b = await serverRole(
      [
        entry,
        "sidecar",
        "--controller-url",
        bundleServer.url,
        "--token-file",
        tokenFile,
        "--bundle-dir",
        mkdtempSync(join(scratch, "bundle-")),
        "--listen",
        "127.0.0.1:25103",
        "--admin",
        "127.0.0.1:25122",
        "--ca-dir",
        join(scratch, "ca"),
        "--namespace",
        "bench",
        "--pod",
        "agent-0",
      ],
      25122,
      nodeOptions,
    );
    bundled.ready.push(b.readyMs);
    bundled.rss.push(b.rssMb);
    bundled.anon.push(b.anonMb);
    const p = await serverRole(
      [entry, "proxy", "-f", policy, "--listen", "127.0.0.1:25102", "--admin", "127.0.0.1:25121"],
      25121,
    );
    proxy.ready.push(p.readyMs);
    proxy.rss.push(p.rssMb);
    const i = shortRole(initCommand(dist));
    init.wall.push(i.wallMs);
    init.peak.push(i.peakMb);
    const h = shortRole([node, entry, "--help"]);
    help.wall.push(h.wallMs);
    help.peak.push(h.peakMb);
  }
  return {
    bundleReadyMs: median(bundled.ready),
    bundleRssMb: median(bundled.rss),
    bundleAnonMb: median(bundled.anon),
    sidecarReadyMs: median(sidecar.ready),
    sidecarRssMb: median(sidecar.rss),
    sidecarAnonMb: median(sidecar.anon),
    proxyReadyMs: median(proxy.ready),
    proxyRssMb: median(proxy.rss),
    initMs: median(init.wall),
    initPeakMb: median(init.peak),
    helpMs: median(help.wall),
    helpPeakMb: median(help.peak),
  };
}

const bare = { wall: [] as number[], peak: [] as number[] };
for (let run = 0; run < runs; run++) {
  const b = shortRole([node, "-e", "0"]);
  bare.wall.push(b.wallMs);
  bare.peak.push(b.peakMb);
}
const tokenFile = join(scratch, "token");
writeFileSync(tokenFile, "bench-0");
const bundleServer = await startBundleServer();
const figures: RoleFigures[] = [];
try {
  for (const dist of dists) figures.push(await measureDist(dist));
} finally {
  bundleServer.stop();
}

const ms = (n: number) => `${n.toFixed(0)} ms`;
const mb = (n: number) => `${n.toFixed(1)} MB`;
const rows: [string, (f: RoleFigures) => string, string, (f: RoleFigures) => boolean][] = [
  [
    "`toolwall sidecar` (controller bundle) start → ready",
    (f) => ms(f.bundleReadyMs),
    "≤ 300 ms",
    (f) => f.bundleReadyMs <= 300,
  ],
  [
    "`toolwall sidecar` (controller bundle) RSS idle",
    (f) => mb(f.bundleRssMb),
    "≤ 80 MB",
    (f) => f.bundleRssMb <= 80,
  ],
  ["`toolwall sidecar` (controller bundle) RssAnon idle", (f) => mb(f.bundleAnonMb), "—", () => true],
  [
    "`toolwall sidecar` (policy file) start → ready",
    (f) => ms(f.sidecarReadyMs),
    "≤ 300 ms",
    (f) => f.sidecarReadyMs <= 300,
  ],
  [
    "`toolwall sidecar` (policy file) RSS idle",
    (f) => mb(f.sidecarRssMb),
    "≤ 80 MB",
    (f) => f.sidecarRssMb <= 80,
  ],
  ["`toolwall sidecar` (policy file) RssAnon idle", (f) => mb(f.sidecarAnonMb), "—", () => true],
  ["`toolwall proxy` start → ready", (f) => ms(f.proxyReadyMs), "—", () => true],
  ["`toolwall proxy` RSS idle", (f) => mb(f.proxyRssMb), "—", () => true],
  ["`toolwall init` (real, netns) wall", (f) => ms(f.initMs), "≤ 150 ms", (f) => f.initMs <= 150],
  ["`toolwall init` peak RSS", (f) => mb(f.initPeakMb), "≤ 40 MB", (f) => f.initPeakMb <= 40],
  ["`toolwall --help` wall", (f) => ms(f.helpMs), "—", () => true],
  ["`toolwall --help` peak RSS", (f) => mb(f.helpPeakMb), "—", () => true],
];
console.log(
  `## Role weight (bench/roles.bench.ts)\n\nMedian of ${runs} runs; bare Node (\`node -e 0\`): ${ms(median(bare.wall))}, ${mb(median(bare.peak))} peak. Load: ${readFileSync("/proc/loadavg", "utf8").trim()}.\n`,
);
const last = figures.at(-1)!;
console.log(
  table(
    ["role", ...dists.map((d) => `\`${d}\``), "goal", "last"],
    rows.map(([name, show, target, met]) => [
      name,
      ...figures.map(show),
      target,
      target === "—" ? "" : goal(met(last)),
    ]),
  ),
);
