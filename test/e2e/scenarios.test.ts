/**
 * Toolwall as a user runs it: the image built from the Dockerfile, the chart installed with helm, agent
 * pods injected by the webhook and started by a real kubelet. The same scenarios run on the one-node
 * cluster of test/cluster/node.ts (`make test`) and on kind (`make e2e`, TOOLWALL_E2E_KUBECONFIG).
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CoreV1Api, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseAllDocuments, parseDocument, stringify } from "yaml";
import { createCertificateAuthority, issueCertificate } from "../../src/k8s/pki.ts";
import {
  clusterState,
  installToolwall,
  RELEASE as release,
  RELEASE_NAMESPACE as system,
} from "../cluster/install.ts";
import { eventually } from "../helpers/eventually.ts";
import { cacheRoot } from "../k8s/binaries.ts";
import { CONTROL_PLANE_TIMEOUT_MS, type CommandResult, helm, kubeConfig, kubectl } from "../k8s/cluster.ts";
import { describeWithCluster, type ScenarioCluster, scenarioCluster } from "./cluster.ts";

const repoRoot = join(import.meta.dirname, "..", "..");
const agents = "agents";
const peers = "peers";
const plain = "plain";

let cluster: ScenarioCluster;
let core: CoreV1Api;
/** Figures for docs/benchmarks.md, written next to the cache. */
const figures: Record<string, unknown> = {};

const run = (args: string[], input?: string): Promise<CommandResult> => kubectl(cluster.plane, args, input);

async function ok(args: string[], input?: string): Promise<string> {
  const result = await run(args, input);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}

const apply = (docs: unknown[]) => ok(["apply", "-f", "-"], docs.map((d) => stringify(d)).join("---\n"));

const readPod = (namespace: string, name: string) => core.readNamespacedPod({ namespace, name });

function ready(pod: V1Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

async function waitReady(namespace: string, name: string, timeoutMs = 180_000): Promise<V1Pod> {
  return eventually(
    `pod ${namespace}/${name} Ready`,
    async () => {
      const pod = await readPod(namespace, name);
      return ready(pod) ? pod : undefined;
    },
    timeoutMs,
  );
}

/** Runs a peer program in the agent container; its last stdout line is JSON. */
async function inAgent(pod: string, args: string[]): Promise<Record<string, unknown>> {
  const result = await run(["exec", "-n", agents, pod, "-c", "agent", "--", "node", ...args]);
  const line = result.stdout.trim().split("\n").at(-1) ?? "";
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw new Error(`agent printed no JSON (exit ${result.code}): ${result.stdout} ${result.stderr}`);
  }
}

function agentPod(name: string, hostAlias: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: agents,
      labels: { app: "agent" },
      annotations: { "toolwall.io/upstream-ca-configmap": "provider-ca" },
    },
    spec: {
      hostAliases: [{ ip: hostAlias, hostnames: ["api.anthropic.com"] }],
      containers: [
        {
          name: "agent",
          image: cluster.images.peers,
          imagePullPolicy: "IfNotPresent",
          resources: { requests: { cpu: "50m", memory: "64Mi" }, limits: { memory: "512Mi" } },
        },
      ],
      terminationGracePeriodSeconds: 1,
      ...extra,
    },
  };
}

function policy(deniedTools: string[]) {
  return {
    apiVersion: "toolwall.io/v1alpha1",
    kind: "MCPPolicy",
    metadata: { name: "agents", namespace: agents },
    spec: {
      servers: [
        {
          name: "everything",
          transport: "StreamableHTTP",
          url: `https://${everythingHost}/mcp`,
        },
        // The same server's plain port: in-cluster MCP Services are mostly plain HTTP.
        { name: "everything-plain", transport: "StreamableHTTP", url: `http://${everythingHost}:3001/mcp` },
      ],
      toolPolicy: {
        default: "Allow",
        rules: [
          { action: "Deny", tools: deniedTools, reason: "destructive file tools are blocked" },
          { action: "Deny", servers: ["*"], tools: ["get-env"], reason: "environment holds secrets" },
        ],
      },
      egress: { default: "Deny" },
      // Short, so the scenario with the controller away sees the sidecar deny once it passes.
      maxStaleness: `${MAX_STALENESS_SECONDS}s`,
    },
  };
}

/** A peer Deployment and its Service; `tlsSecret` is mounted at /tls (an https port maps to 443). */
function peerDeployment(
  name: string,
  command: string[],
  ports: { name: string; port: number; protocol?: string }[],
  tlsSecret?: string,
) {
  const labels = { app: name };
  return [
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name, namespace: peers },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [
              {
                name,
                image: cluster.images.peers,
                imagePullPolicy: "IfNotPresent",
                command,
                ports: ports.map((p) => ({
                  name: p.name,
                  containerPort: p.port,
                  protocol: p.protocol ?? "TCP",
                })),
                volumeMounts: tlsSecret ? [{ name: "tls", mountPath: "/tls", readOnly: true }] : [],
              },
            ],
            volumes: tlsSecret ? [{ name: "tls", secret: { secretName: tlsSecret } }] : [],
            terminationGracePeriodSeconds: 1,
          },
        },
      },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, namespace: peers },
      spec: {
        selector: labels,
        ports: ports.map((p) => ({
          name: p.name,
          port: p.name === "https" ? 443 : p.port,
          targetPort: p.port,
          protocol: p.protocol ?? "TCP",
        })),
      },
    },
  ];
}

const MAX_STALENESS_SECONDS = 20;
let llmIp = "";
const everythingHost = `everything.${peers}.svc.cluster.local`;

describeWithCluster("Toolwall on a real Kubernetes node", () => {
  beforeAll(async () => {
    const started = Date.now();
    cluster = await scenarioCluster();
    figures.cluster = { build: cluster.plane.buildSeconds, start: cluster.plane.startSeconds };
    core = kubeConfig(cluster.plane).makeApiClient(CoreV1Api);

    const installStarted = Date.now();
    const install = await installToolwall(cluster.plane, cluster.images);
    if (install.code !== 0)
      throw new Error(`helm install failed:\n${install.stderr}\n${await clusterState(cluster.plane)}`);
    figures.helmInstallSeconds = (Date.now() - installStarted) / 1000;
    figures.notes = install.stdout.includes("Next steps");

    // The fake provider's certificate for api.anthropic.com, from a CA the agent pods' sidecars trust.
    const ca = await createCertificateAuthority("toolwall-e2e-provider-ca", 2);
    const leaf = await issueCertificate(ca, {
      commonName: "api.anthropic.com",
      dnsNames: ["api.anthropic.com"],
      usage: "server",
      validDays: 2,
    });
    const everythingLeaf = await issueCertificate(ca, {
      commonName: everythingHost,
      dnsNames: [everythingHost],
      usage: "server",
      validDays: 2,
    });
    for (const namespace of [peers, plain]) await run(["create", "namespace", namespace]);
    await run(["create", "namespace", agents]);
    await ok(["label", "namespace", agents, "toolwall.io/injection=enabled", "--overwrite"]);
    await apply([
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "provider-tls", namespace: peers },
        type: "kubernetes.io/tls",
        stringData: { "tls.crt": leaf.certPem, "tls.key": leaf.keyPem },
      },
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "provider-ca", namespace: agents },
        data: { "ca.crt": ca.certPem },
      },
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "everything-tls", namespace: peers },
        type: "kubernetes.io/tls",
        stringData: { "tls.crt": everythingLeaf.certPem, "tls.key": everythingLeaf.keyPem },
      },
      ...peerDeployment("llm", ["node", "fake-provider.ts"], [{ name: "https", port: 8443 }], "provider-tls"),
      ...peerDeployment(
        "everything",
        ["node", "everything-tls.ts"],
        [
          { name: "https", port: 3443 },
          { name: "http", port: 3001 },
        ],
        "everything-tls",
      ),
      ...peerDeployment(
        "open",
        ["node", "open-server.ts"],
        [
          { name: "http", port: 8080 },
          { name: "udp", port: 5353, protocol: "UDP" },
        ],
      ),
      policy(["delete_file"]),
    ]);
    for (const name of ["llm", "everything", "open"]) {
      await ok(["rollout", "status", "-n", peers, `deployment/${name}`, "--timeout=180s"]);
    }
    llmIp = (await core.readNamespacedService({ namespace: peers, name: "llm" })).spec!.clusterIP!;
    await apply([agentPod("agent", llmIp)]);
    await waitReady(agents, "agent");
    figures.setupSeconds = (Date.now() - started) / 1000;
  }, CONTROL_PLANE_TIMEOUT_MS);

  afterAll(async () => {
    if (Object.keys(figures).length > 0) {
      const dir = join(cacheRoot(), "figures");
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, "cluster-scenarios.json"), `${JSON.stringify(figures, null, 2)}\n`);
      process.stderr.write(`[e2e] figures: ${JSON.stringify(figures)}\n`);
    }
    // TOOLWALL_E2E_KEEP=1 leaves the node running to look at (make cluster-down removes it).
    if (process.env.TOOLWALL_E2E_KEEP !== "1") await cluster?.stop();
  }, 120_000);

  it("helm install prints NOTES.txt with the next steps", () => {
    expect(figures.notes).toBe(true);
  });

  it("injects the init container and the native sidecar; the init container set up iptables and exited 0", async () => {
    const pod = await readPod(agents, "agent");
    expect(pod.spec!.initContainers!.map((c) => c.name)).toEqual(["toolwall-init", "toolwall-sidecar"]);
    expect(pod.spec!.initContainers![1]!.restartPolicy).toBe("Always");
    const init = pod.status!.initContainerStatuses!.find((s) => s.name === "toolwall-init")!;
    expect(init.state?.terminated).toMatchObject({ exitCode: 0, reason: "Completed" });
    const sidecar = pod.status!.initContainerStatuses!.find((s) => s.name === "toolwall-sidecar")!;
    expect(sidecar.started).toBe(true);
    const env = pod.spec!.containers[0]!.env!.map((e) => e.name);
    expect(env).toEqual(expect.arrayContaining(["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE"]));
  });

  it("the Anthropic SDK's denied tool call is replaced, the allowed one passes", async () => {
    const denied = await inAgent("agent", ["agent-llm.ts", "delete_file"]);
    expect(denied.error, JSON.stringify(denied)).toBeUndefined();
    const deniedContent = denied.content as { type: string; text?: string }[];
    expect(deniedContent.some((b) => b.type === "tool_use")).toBe(false);
    expect(JSON.stringify(deniedContent)).toContain("destructive file tools are blocked");
    const allowed = await inAgent("agent", ["agent-llm.ts", "read_file"]);
    expect(allowed.content).toEqual([expect.objectContaining({ type: "tool_use", name: "read_file" })]);
  });

  it("undeclared egress is refused; UDP and IPv6 do not escape", async () => {
    const probe = await inAgent("agent", [
      "probe.ts",
      `open.${peers}.svc.cluster.local`,
      `open.${peers}.svc.cluster.local`,
      "2001:db8::1",
    ]);
    expect(String(probe.undeclared)).not.toContain("escaped");
    expect(probe.udp).toBe("no reply");
    expect(String(probe.ipv6)).toMatch(/^error /);
  });

  it("an MCP client reaches the server's Service by name: listing filtered, denied tools/call answered -32001", async () => {
    const result = await inAgent("agent", ["agent-mcp.ts", `https://${everythingHost}/mcp`]);
    expect(result.tools).toEqual(expect.arrayContaining(["echo"]));
    expect(result.tools).not.toContain("get-env");
    expect(result.echo).toEqual([{ type: "text", text: "Echo: hello" }]);
    expect(result.denied).toMatchObject({ code: -32001 });
    expect(String((result.denied as { message: string }).message)).toContain("environment holds secrets");
  }, 90_000);

  it("the same over plain HTTP (the Service's port 3001): judged by the sidecar, not relayed", async () => {
    const result = await inAgent("agent", ["agent-mcp.ts", `http://${everythingHost}:3001/mcp`]);
    expect(result.tools).toEqual(expect.arrayContaining(["echo"]));
    expect(result.tools).not.toContain("get-env");
    expect(result.echo).toEqual([{ type: "text", text: "Echo: hello" }]);
    expect(result.denied).toMatchObject({ code: -32001 });
  }, 90_000);

  it("kubectl get mcpp shows Mode, Ready and Pods", async () => {
    const table = await eventually("mcpp status", async () => {
      const text = await ok(["get", "mcpp", "-n", agents]);
      return /agents\s+\S+\s+True\s+1\b/.test(text) ? text : undefined;
    });
    expect(table.split("\n")[0]).toMatch(/NAME\s+MODE\s+READY\s+PODS\s+AGE/);
  });

  it("a changed MCPPolicy applied with kubectl is enforced by the running pod within 2 s", async () => {
    // The agent asks every 50 ms while the policy changes; the first replaced call is timed against the
    // moment kubectl apply returned (one clock: the pod's processes run on this host's kernel).
    const asking = inAgent("agent", ["agent-llm.ts", "read_file", "--until-denied"]);
    await new Promise((resolve) => setTimeout(resolve, 4000));
    await apply([policy(["delete_file", "read_file"])]);
    const applied = Date.now();
    const result = await asking;
    expect(result.error).toBeUndefined();
    expect(result.allowedCalls as number).toBeGreaterThan(0);
    figures.policyChangeEnforcedAfterMs = (result.deniedAt as number) - applied;
    expect(figures.policyChangeEnforcedAfterMs).toBeLessThanOrEqual(2000);
    await apply([policy(["delete_file"])]);
  });

  it("kubectl toolwall calls -n agents lists the pod's calls through the kubeconfig (a user with the view role)", async () => {
    // A namespace user: a service account bound to the built-in `view` role (the chart aggregates
    // MCPPolicy reading into it), its token in a kubeconfig of its own. Reaching the controller is a
    // port-forward, which takes pods get/list and pods/portforward in the release namespace.
    const forwarders = ["auditor", "stranger"].map((name) => ({
      kind: "ServiceAccount",
      name,
      namespace: agents,
    }));
    await apply([
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name: "toolwall-port-forward", namespace: system },
        rules: [
          { apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] },
          { apiGroups: [""], resources: ["pods/portforward"], verbs: ["get", "create"] },
        ],
      },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "toolwall-port-forward", namespace: system },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "toolwall-port-forward" },
        subjects: forwarders,
      },
    ]);
    await apply([
      { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "auditor", namespace: agents } },
      { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "stranger", namespace: agents } },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "auditor-view", namespace: agents },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
        subjects: [{ kind: "ServiceAccount", name: "auditor", namespace: agents }],
      },
    ]);
    const admin = parseDocument(await readFile(cluster.plane.kubeconfigPath, "utf8")).toJSON() as {
      clusters: { name: string; cluster: Record<string, string> }[];
    };
    const kubeconfigFor = async (account: string) => {
      const token = (
        await core.createNamespacedServiceAccountToken({
          namespace: agents,
          name: account,
          body: { spec: { audiences: [], expirationSeconds: 3600 } },
        })
      ).status!.token!;
      const path = join(tmpdir(), `toolwall-e2e-${account}.kubeconfig`);
      await writeFile(
        path,
        stringify({
          apiVersion: "v1",
          kind: "Config",
          clusters: admin.clusters,
          users: [{ name: account, user: { token } }],
          contexts: [{ name: account, context: { cluster: admin.clusters[0]!.name, user: account } }],
          "current-context": account,
        }),
        { mode: 0o600 },
      );
      return path;
    };
    // As npm installs the package's bin: kubectl finds `kubectl-toolwall` on PATH.
    const pluginDir = await mkdtemp(join(tmpdir(), "toolwall-plugin-"));
    await symlink(join(repoRoot, "bin", "kubectl-toolwall.js"), join(pluginDir, "kubectl-toolwall"));
    const plugin = (kubeconfig: string) =>
      new Promise<CommandResult>((resolve) => {
        execFile(
          cluster.plane.binaries.kubectl,
          ["toolwall", "calls", "-n", agents, "-o", "json"],
          {
            env: {
              ...process.env,
              KUBECONFIG: kubeconfig,
              PATH: `${pluginDir}:${join(repoRoot, "node_modules", ".bin")}:${process.env.PATH}`,
            },
          },
          (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout, stderr }),
        );
      });
    // A denied call of its own, so the newest events hold one whatever the tests before asked.
    await inAgent("agent", ["agent-llm.ts", "delete_file"]);
    const calls = await plugin(await kubeconfigFor("auditor"));
    expect(calls.code, calls.stderr).toBe(0);
    const events = calls.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ pod: "agent", tool: "delete_file", action: "deny" }),
      ]),
    );
    const refused = await plugin(await kubeconfigFor("stranger"));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("not allowed to list mcppolicies.toolwall.io in namespace agents");
  });

  it("every Toolwall component and the sidecar can be scraped from outside the pod; alerts and panels find their metrics and labels", async () => {
    // The API server's pod proxy: [scheme:]name:port, from outside the pod like Prometheus.
    const scrape = async (namespace: string, target: string) =>
      ok(["get", "--raw", `/api/v1/namespaces/${namespace}/pods/${target}/proxy/metrics`]);
    const podOf = async (component: string) =>
      (
        await core.listNamespacedPod({
          namespace: system,
          labelSelector: `app.kubernetes.io/component=${component}`,
        })
      ).items[0]!.metadata!.name!;
    const sidecar = await scrape(agents, "agent:15020");
    const controller = await scrape(system, `${await podOf("controller")}:8443`);
    const webhook = await scrape(system, `https:${await podOf("webhook")}:8443`);
    // The kubelet's httpGet startup probe reaches /readyz from outside the pod; nothing else does.
    const readyzFromOutside = await ok([
      "get",
      "--raw",
      `/api/v1/namespaces/${agents}/pods/agent:15020/proxy/readyz`,
    ]);
    expect(readyzFromOutside).toContain("ready");
    const otherFromOutside = await run([
      "get",
      "--raw",
      `/api/v1/namespaces/${agents}/pods/agent:15020/proxy/debug`,
    ]);
    expect(otherFromOutside.code).not.toBe(0);
    const scraped = `${sidecar}\n${controller}\n${webhook}`;

    const rendered = await helm(cluster.plane, [
      "template",
      release,
      join(repoRoot, "charts", "toolwall"),
      "--set=metrics.prometheusRule.enabled=true",
      "--set=grafana.dashboard.enabled=true",
    ]);
    const rule = parseAllDocuments(rendered.stdout)
      .map((d) => d.toJSON() as { kind?: string; spec?: { groups: { rules: { expr: string }[] }[] } })
      .find((d) => d?.kind === "PrometheusRule")!;
    const dashboard = JSON.parse(
      await readFile(join(repoRoot, "charts", "toolwall", "dashboards", "toolwall.json"), "utf8"),
    ) as {
      panels: { targets: { expr: string }[] }[];
    };
    const expressions = [
      ...rule.spec!.groups.flatMap((g) => g.rules.map((r) => r.expr)),
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
    ];
    // Labels Prometheus attaches to every target (pod discovery), not the metrics themselves.
    const targetLabels = new Set(["namespace", "pod", "instance", "job", "le"]);
    const problems: string[] = [];
    for (const expr of expressions) {
      const metrics = [...expr.matchAll(/\b(toolwall_[a-z_]+)/g)].map((m) =>
        m[1]!.replace(/_(bucket|sum|count)$/, ""),
      );
      const labels = [...expr.matchAll(/by \(([^)]*)\)/g)].flatMap((m) =>
        m[1]!.split(",").map((l) => l.trim()),
      );
      labels.push(...[...expr.matchAll(/[{,]\s*([a-z_]+)\s*(=~|!=|=)/g)].map((m) => m[1]!));
      for (const metric of metrics) {
        const lines = scraped
          .split("\n")
          .filter((l) => l.startsWith(`# TYPE ${metric} `) || l.startsWith(metric));
        if (!lines.some((l) => l.startsWith("# TYPE"))) {
          problems.push(`${metric} (in ${expr.slice(0, 60)}) is not exposed`);
          continue;
        }
        const labelNames = new Set(lines.flatMap((l) => [...l.matchAll(/([a-z_]+)="/g)].map((m) => m[1]!)));
        for (const label of labels.filter((l) => !targetLabels.has(l))) {
          if (!labelNames.has(label) && lines.some((l) => !l.startsWith("#")))
            problems.push(`${metric} has no label ${label} (${expr.slice(0, 60)})`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("a pod with hostNetwork or NET_ADMIN is refused with a reason; a pod in an unlabelled namespace is untouched", async () => {
    const hostNetwork = await run(
      ["apply", "-f", "-"],
      stringify(agentPod("host-net", llmIp, { hostNetwork: true })),
    );
    expect(hostNetwork.code).not.toBe(0);
    expect(hostNetwork.stderr).toContain("hostNetwork");
    const netAdmin = agentPod("net-admin", llmIp);
    (netAdmin.spec.containers[0] as Record<string, unknown>).securityContext = {
      capabilities: { add: ["NET_ADMIN"] },
    };
    const refused = await run(["apply", "-f", "-"], stringify(netAdmin));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("NET_ADMIN");
    const untouched = { ...agentPod("plain-pod", llmIp), metadata: { name: "plain-pod", namespace: plain } };
    await apply([untouched]);
    const pod = await readPod(plain, "plain-pod");
    expect(pod.spec!.initContainers ?? []).toEqual([]);
    await run(["delete", "pod", "-n", plain, "plain-pod", "--wait=false"]);
  });

  it("pod start with and without injection (goal: injection adds at most 1 s)", async () => {
    const startTime = async (namespace: string, name: string) => {
      const started = Date.now();
      await apply([
        { ...agentPod(name, llmIp), metadata: { ...agentPod(name, llmIp).metadata, name, namespace } },
      ]);
      await waitReady(namespace, name);
      const seconds = (Date.now() - started) / 1000;
      await run(["delete", "pod", "-n", namespace, name, "--wait=false"]);
      return seconds;
    };
    const plainSeconds: number[] = [];
    const injectedSeconds: number[] = [];
    for (let i = 0; i < 3; i++) {
      plainSeconds.push(await startTime(plain, `start-plain-${i}`));
      injectedSeconds.push(await startTime(agents, `start-injected-${i}`));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[1]!;
    figures.podStart = {
      plain: plainSeconds,
      injected: injectedSeconds,
      medianAddedSeconds: median(injectedSeconds) - median(plainSeconds),
    };
    expect(median(injectedSeconds)).toBeGreaterThan(0);
  });

  it("under a bounded load every Toolwall container stays within its limits: no OOM kill, no restart", async () => {
    const load = await inAgent("agent", ["agent-load.ts", "2000", "64"]);
    figures.load = load;
    // Half the calls ask for the allowed tool: all of those pass, all of the others are replaced.
    expect(load).toMatchObject({ tool_use: 1000, replaced: 1000 });
    const peak = async (namespace: string, pod: string, container: string) => {
      const text = await ok([
        "exec",
        "-n",
        namespace,
        pod,
        "-c",
        container,
        "--",
        "sh",
        "-c",
        "cat /sys/fs/cgroup/memory/memory.max_usage_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.peak",
      ]);
      return Number(text.trim());
    };
    const memory: Record<string, { peakMiB: number; limit: string | undefined }> = {};
    const agentPodSpec = await readPod(agents, "agent");
    memory.sidecar = {
      peakMiB: (await peak(agents, "agent", "toolwall-sidecar")) / 2 ** 20,
      limit: agentPodSpec.spec!.initContainers![1]!.resources?.limits?.memory,
    };
    for (const component of ["controller", "webhook", "redis"]) {
      const pod = (
        await core.listNamespacedPod({
          namespace: system,
          labelSelector: `app.kubernetes.io/component=${component}`,
        })
      ).items[0]!;
      memory[component] = {
        peakMiB: (await peak(system, pod.metadata!.name!, pod.spec!.containers[0]!.name)) / 2 ** 20,
        limit: pod.spec!.containers[0]!.resources?.limits?.memory,
      };
      expect(
        pod.status!.containerStatuses!.every((s) => s.restartCount === 0),
        component,
      ).toBe(true);
    }
    figures.memory = memory;
    const after = await readPod(agents, "agent");
    for (const status of [...after.status!.initContainerStatuses!, ...after.status!.containerStatuses!]) {
      expect(status.restartCount, status.name).toBe(0);
      expect(status.lastState?.terminated?.reason, status.name).not.toBe("OOMKilled");
    }
    for (const [name, { peakMiB, limit }] of Object.entries(memory)) {
      const limitMiB = Number(limit?.replace(/Mi$/, ""));
      expect(peakMiB, name).toBeLessThan(limitMiB);
    }
  }, 180_000);

  const toolUsed = async () =>
    ((await inAgent("agent", ["agent-llm.ts", "read_file"])).content as { type: string }[] | undefined)?.some(
      (b) => b.type === "tool_use",
    ) ?? false;

  it("the sidecar killed is restarted by the kubelet, and the agent's egress stays refused meanwhile", async () => {
    const before = (await readPod(agents, "agent")).status!.initContainerStatuses!.find(
      (s) => s.name === "toolwall-sidecar",
    )!;
    const probing = inAgent("agent", ["probe.ts", "loop", `open.${peers}.svc.cluster.local`, "12"]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await run(["exec", "-n", agents, "agent", "-c", "toolwall-sidecar", "--", "sh", "-c", "kill 1"]);
    const outcomes = await probing;
    figures.sidecarRestartProbe = outcomes;
    expect(outcomes.escaped ?? 0).toBe(0);
    const restarted = await eventually("sidecar restart", async () => {
      const status = (await readPod(agents, "agent")).status!.initContainerStatuses!.find(
        (s) => s.name === "toolwall-sidecar",
      )!;
      return status.restartCount > before.restartCount && status.started ? status : undefined;
    });
    expect(restarted.restartCount).toBe(before.restartCount + 1);
    // The restarted sidecar restores the bundle from its volume and has it confirmed at once.
    await eventually(
      "allowed call after the restart",
      async () => ((await toolUsed()) ? true : undefined),
      20_000,
    );
  }, 120_000);

  const scale = async (component: string, replicas: number) => {
    await ok(["scale", "-n", system, `deployment/${release}-${component}`, `--replicas=${replicas}`]);
    if (replicas > 0) {
      await ok(["rollout", "status", "-n", system, `deployment/${release}-${component}`, "--timeout=120s"]);
      return;
    }
    await eventually(`${component} pods gone`, async () => {
      const pods = await core.listNamespacedPod({
        namespace: system,
        labelSelector: `app.kubernetes.io/component=${component}`,
      });
      return pods.items.length === 0 ? true : undefined;
    });
  };

  it("with the controller scaled to 0 the sidecar keeps the last good bundle, then denies after maxStaleness", async () => {
    await scale("controller", 0);
    try {
      const gone = Date.now();
      expect(await toolUsed()).toBe(true);
      const denied = await inAgent("agent", ["agent-llm.ts", "delete_file"]);
      expect((denied.content as { type: string }[]).some((b) => b.type === "tool_use")).toBe(false);
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, MAX_STALENESS_SECONDS * 1000 + 3000 - (Date.now() - gone))),
      );
      expect(await toolUsed()).toBe(false);
    } finally {
      await scale("controller", 1);
    }
    await eventually(
      "bundle again after the controller is back",
      async () => ((await toolUsed()) ? true : undefined),
      60_000,
    );
  }, 180_000);

  it("with Redis deleted the configured fallback (onStateUnavailable: Local) keeps deciding calls", async () => {
    await scale("redis", 0);
    try {
      expect(await toolUsed()).toBe(true);
      const denied = await inAgent("agent", ["agent-llm.ts", "delete_file"]);
      expect((denied.content as { type: string }[]).some((b) => b.type === "tool_use")).toBe(false);
    } finally {
      await scale("redis", 1);
    }
  }, 120_000);

  it("with the webhook down pod creation in an injected namespace is refused (failurePolicy Fail) with a clear message", async () => {
    await scale("webhook", 0);
    try {
      const refused = await run(["apply", "-f", "-"], stringify(agentPod("no-webhook", llmIp)));
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/failed calling webhook "inject\.toolwall\.io"/);
    } finally {
      await scale("webhook", 1);
    }
  }, 180_000);
});
