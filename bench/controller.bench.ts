/**
 * 1,000 simulated sidecars long-polling one controller: time from an MCPPolicy change until every
 * sidecar holds the new bundle, and the controller's memory.
 *
 * With the test control plane's binaries (test/k8s/binaries.ts; `BENCH_K8S=build` builds them) the
 * change is a PATCH on a real kube-apiserver watched by `toolwall controller` in its own process.
 * Without them the bundle server runs alone (bench/fixtures/bundle-server.ts) and the change is
 * applied to its model directly: the fan-out part of the path only.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { Agent as HttpAgent, get as httpGet } from "node:http";
import { createInterface } from "node:readline";
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import { fetch as undiciFetch } from "undici";
import { binaryPaths, ensureBinaries } from "../test/k8s/binaries.ts";
import { freePort, startControlPlane } from "../test/k8s/control-plane.ts";
import { goal, percentile, table } from "./harness.ts";

const sidecars = Number(process.env.BENCH_SIDECARS ?? 1000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const namespace = "bench";
const group = "toolwall.io";
const version = "v1alpha1";
const plural = "mcppolicies";
const toolwall = new URL("../bin/toolwall.js", import.meta.url).pathname;
/** The heap limits recommended for the controller container (docs/benchmarks.md "Controller"). */
const controllerNodeOptions =
  process.env.BENCH_CONTROLLER_NODE_OPTIONS ?? "--max-old-space-size=128 --max-semi-space-size=4";
const controllerEnv = { ...process.env, NODE_OPTIONS: controllerNodeOptions };

function rssMiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN) / 1024;
}

async function inBatches<T>(count: number, batch: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < count; start += batch) {
    const slice = Array.from({ length: Math.min(batch, count - start) }, (_, k) => task(start + k));
    results.push(...(await Promise.all(slice)));
  }
  return results;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Setup {
  mode: string;
  base: string;
  tokens: string[];
  controller: ChildProcess;
  change(round: number): Promise<void>;
  close(): Promise<void>;
  notes: string;
}

async function withApiServer(): Promise<Setup> {
  const binaries = await ensureBinaries();
  const plane = await startControlPlane(binaries);
  const setupStart = performance.now();
  const config = new KubeConfig();
  config.loadFromFile(plane.kubeconfigPath);
  const core = config.makeApiClient(CoreV1Api);
  const custom = config.makeApiClient(CustomObjectsApi);
  const kubectl = async (...args: string[]) => {
    const child = spawn(binaries.kubectl, ["--kubeconfig", plane.kubeconfigPath, ...args], {
      stdio: "ignore",
    });
    const code = await new Promise((resolve) => child.on("exit", resolve));
    if (code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${code}`);
  };
  await kubectl("apply", "-f", new URL("../crds/", import.meta.url).pathname);
  await kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd/mcppolicies.toolwall.io");
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: "agent", namespace } } });
  const pods = await inBatches(sidecars, 50, (i) =>
    core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: `agent-${i}`, labels: { app: "agent" } },
        spec: {
          serviceAccountName: "agent",
          automountServiceAccountToken: false,
          containers: [{ name: "a", image: "agent" }],
        },
      },
    }),
  );
  const tokens = await inBatches(sidecars, 50, async (i) => {
    const request = await core.createNamespacedServiceAccountToken({
      namespace,
      name: "agent",
      body: {
        spec: {
          audiences: ["toolwall"],
          expirationSeconds: 3600,
          boundObjectRef: { apiVersion: "v1", kind: "Pod", name: `agent-${i}`, uid: pods[i]!.metadata!.uid! },
        },
      },
    });
    return request.status!.token!;
  });
  const policyBody = (tools: string[]) => ({
    apiVersion: `${group}/${version}`,
    kind: "MCPPolicy",
    metadata: { name: "bench", namespace },
    spec: {
      podSelector: { matchLabels: { app: "agent" } },
      toolPolicy: { rules: [{ action: "Deny", tools }] },
    },
  });
  await custom.createNamespacedCustomObject({
    group,
    version,
    plural,
    namespace,
    body: policyBody(["delete_0"]),
  });
  const setupSeconds = (performance.now() - setupStart) / 1000;
  const port = await freePort();
  const controller = spawn(
    process.execPath,
    [
      toolwall,
      "controller",
      "--kubeconfig",
      plane.kubeconfigPath,
      "--listen",
      `127.0.0.1:${port}`,
      "--namespace",
      namespace,
    ],
    { stdio: ["ignore", "ignore", "inherit"], env: controllerEnv },
  );
  return {
    mode: "real kube-apiserver watched by `toolwall controller` (own process)",
    base: `http://127.0.0.1:${port}`,
    tokens,
    controller,
    notes: `setup (${sidecars} pods + TokenRequests) ${setupSeconds.toFixed(1)} s`,
    change: async (round) => {
      await custom.patchNamespacedCustomObject(
        { group, version, plural, namespace, name: "bench", body: policyBody([`delete_${round}`]) },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
    },
    close: async () => {
      controller.kill("SIGKILL");
      await plane.stop();
    },
  };
}

async function bundleServerAlone(): Promise<Setup> {
  const controller = spawn(
    process.execPath,
    [new URL("./fixtures/bundle-server.ts", import.meta.url).pathname, String(sidecars)],
    { stdio: ["pipe", "pipe", "inherit"], env: controllerEnv },
  );
  const lines = createInterface({ input: controller.stdout! });
  const base = await new Promise<string>((resolve) => {
    lines.on("line", (line) => {
      if (line.startsWith("listening ")) resolve(line.slice("listening ".length));
    });
  });
  return {
    mode: "bundle server alone (no kube-apiserver binaries): change applied to its model",
    base,
    tokens: Array.from({ length: sidecars }, (_, i) => `bench-${i}`),
    controller,
    notes: "TokenReview answered in process",
    change: async () => {
      controller.stdin!.write("change\n");
    },
    close: async () => {
      controller.kill("SIGKILL");
    },
  };
}

const haveBinaries = Object.values(binaryPaths()).every((path) => existsSync(path));
const setup =
  haveBinaries || process.env.BENCH_K8S === "build" ? await withApiServer() : await bundleServerAlone();
try {
  const { base, tokens, controller } = setup;
  for (;;) {
    const ready = await undiciFetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    await sleep(200);
  }
  const idleRss = rssMiB(controller.pid!, "VmRSS");
  const held: string[] = new Array(sidecars).fill("");
  const receivedAt: number[] = new Array(sidecars).fill(0);
  let running = true;
  let errors = 0;
  // node:http rather than fetch: 1,000 sidecars share this one process, their side must stay cheap.
  const agent = new HttpAgent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const { hostname, port } = new URL(base);
  const get = (path: string, token: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpGet(
        { hostname, port, path, agent, headers: { authorization: `Bearer ${token}` } },
        (response) => {
          let body = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => {
            body += chunk;
          });
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
          response.on("error", reject);
        },
      );
      request.on("error", reject);
    });
  const poll = async (i: number) => {
    while (running) {
      const since = held[i] ? `&since=${held[i]}` : "";
      try {
        const response = await get(`/v1/bundle?namespace=${namespace}&pod=agent-${i}${since}`, tokens[i]!);
        if (response.status === 200) {
          held[i] = (JSON.parse(response.body) as { hash: string }).hash;
          receivedAt[i] = performance.now();
        } else if (response.status !== 304) {
          errors++;
          await sleep(200);
        }
      } catch {
        if (running) errors++;
        await sleep(200);
      }
    }
  };
  const loops = Array.from({ length: sidecars }, (_, i) => poll(i));
  const waitAll = async (predicate: () => boolean, limitMs: number) => {
    const deadline = performance.now() + limitMs;
    while (!predicate() && performance.now() < deadline) await sleep(2);
    return predicate();
  };
  await waitAll(() => held.every((h) => h !== ""), 120_000);
  await sleep(1000);
  const propagation: number[] = [];
  let complete = 0;
  for (let round = 1; round <= rounds; round++) {
    const before = held[0];
    const started = performance.now();
    await setup.change(round);
    const all = await waitAll(() => held.every((h) => h !== before) && new Set(held).size === 1, 20_000);
    if (all) complete++;
    for (let i = 0; i < sidecars; i++) {
      propagation.push(held[i] !== before ? receivedAt[i]! - started : Number.POSITIVE_INFINITY);
    }
    await sleep(500);
  }
  const metrics = await (await undiciFetch(`${base}/metrics`)).text();
  const metric = (name: string) =>
    Number(new RegExp(`^${name} (\\S+)$`, "m").exec(metrics)?.[1] ?? Number.NaN);
  const pushSeconds =
    metric("toolwall_controller_bundle_push_duration_seconds_sum") /
    metric("toolwall_controller_bundle_push_duration_seconds_count");
  const busyRss = rssMiB(controller.pid!, "VmRSS");
  const peakRss = rssMiB(controller.pid!, "VmHWM");
  running = false;
  await setup.close();
  await Promise.race([Promise.all(loops), sleep(5000)]);
  agent.destroy();
  propagation.sort((a, b) => a - b);
  const p99 = percentile(propagation, 99);
  const mb = (mib: number) => mib * 1.048576;
  console.log(
    `## Controller\n\n${sidecars} long-polling sidecars, ${rounds} MCPPolicy changes. Mode: ${setup.mode}; controller NODE_OPTIONS="${controllerNodeOptions}"; ${setup.notes}; ${errors} request errors; rounds where all sidecars converged: ${complete}/${rounds}.\n`,
  );
  console.log(
    table(
      ["measure", "value", "goal", ""],
      [
        ["CR change → sidecar holds new bundle, p50", `${percentile(propagation, 50).toFixed(0)} ms`, "", ""],
        [
          "CR change → sidecar holds new bundle, p99",
          `${p99.toFixed(0)} ms`,
          "≤ 2,000 ms",
          goal(p99 <= 2000),
        ],
        ["CR change → last sidecar (max)", `${propagation.at(-1)!.toFixed(0)} ms`, "", ""],
        [
          "controller: rebuild → last waiting reply written (mean)",
          `${(pushSeconds * 1000).toFixed(0)} ms`,
          "",
          "",
        ],
        ["controller RSS, synced, before the sidecars", `${mb(idleRss).toFixed(0)} MB`, "", ""],
        [
          `controller RSS with ${sidecars} long-polls`,
          `${mb(busyRss).toFixed(0)} MB`,
          "≤ 300 MB",
          goal(mb(busyRss) <= 300),
        ],
        ["controller peak RSS (VmHWM)", `${mb(peakRss).toFixed(0)} MB`, "≤ 300 MB", goal(mb(peakRss) <= 300)],
      ],
    ),
  );
} finally {
  await setup.close().catch(() => undefined);
}
