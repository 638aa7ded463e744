/**
 * The Helm chart: rendered by helm, checked by the real API server (server-side dry run).
 */
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import {
  CONTROL_PLANE_TIMEOUT_MS,
  controlPlane,
  describeWithControlPlane,
  helm,
  kubectl,
} from "./cluster.ts";
import type { ControlPlaneInfo } from "./global-setup.ts";

const root = join(import.meta.dirname, "..", "..");
const chart = join(root, "charts", "toolwall");
const namespace = "toolwall-system";
const everything = [
  "--set=redis.bundled.enabled=true",
  "--set=metrics.serviceMonitor.enabled=true",
  "--set=metrics.prometheusRule.enabled=true",
  "--set=grafana.dashboard.enabled=true",
];
let plane: ControlPlaneInfo;

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  // biome-ignore lint/suspicious/noExplicitAny: rendered manifests are inspected field by field
  spec?: any;
  data?: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: see above
  webhooks?: any[];
}

async function render(args: string[] = []): Promise<{ text: string; manifests: Manifest[] }> {
  const result = await helm(plane, [
    "template",
    "toolwall",
    chart,
    "--namespace",
    namespace,
    "--include-crds",
    ...args,
  ]);
  if (result.code !== 0) throw new Error(`helm template failed: ${result.stderr}`);
  const manifests = parseAllDocuments(result.stdout)
    .map((doc) => doc.toJSON() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
  return { text: result.stdout, manifests };
}

function find(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found)
    throw new Error(
      `no ${kind} ${name} in ${manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(", ")}`,
    );
  return found;
}

async function dryRun(text: string): Promise<void> {
  const result = await kubectl(
    plane,
    ["apply", "--server-side", "--force-conflicts", "--dry-run=server", "-f", "-"],
    text,
  );
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
}

describeWithControlPlane("Helm chart charts/toolwall", () => {
  beforeAll(async () => {
    plane = await controlPlane();
    const created = await kubectl(plane, ["create", "namespace", namespace]);
    if (created.code !== 0 && !created.stderr.includes("AlreadyExists")) throw new Error(created.stderr);
    const stubs = await kubectl(plane, [
      "apply",
      "-f",
      join(import.meta.dirname, "fixtures", "third-party-crds.yaml"),
    ]);
    if (stubs.code !== 0) throw new Error(stubs.stderr);
    await kubectl(plane, ["wait", "--for=condition=Established", "crd", "--all", "--timeout=60s"]);
  }, CONTROL_PLANE_TIMEOUT_MS);

  it("passes helm lint, values checked by values.schema.json", async () => {
    const result = await helm(plane, ["lint", chart, ...everything]);
    expect(result.stdout).toContain("0 chart(s) failed");
  });

  it("is accepted by the API server with default values (server-side dry run)", async () => {
    await dryRun((await render()).text);
  });

  it("is accepted with Redis, ServiceMonitor, PrometheusRule and the dashboard enabled", async () => {
    await dryRun((await render(everything)).text);
  });

  it("is accepted with cert-manager issuing the webhook certificate", async () => {
    const { text, manifests } = await render(["--set=webhook.certManager.enabled=true"]);
    await dryRun(text);
    const config = find(manifests, "MutatingWebhookConfiguration", "toolwall-webhook");
    expect(config.metadata).toMatchObject({
      annotations: { "cert-manager.io/inject-ca-from": `${namespace}/toolwall-webhook` },
    });
    expect(find(manifests, "Certificate", "toolwall-webhook").spec.secretName).toBe("toolwall-webhook-tls");
  });

  it("aggregates reading MCPPolicies into view/edit/admin and writing them into edit/admin", async () => {
    const { manifests } = await render();
    const view = find(manifests, "ClusterRole", "toolwall-view");
    const edit = find(manifests, "ClusterRole", "toolwall-edit");
    const labels = (m: Manifest) => (m.metadata as { labels?: Record<string, string> }).labels ?? {};
    for (const role of ["view", "edit", "admin"]) {
      expect(labels(view)[`rbac.authorization.k8s.io/aggregate-to-${role}`]).toBe("true");
    }
    expect(labels(edit)["rbac.authorization.k8s.io/aggregate-to-view"]).toBeUndefined();
    expect(labels(edit)["rbac.authorization.k8s.io/aggregate-to-edit"]).toBe("true");
  });

  it("passes the sidecar's and the init container's resources to the webhook", async () => {
    const { manifests } = await render(["--set=sidecar.resources.limits.memory=1Gi"]);
    const args = find(manifests, "Deployment", "toolwall-webhook").spec.template.spec.containers[0]
      .args as string[];
    expect(args).toContain(
      '--sidecar-resources={"limits":{"memory":"1Gi"},"requests":{"cpu":"100m","memory":"128Mi"}}',
    );
    expect(args.some((a) => a.startsWith("--init-resources="))).toBe(true);
  });

  it("refuses values the schema does not allow", async () => {
    const result = await helm(plane, ["template", "toolwall", chart, "--set=webhook.failurePolicy=Open"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/failurePolicy/);
  });

  it("installs the CRD from crds/, the single source of the policy shape", async () => {
    const { manifests } = await render();
    const crd = find(manifests, "CustomResourceDefinition", "mcppolicies.toolwall.io");
    expect(crd.spec.group).toBe("toolwall.io");
  });

  it("registers the webhook fail-closed, by namespace label, excluding its own namespace", async () => {
    const { manifests } = await render();
    const [webhook] = find(manifests, "MutatingWebhookConfiguration", "toolwall-webhook").webhooks!;
    expect(webhook).toMatchObject({ failurePolicy: "Fail", sideEffects: "None", timeoutSeconds: 5 });
    expect(webhook.namespaceSelector.matchExpressions).toEqual([
      { key: "toolwall.io/injection", operator: "In", values: ["enabled"] },
      { key: "kubernetes.io/metadata.name", operator: "NotIn", values: [namespace] },
    ]);
    expect(webhook.objectSelector.matchExpressions).toEqual([
      { key: "toolwall.io/inject", operator: "NotIn", values: ["false"] },
    ]);
    expect(webhook.rules.map((r: { resources: string[] }) => r.resources[0])).toEqual([
      "pods",
      "pods/ephemeralcontainers",
    ]);
  });

  it("runs two spread replicas per component with a PDB and the restricted security context", async () => {
    const { manifests } = await render();
    for (const name of ["toolwall-controller", "toolwall-webhook"]) {
      const deployment = find(manifests, "Deployment", name);
      expect(deployment.spec.replicas).toBe(2);
      const pod = deployment.spec.template.spec;
      expect(pod.affinity.podAntiAffinity).toBeDefined();
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: "RuntimeDefault" },
      });
      expect(pod.containers[0].securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
      });
      expect(pod.containers[0].resources.requests).toBeDefined();
      expect(find(manifests, "PodDisruptionBudget", name).spec.minAvailable).toBe(1);
    }
  });

  it("points the injected sidecars at the controller Service", async () => {
    const { manifests } = await render();
    const args: string[] = find(manifests, "Deployment", "toolwall-webhook").spec.template.spec.containers[0]
      .args;
    expect(args).toContain(`--controller-url=http://toolwall-controller.${namespace}.svc:8443`);
    expect(args).toContain("--image=ghcr.io/toolwall/toolwall:0.1.0");
  });

  it("hands the bundled Redis URL to the webhook, which gives it to the sidecars, and to the controller", async () => {
    const { manifests } = await render(everything);
    const webhook = find(manifests, "Deployment", "toolwall-webhook");
    expect(webhook.spec.template.spec.containers[0].args).toContain(
      `--redis-url=redis://toolwall-redis.${namespace}.svc:6379`,
    );
    const controller = find(manifests, "Deployment", "toolwall-controller");
    expect(controller.spec.template.spec.containers[0].args).toContain(
      `--redis=redis://toolwall-redis.${namespace}.svc:6379`,
    );
  });

  it("runs the certificate rotation beside the controller unless cert-manager issues it", async () => {
    const names = (m: Manifest) => m.spec.template.spec.containers.map((c: { name: string }) => c.name);
    expect(names(find((await render()).manifests, "Deployment", "toolwall-controller"))).toEqual([
      "controller",
      "webhook-certs",
    ]);
    const withCertManager = await render(["--set=webhook.certManager.enabled=true"]);
    expect(names(find(withCertManager.manifests, "Deployment", "toolwall-controller"))).toEqual([
      "controller",
    ]);
  });

  it("ships alerts for stale policy, webhook errors, Redis, rug pulls and block rate", async () => {
    const { manifests } = await render(everything);
    const rules = find(manifests, "PrometheusRule", "toolwall").spec.groups[0].rules.map(
      (r: { alert: string }) => r.alert,
    );
    expect(rules).toEqual([
      "ToolwallPolicyStale",
      "ToolwallWebhookErrors",
      "ToolwallRedisUnavailable",
      "ToolwallRugPullDetected",
      "ToolwallHighBlockRate",
    ]);
  });

  it("ships a Grafana dashboard with decisions, blocks, latency, bundle age and detections", async () => {
    const { manifests } = await render(everything);
    const dashboard = JSON.parse(find(manifests, "ConfigMap", "toolwall-dashboard").data!["toolwall.json"]!);
    const titles = dashboard.panels.map((p: { title: string }) => p.title).join(" | ");
    for (const word of [
      "Decisions by action and tool",
      "Blocks by server and tool",
      "latency",
      "bundle age",
      "Detections",
    ]) {
      expect(titles).toContain(word);
    }
  });
});
