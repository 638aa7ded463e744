/**
 * 1,000 simulated sidecars long-polling one `toolwall controller` (a separate process) that watches a
 * real kube-apiserver: time from an MCPPolicy change on the API server until every sidecar holds the
 * new bundle, and the controller's memory. Needs the test control plane's binaries (built from Go
 * modules on first use, see test/k8s/binaries.ts).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import { Agent, fetch as undiciFetch } from "undici";
import { ensureBinaries } from "../test/k8s/binaries.ts";
import { freePort, startControlPlane } from "../test/k8s/control-plane.ts";
import { goal, percentile, table } from "./harness.ts";

const sidecars = Number(process.env.BENCH_SIDECARS ?? 1000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const namespace = "bench";
const group = "toolwall.io";
const version = "v1alpha1";
const plural = "mcppolicies";

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

const binaries = await ensureBinaries();
const plane = await startControlPlane(binaries);
const dispatcher = new Agent({ connections: null, pipelining: 0, keepAliveTimeout: 60_000 });
let controller: ReturnType<typeof spawn> | undefined;
try {
  const config = new KubeConfig();
  config.loadFromFile(plane.kubeconfigPath);
  const core = config.makeApiClient(CoreV1Api);
  const custom = config.makeApiClient(CustomObjectsApi);
  const kubectl = async (...args: string[]) => {
    const child = spawn(binaries.kubectl, ["--kubeconfig", plane.kubeconfigPath, ...args], {
      stdio: "inherit",
    });
    const code = await new Promise((resolve) => child.on("exit", resolve));
    if (code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${code}`);
  };
  await kubectl("apply", "-f", new URL("../crds/", import.meta.url).pathname);
  await kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd/mcppolicies.toolwall.io");
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: "agent", namespace } } });
  const setupStart = performance.now();
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
    const review = await core.createNamespacedServiceAccountToken({
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
    return review.status!.token!;
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
  controller = spawn(
    process.execPath,
    [
      new URL("../bin/toolwall.js", import.meta.url).pathname,
      "controller",
      "--kubeconfig",
      plane.kubeconfigPath,
      "--listen",
      `127.0.0.1:${port}`,
      "--namespace",
      namespace,
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    const ready = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const idleRss = rssMiB(controller.pid!, "VmRSS");

  const held: string[] = new Array(sidecars).fill("");
  const receivedAt: number[] = new Array(sidecars).fill(0);
  let running = true;
  let errors = 0;
  const poll = async (i: number) => {
    while (running) {
      const url = `${base}/v1/bundle?namespace=${namespace}&pod=agent-${i}${held[i] ? `&since=${held[i]}` : ""}`;
      try {
        const response = await undiciFetch(url, {
          headers: { authorization: `Bearer ${tokens[i]}` },
          dispatcher,
        });
        if (response.status === 200) {
          const bundle = (await response.json()) as { hash: string };
          held[i] = bundle.hash;
          receivedAt[i] = performance.now();
        } else {
          await response.arrayBuffer();
          if (response.status !== 304) {
            errors++;
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        }
      } catch {
        if (running) errors++;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  };
  const loops = Array.from({ length: sidecars }, (_, i) => poll(i));
  const waitAll = async (predicate: () => boolean, limitMs: number) => {
    const deadline = performance.now() + limitMs;
    while (!predicate() && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    return predicate();
  };
  await waitAll(() => held.every((h) => h !== ""), 60_000);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const propagation: number[] = [];
  let complete = 0;
  for (let round = 1; round <= rounds; round++) {
    const before = held[0];
    const started = performance.now();
    await custom.patchNamespacedCustomObject(
      { group, version, plural, namespace, name: "bench", body: policyBody([`delete_${round}`]) },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    const all = await waitAll(() => held.every((h) => h !== before) && new Set(held).size === 1, 20_000);
    if (all) complete++;
    for (let i = 0; i < sidecars; i++)
      propagation.push(held[i] !== before ? receivedAt[i]! - started : Number.POSITIVE_INFINITY);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const peakRss = rssMiB(controller.pid!, "VmHWM");
  const busyRss = rssMiB(controller.pid!, "VmRSS");
  running = false;
  controller.kill("SIGTERM");
  await Promise.race([Promise.all(loops), new Promise((resolve) => setTimeout(resolve, 5000))]);
  propagation.sort((a, b) => a - b);
  const p99 = percentile(propagation, 99);
  console.log(
    `## Controller\n\n${sidecars} long-polling sidecars, ${rounds} MCPPolicy changes; setup (pods + tokens) ${setupSeconds.toFixed(1)} s; ${errors} request errors; rounds complete ${complete}/${rounds}\n`,
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
        ["controller RSS idle (synced, no sidecars)", `${idleRss.toFixed(0)} MiB`, "", ""],
        [
          `controller RSS with ${sidecars} long-polls`,
          `${busyRss.toFixed(0)} MiB`,
          "≤ 300 MB",
          goal(busyRss * 1.048576 <= 300),
        ],
        [
          "controller peak RSS (VmHWM)",
          `${peakRss.toFixed(0)} MiB`,
          "≤ 300 MB",
          goal(peakRss * 1.048576 <= 300),
        ],
      ],
    ),
  );
} finally {
  controller?.kill("SIGKILL");
  await dispatcher.close().catch(() => undefined);
  await plane.stop();
}
