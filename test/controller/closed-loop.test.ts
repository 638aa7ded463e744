/**
 * The loop closed: an MCPPolicy on the real API server, a pod created through the injecting webhook,
 * and that pod as the API server stored it run the way a kubelet would, in network namespaces: the
 * init container's command as root, the native sidecar with its args and env as uid 1337 fetching its
 * bundle from `toolwall controller` with a real projected (TokenRequest) token, then the app
 * container's command as uid 1000. The agent's policy-denied tool call is blocked.
 *
 * Test stand-ins, all outside the pod spec: the controller and the webhook run on the host, reached
 * from the pod namespace through a relay in the "internet" namespace; volume mounts are temporary
 * directories (paths rewritten); the image's entrypoint is `node bin/toolwall.js`; the sidecar gets
 * `--extra-ca` and `--controller-ca` for the test CA that stands in for public roots.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Controller } from "../../src/controller/controller.ts";
import { createCertificateAuthority, issueCertificate } from "../../src/k8s/pki.ts";
import { defaultInjectionConfig } from "../../src/webhook/inject.ts";
import { startWebhookServer, type WebhookServer } from "../../src/webhook/server.ts";
import { CONTROL_PLANE_TIMEOUT_MS, controlPlane, kubeConfig, kubectl } from "../k8s/cluster.ts";
import {
  AGENT_UID,
  createTopology,
  describeNetns,
  INTERNET_V4,
  nodeBinary,
  POD_V4,
  repoRoot,
  SIDECAR_UID,
  type Spawned,
  type Topology,
  toolwallBin,
} from "../netns/harness.ts";
import { containerEnv, pathMapper } from "./kubelet.ts";

const agents = "loop-agents";
const system = "loop-system";
const webhookName = "loop-toolwall-webhook";
const namespaceLabel = "toolwall-test/closed-loop";
const controllerHost = "toolwall-controller.loop-system.svc";
const controllerPort = 8443;
const MCP = "mcp.toolwall-loop.example";

const policy = {
  apiVersion: "toolwall.io/v1alpha1",
  kind: "MCPPolicy",
  metadata: { name: "agent", namespace: agents },
  spec: {
    podSelector: { matchLabels: { app: "agent" } },
    servers: [{ name: "tools", transport: "StreamableHTTP", url: `https://${MCP}/mcp` }],
    toolPolicy: {
      rules: [
        { action: "Deny", servers: ["*"], tools: ["delete_*"], reason: "destructive tools are blocked" },
      ],
    },
  },
};

const toolCall = (id: number, name: string) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } });

/** The agent: its app container's command posts one MCP tool call. */
const agentCommand = (id: number, tool: string) => [
  "curl",
  "-sS",
  "--max-time",
  "5",
  "-H",
  "content-type: application/json",
  "-H",
  "accept: application/json, text/event-stream",
  "-d",
  toolCall(id, tool),
  `https://${MCP}/mcp`,
];

describeNetns("closed loop: stored pod run in network namespaces, bundle from the controller", () => {
  let topology: Topology;
  let dir: string;
  let core: CoreV1Api;
  let admission: AdmissionregistrationV1Api;
  let custom: CustomObjectsApi;
  let controller: Controller | undefined;
  let webhook: WebhookServer | undefined;
  let stored: V1Pod;
  let sidecar: Spawned;
  let hostSide: ChildProcess | undefined;
  const hostDirs = new Map<string, string>();

  beforeAll(async () => {
    const plane = await controlPlane();
    const config = kubeConfig(plane);
    core = config.makeApiClient(CoreV1Api);
    admission = config.makeApiClient(AdmissionregistrationV1Api);
    custom = config.makeApiClient(CustomObjectsApi);
    dir = mkdtempSync(join(tmpdir(), "toolwall-loop-"));
    chmodSync(dir, 0o755);

    const ca = await createCertificateAuthority("toolwall closed-loop test CA", 1);
    const caFile = join(dir, "test-ca.pem");
    writeFileSync(caFile, ca.certPem);
    mkdirSync(join(dir, "certs"));
    const issue = async (name: string, ipAddresses: string[] = []) => {
      const pair = await issueCertificate(ca, {
        commonName: name,
        dnsNames: [name],
        ipAddresses,
        usage: "server",
        validDays: 1,
      });
      writeFileSync(join(dir, "certs", `${name}.crt`), pair.certPem);
      writeFileSync(join(dir, "certs", `${name}.key`), pair.keyPem, { mode: 0o600 });
      return pair;
    };
    await issue(MCP);
    const controllerPair = await issue(controllerHost);
    const webhookPair = await issue("localhost", ["127.0.0.1"]);

    const crd = await kubectl(plane, ["apply", "--server-side", "-f", join(repoRoot, "crds")]);
    expect(crd.code, crd.stderr).toBe(0);
    await kubectl(plane, [
      "wait",
      "--for=condition=Established",
      "--timeout=60s",
      "crd/mcppolicies.toolwall.io",
    ]);
    await core.createNamespace({
      body: { metadata: { name: agents, labels: { [namespaceLabel]: "enabled" } } },
    });
    await core.createNamespace({ body: { metadata: { name: system } } });
    await core.createNamespacedServiceAccount({ namespace: agents, body: { metadata: { name: "agent" } } });
    await custom.createNamespacedCustomObject({
      group: "toolwall.io",
      version: "v1alpha1",
      plural: "mcppolicies",
      namespace: agents,
      body: policy,
    });

    writeFileSync(join(dir, "webhook.crt"), webhookPair.certPem);
    writeFileSync(join(dir, "webhook.key"), webhookPair.keyPem, { mode: 0o600 });
    webhook = await startWebhookServer({
      host: "127.0.0.1",
      port: 0,
      tlsCertFile: join(dir, "webhook.crt"),
      tlsKeyFile: join(dir, "webhook.key"),
      injection: {
        ...defaultInjectionConfig,
        image: "registry.example/toolwall:loop",
        controllerUrl: `https://${controllerHost}:${controllerPort}`,
      },
      log: () => {},
    });
    const port = new URL(webhook.url).port;
    await admission.createMutatingWebhookConfiguration({
      body: {
        metadata: { name: webhookName },
        webhooks: [
          {
            name: "inject.toolwall.io",
            admissionReviewVersions: ["v1"],
            sideEffects: "None",
            failurePolicy: "Fail",
            timeoutSeconds: 5,
            clientConfig: {
              url: `https://localhost:${port}/mutate`,
              caBundle: Buffer.from(ca.certPem).toString("base64"),
            },
            namespaceSelector: { matchLabels: { [namespaceLabel]: "enabled" } },
            rules: [
              {
                apiGroups: [""],
                apiVersions: ["v1"],
                operations: ["CREATE"],
                resources: ["pods"],
                scope: "Namespaced",
              },
            ],
          },
        ],
      },
    });

    controller = new Controller({
      kubeconfig: plane.kubeconfigPath,
      host: "127.0.0.1",
      port: 0,
      namespace: system,
      leaseName: "loop-controller",
      tls: { cert: controllerPair.certPem, key: controllerPair.keyPem },
      log: () => {},
    });
    const controllerUrl = new URL(await controller.start());

    const created = await core.createNamespacedPod({
      namespace: agents,
      body: {
        metadata: { name: "agent", labels: { app: "agent" } },
        spec: {
          serviceAccountName: "agent",
          containers: [
            { name: "agent", image: "registry.example/agent:1", command: agentCommand(1, "delete_repo") },
          ],
        },
      },
    });
    stored = await core.readNamespacedPod({ namespace: agents, name: created.metadata!.name! });

    // Volumes, as the kubelet would provide them: emptyDirs and the projected token.
    for (const volume of stored.spec!.volumes ?? []) {
      const hostDir = join(dir, "volumes", volume.name);
      mkdirSync(hostDir, { recursive: true });
      chmodSync(hostDir, 0o755);
      if (volume.emptyDir) chownSync(hostDir, SIDECAR_UID, SIDECAR_UID);
      for (const source of volume.projected?.sources ?? []) {
        const token = source.serviceAccountToken;
        if (!token || token.audience === undefined) continue;
        const request = await core.createNamespacedServiceAccountToken({
          namespace: agents,
          name: stored.spec!.serviceAccountName!,
          body: {
            spec: {
              audiences: [token.audience],
              expirationSeconds: token.expirationSeconds ?? 3600,
              boundObjectRef: {
                apiVersion: "v1",
                kind: "Pod",
                name: stored.metadata!.name!,
                uid: stored.metadata!.uid!,
              },
            },
          },
        });
        writeFileSync(join(hostDir, token.path), request.status!.token!, {
          mode: volume.projected!.defaultMode ?? 0o644,
        });
      }
      hostDirs.set(volume.name, hostDir);
    }

    topology = await createTopology({ [MCP]: [INTERNET_V4], [controllerHost]: [INTERNET_V4] });
    const relay = join(repoRoot, "test", "controller", "fixtures", "relay.ts");
    const socket = join(dir, "controller.sock");
    hostSide = spawn(nodeBinary, [relay, "unix-to-tcp", socket, "127.0.0.1", controllerUrl.port], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise((resolve) => hostSide!.stdout!.once("data", resolve));
    const podSide = topology.spawn(topology.internet, nodeBinary, [
      relay,
      "tcp-to-unix",
      INTERNET_V4,
      String(controllerPort),
      socket,
    ]);
    const origin = topology.spawn(topology.internet, nodeBinary, [
      join(repoRoot, "test", "netns", "fixtures", "origin.ts"),
      join(dir, "certs"),
      MCP,
    ]);
    await Promise.all([podSide.waitForLine(/ready/), origin.waitForLine(/ready/)]);

    const [init, sidecarContainer] = stored.spec!.initContainers!;
    const initPaths = pathMapper(init!, (volume) => hostDirs.get(volume)!);
    const initRun = await topology.run(topology.pod, nodeBinary, [
      toolwallBin,
      ...(init!.args ?? []).map(initPaths),
    ]);
    expect(initRun.code, initRun.stderr).toBe(0);

    const sidecarPaths = pathMapper(sidecarContainer!, (volume) => hostDirs.get(volume)!);
    const env = Object.fromEntries(
      Object.entries(containerEnv(sidecarContainer!, stored)).map(([name, value]) => [
        name,
        sidecarPaths(value),
      ]),
    );
    sidecar = topology.spawn(
      topology.pod,
      nodeBinary,
      [
        toolwallBin,
        ...(sidecarContainer!.args ?? []).map(sidecarPaths),
        "--extra-ca",
        caFile,
        "--controller-ca",
        caFile,
      ],
      { uid: sidecarContainer!.securityContext!.runAsUser!, env },
    );
    await sidecar.waitForLine(/toolwall sidecar: ready/);
    // The startupProbe: the kubelet starts the app containers only once it succeeds. It sends the
    // httpGet from the node, outside the pod, to the pod IP and the port the probe names.
    const probe = sidecarContainer!.startupProbe!.httpGet!;
    const probePort = sidecarContainer!.ports!.find((port) => port.name === probe.port)!.containerPort;
    const probeUrl = `${probe.scheme!.toLowerCase()}://${POD_V4}:${probePort}${probe.path}`;
    const kubeletProbe = `fetch(${JSON.stringify(probeUrl)}).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`;
    for (let attempt = 0; ; attempt++) {
      const result = await topology.run(topology.internet, nodeBinary, ["-e", kubeletProbe]);
      if (result.code === 0) break;
      if (attempt > 50) throw new Error(`sidecar never became ready:\n${sidecar.output()}`);
      const { periodSeconds } = sidecarContainer!.startupProbe!;
      await new Promise((resolve) => setTimeout(resolve, (periodSeconds ?? 1) * 1000));
    }
  }, CONTROL_PLANE_TIMEOUT_MS);

  afterAll(async () => {
    await topology?.destroy();
    hostSide?.kill("SIGKILL");
    await controller?.stop();
    await webhook?.close();
    await admission?.deleteMutatingWebhookConfiguration({ name: webhookName }).catch(() => undefined);
    for (const name of [agents, system]) await core?.deleteNamespace({ name }).catch(() => undefined);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const runApp = (command: string[]) => {
    const app = stored.spec!.containers[0]!;
    const paths = pathMapper(app, (volume) => hostDirs.get(volume) ?? join(dir, "volumes", volume));
    const env = Object.fromEntries(
      Object.entries(containerEnv(app, stored)).map(([name, value]) => [name, paths(value)]),
    );
    const [executable, ...args] = command;
    return topology.run(topology.pod, executable!, args, { uid: AGENT_UID, env });
  };

  it("the sidecar enforces the bundle it fetched with its projected token: the denied tool call is blocked", async () => {
    const result = await runApp(stored.spec!.containers[0]!.command!);
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toMatchObject({ id: 1, error: { code: -32001 } });
    const events = sidecar
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.find((e) => e.type === "policy_bundle_applied")).toMatchObject({
      namespace: agents,
      pod: "agent",
      policies: [`${agents}/agent@1`],
      source: "controller",
    });
  });

  it("an allowed tool call from the same pod reaches the MCP server", async () => {
    const result = await runApp(agentCommand(2, "read_file"));
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toMatchObject({ id: 2, result: { origin: MCP, method: "tools/call" } });
  });

  it("a policy change on the API server is enforced by the running sidecar within 2 s", async () => {
    const started = performance.now();
    await custom.patchNamespacedCustomObject(
      {
        group: "toolwall.io",
        version: "v1alpha1",
        plural: "mcppolicies",
        namespace: agents,
        name: "agent",
        body: {
          spec: {
            toolPolicy: {
              rules: [
                {
                  action: "Deny",
                  servers: ["*"],
                  tools: ["delete_*", "read_*"],
                  reason: "read tools are blocked now",
                },
              ],
            },
          },
        },
      },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    for (let id = 3; ; id++) {
      const result = await runApp(agentCommand(id, "read_file"));
      if (JSON.parse(result.stdout).error?.code === -32001) break;
      if (performance.now() - started > 2000)
        throw new Error(`read_file still allowed after 2 s: ${result.stdout}`);
    }
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
