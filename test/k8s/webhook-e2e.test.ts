/**
 * The webhook registered on the real API server by clientConfig.url, its serving certificate issued
 * by the controller-side certificate code into a Secret, pods created for real.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  type V1MutatingWebhookConfiguration,
  type V1Pod,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { NAMESPACE_LABEL } from "../../src/kernel/mesh.ts";
import { reconcileWebhookCertificate } from "../../src/webhook/certs.ts";
import { defaultInjectionConfig } from "../../src/webhook/inject.ts";
import { startWebhookServer, type WebhookServer } from "../../src/webhook/server.ts";
import {
  CONTROL_PLANE_TIMEOUT_MS,
  controlPlane,
  describeWithControlPlane,
  kubeConfig,
  kubectl,
} from "./cluster.ts";
import type { ControlPlaneInfo } from "./global-setup.ts";

const injected = "e2e-injected";
const plain = "e2e-plain";
const system = "e2e-toolwall-system";
const configName = "e2e-toolwall-webhook";
let plane: ControlPlaneInfo;
let core: CoreV1Api;
let admission: AdmissionregistrationV1Api;
let webhook: WebhookServer | undefined;
let dir: string;

function pod(name: string, spec: Partial<NonNullable<V1Pod["spec"]>> = {}): V1Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { generateName: `${name}-`, labels: { app: name } },
    spec: { containers: [{ name: "agent", image: "example.com/agent:1.0" }], ...spec },
  };
}

async function createNamespace(name: string, labels: Record<string, string> = {}) {
  await core.createNamespace({ body: { metadata: { name, labels } } });
  // Without a controller manager nothing creates the default ServiceAccount the pods need.
  await core.createNamespacedServiceAccount({ namespace: name, body: { metadata: { name: "default" } } });
}

function webhookConfiguration(url: string): V1MutatingWebhookConfiguration {
  return {
    metadata: { name: configName },
    webhooks: [
      {
        name: "inject.toolwall.io",
        admissionReviewVersions: ["v1"],
        sideEffects: "None",
        failurePolicy: "Fail",
        timeoutSeconds: 5,
        reinvocationPolicy: "IfNeeded",
        clientConfig: { url: `${url}/mutate` },
        namespaceSelector: { matchLabels: { [NAMESPACE_LABEL]: "enabled" } },
        rules: [
          {
            apiGroups: [""],
            apiVersions: ["v1"],
            operations: ["CREATE"],
            resources: ["pods"],
            scope: "Namespaced",
          },
          {
            apiGroups: [""],
            apiVersions: ["v1"],
            operations: ["UPDATE"],
            resources: ["pods/ephemeralcontainers"],
            scope: "Namespaced",
          },
        ],
      },
    ],
  };
}

async function refusal(namespace: string, body: V1Pod): Promise<string> {
  try {
    await core.createNamespacedPod({ namespace, body });
  } catch (error) {
    const body = (error as { body?: unknown }).body;
    const status = (typeof body === "string" ? JSON.parse(body) : body) as { message?: string } | undefined;
    return status?.message ?? String(error);
  }
  throw new Error("expected the API server to refuse the pod");
}

describeWithControlPlane("webhook end to end on a real API server", () => {
  beforeAll(async () => {
    plane = await controlPlane();
    const config = kubeConfig(plane);
    core = config.makeApiClient(CoreV1Api);
    admission = config.makeApiClient(AdmissionregistrationV1Api);
    dir = await mkdtemp(join(tmpdir(), "toolwall-e2e-"));
    await createNamespace(injected, { [NAMESPACE_LABEL]: "enabled" });
    await createNamespace(plain);
    await core.createNamespace({ body: { metadata: { name: system } } });

    // The controller's certificate code issues the pair into a Secret and fills in the caBundle.
    await admission.createMutatingWebhookConfiguration({ body: webhookConfiguration("https://127.0.0.1:1") });
    const certOptions = {
      namespace: system,
      servingSecret: "webhook-tls",
      caSecret: "webhook-ca",
      webhookConfiguration: configName,
      dnsNames: ["localhost"],
      ipAddresses: ["127.0.0.1"],
      caValidityDays: 30,
      servingValidityDays: 7,
      renewFraction: 1 / 3,
    };
    await reconcileWebhookCertificate({ core, admission }, certOptions);
    const secret = await core.readNamespacedSecret({ name: "webhook-tls", namespace: system });
    for (const key of ["tls.crt", "tls.key"]) {
      await writeFile(join(dir, key), Buffer.from(secret.data![key]!, "base64"));
    }
    webhook = await startWebhookServer({
      host: "127.0.0.1",
      port: 0,
      tlsCertFile: join(dir, "tls.crt"),
      tlsKeyFile: join(dir, "tls.key"),
      injection: { ...defaultInjectionConfig, image: "registry.example/toolwall:e2e" },
      log: () => {},
    });
    const current = await admission.readMutatingWebhookConfiguration({ name: configName });
    const url = { url: `${webhook.url}/mutate`, caBundle: current.webhooks![0]!.clientConfig.caBundle };
    current.webhooks![0]!.clientConfig = url;
    await admission.replaceMutatingWebhookConfiguration({ name: configName, body: current });
  }, CONTROL_PLANE_TIMEOUT_MS);

  afterAll(async () => {
    await webhook?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    if (!core) return;
    await admission.deleteMutatingWebhookConfiguration({ name: configName }).catch(() => undefined);
    for (const name of [injected, plain, system]) await core.deleteNamespace({ name }).catch(() => undefined);
  });

  it("stores a pod created in a labelled namespace with init container, native sidecar, volumes and env", async () => {
    const created = await core.createNamespacedPod({ namespace: injected, body: pod("agent") });
    const stored = await core.readNamespacedPod({ name: created.metadata!.name!, namespace: injected });
    const init = stored.spec!.initContainers!;
    expect(init.map((c) => c.name)).toEqual(["toolwall-init", "toolwall-sidecar"]);
    expect(init[0]!.securityContext!.capabilities!.add).toEqual(["NET_ADMIN", "NET_RAW"]);
    expect(init[1]!.restartPolicy).toBe("Always");
    expect(init[1]!.securityContext!.runAsUser).toBe(1337);
    expect(init[1]!.startupProbe).toBeDefined();
    const volumes = stored.spec!.volumes!.map((v) => v.name);
    expect(volumes).toEqual(expect.arrayContaining(["toolwall-ca", "toolwall-token", "toolwall-state"]));
    const token = stored.spec!.volumes!.find((v) => v.name === "toolwall-token")!;
    expect(token.projected!.sources![0]!.serviceAccountToken!.audience).toBe("toolwall");
    const env = stored.spec!.containers[0]!.env!.map((e) => e.name);
    expect(env).toEqual(expect.arrayContaining(["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE"]));
    expect(stored.metadata!.annotations!["toolwall.io/status"]).toBeDefined();
  });

  it("leaves a pod in an unlabelled namespace untouched", async () => {
    const created = await core.createNamespacedPod({ namespace: plain, body: pod("plain") });
    expect(created.spec!.initContainers ?? []).toEqual([]);
    expect(created.metadata!.annotations?.["toolwall.io/status"]).toBeUndefined();
  });

  it("refuses a hostNetwork pod with the reason", async () => {
    const message = await refusal(injected, pod("host", { hostNetwork: true }));
    expect(message).toContain('admission webhook "inject.toolwall.io" denied the request');
    expect(message).toContain("hostNetwork pods share the node's network namespace");
  });

  it("refuses a pod whose container runs as the sidecar's uid", async () => {
    const body = pod("uid");
    body.spec!.containers[0]!.securityContext = { runAsUser: 1337 };
    expect(await refusal(injected, body)).toContain("runs as uid 1337");
  });

  it("refuses kubectl debug with the netadmin profile and admits a plain debug container", async () => {
    const created = await core.createNamespacedPod({ namespace: injected, body: pod("debugged") });
    const name = created.metadata!.name!;
    const denied = await kubectl(plane, [
      "debug",
      "-n",
      injected,
      name,
      "--image=busybox:1.36",
      "--profile=netadmin",
      "--attach=false",
      "-c",
      "netdebug",
    ]);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain("adds capability NET_ADMIN");
    const allowed = await kubectl(plane, [
      "debug",
      "-n",
      injected,
      name,
      "--image=busybox:1.36",
      "--profile=general",
      "--attach=false",
      "-c",
      "debugger",
    ]);
    expect(allowed.stderr).toBe("");
    const stored = await core.readNamespacedPod({ name, namespace: injected });
    const debuggerEnv = stored.spec!.ephemeralContainers![0]!.env!.map((e) => e.name);
    expect(debuggerEnv).toContain("NODE_EXTRA_CA_CERTS");
  });

  it("counted the admissions", async () => {
    const metrics = await webhook!.registry.getSingleMetricAsString("toolwall_webhook_admissions_total");
    expect(metrics).toMatch(/operation="CREATE",outcome="injected"} [1-9]/);
    expect(metrics).toMatch(/operation="CREATE",outcome="rejected"} [1-9]/);
    expect(metrics).toMatch(/operation="UPDATE",outcome="rejected"} 1/);
  });

  it("refuses pod creation while the webhook is down (failurePolicy Fail)", async () => {
    await webhook!.close();
    webhook = undefined;
    const message = await refusal(injected, pod("down"));
    expect(message).toMatch(/failed calling webhook "inject.toolwall.io"/);
  });
});
