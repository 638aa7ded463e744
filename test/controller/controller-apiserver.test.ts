import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { BundleClient } from "../../src/bundle/client.ts";
import type { PolicyStatus } from "../../src/controller/model.ts";
import { MemoryAuditSink } from "../../src/telemetry/audit.ts";
import { eventually } from "../helpers/eventually.ts";
import {
  CONTROL_PLANE_TIMEOUT_MS,
  controlPlane,
  describeWithControlPlane,
  kubeConfig,
  kubectl,
} from "../k8s/cluster.ts";
import type { ControlPlaneInfo } from "../k8s/global-setup.ts";

/*
 * `toolwall controller` (two replicas, as processes) against the real kube-apiserver of the shared
 * test control plane: status, matchedPods, bundles with TokenRequest tokens, Lease handover, and a
 * policy change enforced by a running bundle client.
 */

const group = "toolwall.io";
const version = "v1alpha1";
const plural = "mcppolicies";
const agents = "ctl-agents";
const other = "ctl-other";
const system = "ctl-system";
const leaseName = "ctl-test-controller";
const bin = new URL("../../bin/toolwall.js", import.meta.url).pathname;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface Replica {
  identity: string;
  url: string;
  child: ChildProcess;
  log: string[];
}

function policy(name: string, spec: Record<string, unknown>) {
  return {
    apiVersion: `${group}/${version}`,
    kind: "MCPPolicy",
    metadata: { name, namespace: agents },
    spec,
  };
}

const researchPolicy = policy("research", {
  podSelector: { matchLabels: { app: "research" } },
  toolPolicy: { default: "Allow", rules: [{ action: "Deny", tools: ["delete_*"], reason: "destructive" }] },
});
const brokenPolicy = policy("broken", {
  podSelector: {},
  toolPolicy: {
    rules: [
      { action: "Deny", tools: ["Bash"], when: { any: [{ path: "command", op: "Matches", value: "(rm" }] } },
    ],
  },
});

describeWithControlPlane("toolwall controller on a real API server", () => {
  let plane: ControlPlaneInfo;
  let core: CoreV1Api;
  let custom: CustomObjectsApi;
  let coordination: CoordinationV1Api;
  let dir: string;
  const replicas: Replica[] = [];
  const pods = new Map<string, V1Pod>();

  const startReplica = async (identity: string): Promise<Replica> => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [
        bin,
        "controller",
        "--kubeconfig",
        plane.kubeconfigPath,
        "--listen",
        `127.0.0.1:${port}`,
        "--namespace",
        system,
        "--lease-name",
        leaseName,
        "--identity",
        identity,
        "--lease-duration",
        "2s",
        "--poll-timeout",
        "5s",
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    const replica: Replica = { identity, url: `http://127.0.0.1:${port}`, child, log: [] };
    child.stderr!.on("data", (chunk: Buffer) => replica.log.push(chunk.toString()));
    replicas.push(replica);
    await eventually(`${identity} ready`, async () =>
      (await fetch(`${replica.url}/readyz`)).ok ? true : undefined,
    );
    return replica;
  };

  const createPod = async (namespace: string, name: string, labels: Record<string, string>) => {
    const pod = await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name, namespace, labels },
        spec: { serviceAccountName: "agent", containers: [{ name: "agent", image: "agent:test" }] },
      },
    });
    pods.set(`${namespace}/${name}`, pod);
    return pod;
  };

  const token = async (namespace: string, pod: string, audience = "toolwall") => {
    const bound = pods.get(`${namespace}/${pod}`)!;
    const request = await core.createNamespacedServiceAccountToken({
      namespace,
      name: "agent",
      body: {
        spec: {
          audiences: [audience],
          expirationSeconds: 3600,
          boundObjectRef: { apiVersion: "v1", kind: "Pod", name: pod, uid: bound.metadata!.uid! },
        },
      },
    });
    return request.status!.token!;
  };

  const status = async (name: string) =>
    (await custom.getNamespacedCustomObject({ group, version, plural, namespace: agents, name })) as {
      status?: PolicyStatus;
      metadata: { generation: number };
    };

  const holder = async () =>
    (await coordination.readNamespacedLease({ name: leaseName, namespace: system })).spec?.holderIdentity ??
    "";

  beforeAll(async () => {
    plane = await controlPlane();
    const config = kubeConfig(plane);
    core = config.makeApiClient(CoreV1Api);
    custom = config.makeApiClient(CustomObjectsApi);
    coordination = config.makeApiClient(CoordinationV1Api);
    dir = await mkdtemp(join(tmpdir(), "toolwall-ctl-"));
    const crd = await kubectl(plane, [
      "apply",
      "--server-side",
      "-f",
      new URL("../../crds/", import.meta.url).pathname,
    ]);
    expect(crd.code, crd.stderr).toBe(0);
    const established = await kubectl(plane, [
      "wait",
      "--for=condition=Established",
      "--timeout=60s",
      "crd/mcppolicies.toolwall.io",
    ]);
    expect(established.code, established.stderr).toBe(0);
    for (const namespace of [agents, other, system]) {
      await core.createNamespace({ body: { metadata: { name: namespace } } });
      if (namespace !== system) {
        await core.createNamespacedServiceAccount({
          namespace,
          body: { metadata: { name: "agent", namespace } },
        });
      }
    }
    await createPod(agents, "research-1", { app: "research" });
    await createPod(agents, "writer-1", { app: "writer" });
    await createPod(other, "research-1", { app: "research" });
    for (const body of [researchPolicy, brokenPolicy]) {
      await custom.createNamespacedCustomObject({ group, version, plural, namespace: agents, body });
    }
    await startReplica("replica-a");
    await startReplica("replica-b");
  }, CONTROL_PLANE_TIMEOUT_MS);

  afterAll(async () => {
    for (const replica of replicas) replica.child.kill("SIGKILL");
    if (plane) {
      await kubectl(plane, ["delete", "namespace", agents, other, system, "--wait=false"]);
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("writes Ready/Compiled conditions, observedGeneration, matchedPods and bundleHash for a valid policy", async () => {
    const { status: ready, metadata } = await eventually("research status", async () => {
      const object = await status("research");
      return object.status?.bundleHash ? object : undefined;
    });
    expect(ready).toMatchObject({ observedGeneration: metadata.generation, matchedPods: 1 });
    const conditions = Object.fromEntries((ready!.conditions ?? []).map((c) => [c.type, c]));
    expect(conditions.Compiled).toMatchObject({
      status: "True",
      reason: "Compiled",
      observedGeneration: metadata.generation,
    });
    expect(conditions.Ready).toMatchObject({ status: "True" });
  });

  it("reports a policy the API server accepted but that does not compile, naming the bad field", async () => {
    const { status: broken } = await eventually("broken status", async () => {
      const object = await status("broken");
      return object.status?.conditions ? object : undefined;
    });
    const compiled = broken!.conditions!.find((c) => c.type === "Compiled");
    expect(compiled).toMatchObject({ status: "False", reason: "InvalidSpec" });
    expect(compiled!.message).toMatch(/spec\.toolPolicy\.rules\[0\]\.when\.any\[0\]\.value: invalid RE2/);
    expect(broken!.conditions!.find((c) => c.type === "Ready")?.status).toBe("False");
  });

  it("records a Warning Event on a policy that does not compile, as `kubectl describe` shows it", async () => {
    const events = await eventually("compile event", async () => {
      const listed = await kubectl(plane, ["get", "events.events.k8s.io", "-n", agents, "-o", "json"]);
      expect(listed.code, listed.stderr).toBe(0);
      const items = (JSON.parse(listed.stdout) as { items: Record<string, unknown>[] }).items.filter(
        (event) => (event.regarding as { kind?: string; name?: string }).name === "broken",
      );
      return items.length > 0 ? items : undefined;
    }).catch((error: Error) => {
      throw new Error(
        `${error.message}; controller logs: ${replicas.map((r) => r.log.join("")).join(" | ")}`,
      );
    });
    expect(events[0]).toMatchObject({
      type: "Warning",
      reason: "InvalidSpec",
      reportingController: "toolwall.io/controller",
    });
    expect(events[0]!.note).toMatch(/invalid RE2/);
  });

  it("counts matched pods as pods come and go", async () => {
    await createPod(agents, "research-2", { app: "research" });
    await eventually("matchedPods 2", async () =>
      (await status("research")).status?.matchedPods === 2 ? true : undefined,
    );
    await core.deleteNamespacedPod({ namespace: agents, name: "research-2", gracePeriodSeconds: 0 });
    await eventually("matchedPods 1", async () =>
      (await status("research")).status?.matchedPods === 1 ? true : undefined,
    );
  });

  it("serves a pod its own bundle for a TokenRequest token, 403 for another pod's or namespace's, 401 for another audience", async () => {
    const url = replicas[0]!.url;
    const get = async (query: string, bearer: string) =>
      fetch(`${url}/v1/bundle?${query}`, { headers: { authorization: `Bearer ${bearer}` } });
    const own = await token(agents, "research-1");
    const response = await get(`namespace=${agents}&pod=research-1`, own);
    expect(response.status).toBe(200);
    const bundle = (await response.json()) as { policies: { name: string }[]; hash: string };
    expect(bundle.policies.map((p) => p.name)).toEqual(["research"]);
    expect((await get(`namespace=${agents}&pod=writer-1`, own)).status).toBe(403);
    expect((await get(`namespace=${other}&pod=research-1`, own)).status).toBe(403);
    const otherNamespace = await token(other, "research-1");
    expect((await get(`namespace=${agents}&pod=research-1`, otherNamespace)).status).toBe(403);
    const wrongAudience = await token(agents, "research-1", "https://kubernetes.default.svc");
    expect((await get(`namespace=${agents}&pod=research-1`, wrongAudience)).status).toBe(401);
    const started = Date.now();
    const unchanged = await get(`namespace=${agents}&pod=research-1&since=${bundle.hash}`, own);
    expect(unchanged.status).toBe(304);
    expect(Date.now() - started).toBeGreaterThan(4000);
  });

  it("a policy change on the API server is enforced by a running bundle client within 2 s", async () => {
    const tokenFile = join(dir, "token");
    await writeFile(tokenFile, await token(agents, "research-1"));
    const client = new BundleClient({
      controllerUrl: replicas[1]!.url,
      namespace: agents,
      pod: "research-1",
      tokenFile,
      bundleDir: join(dir, "bundle"),
      audit: new MemoryAuditSink(),
    });
    await client.start();
    await client.whenReady();
    try {
      expect(client.current().evaluate({ tool: "drop_table" }).action).toBe("allow");
      const started = performance.now();
      await custom.patchNamespacedCustomObject(
        {
          group,
          version,
          plural,
          namespace: agents,
          name: "research",
          body: {
            spec: {
              toolPolicy: {
                rules: [{ action: "Deny", tools: ["delete_*", "drop_*"], reason: "destructive" }],
              },
            },
          },
        },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
      await eventually(
        "drop_table denied",
        async () => (client.current().evaluate({ tool: "drop_table" }).action === "deny" ? true : undefined),
        2000,
      );
      expect(performance.now() - started).toBeLessThan(2000);
      // The client enforces a bundle first and writes it to disk right after: the file catches up.
      await eventually(
        "the new bundle on disk",
        async () => {
          const stored = JSON.parse(await readFile(join(dir, "bundle", "bundle.json"), "utf8"));
          return stored.bundle.hash === client.bundle()!.hash ? true : undefined;
        },
        2000,
      );
    } finally {
      await client.stop();
    }
  });

  it("when the leader stops, the other replica takes the Lease over and keeps status current", async () => {
    const leaderName = await eventually("a leader", async () => (await holder()) || undefined);
    const leader = replicas.find((r) => r.identity === leaderName)!;
    const follower = replicas.find((r) => r.identity !== leaderName)!;
    leader.child.kill("SIGKILL");
    await eventually(
      "follower leads",
      async () => ((await holder()) === follower.identity ? true : undefined),
      10_000,
    );
    await custom.patchNamespacedCustomObject(
      { group, version, plural, namespace: agents, name: "research", body: { spec: { mode: "Audit" } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    const generation = (await status("research")).metadata.generation;
    await eventually("status at the new generation", async () =>
      (await status("research")).status?.observedGeneration === generation ? true : undefined,
    );
  });

  it("a leader stopped with SIGTERM releases the Lease and a standby takes over at once", async () => {
    const leaderName = await holder();
    const leader = replicas.find((r) => r.identity === leaderName)!;
    const standby = await startReplica("replica-c");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await holder()).toBe(leaderName);
    const stopped = performance.now();
    leader.child.kill("SIGTERM");
    await eventually(
      "standby leads",
      async () => ((await holder()) === standby.identity ? true : undefined),
      10_000,
    );
    // Without the release the standby would wait the full lease duration (2 s) after the last renewal.
    expect(performance.now() - stopped).toBeLessThan(2000);
  });
});
