/**
 * Controller-side webhook certificates against the real API server: issue into Secrets, rotate,
 * keep the MutatingWebhookConfiguration's caBundle in sync.
 */
import { AdmissionregistrationV1Api, CoreV1Api } from "@kubernetes/client-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { certificateDnsNames, isSignedBy } from "../../src/k8s/pki.ts";
import {
  reconcileWebhookCertificate,
  serviceDnsNames,
  type WebhookCertificateOptions,
} from "../../src/webhook/certs.ts";
import { CONTROL_PLANE_TIMEOUT_MS, controlPlane, describeWithControlPlane, kubeConfig } from "./cluster.ts";

const namespace = "certs-test";
const DAY_MS = 86_400_000;
const options: WebhookCertificateOptions = {
  namespace,
  servingSecret: "toolwall-webhook-tls",
  caSecret: "toolwall-webhook-ca",
  webhookConfiguration: "certs-test-webhook",
  dnsNames: serviceDnsNames("toolwall-webhook", namespace),
  caValidityDays: 365,
  servingValidityDays: 90,
  renewFraction: 1 / 3,
};
let core: CoreV1Api;
let admission: AdmissionregistrationV1Api;

async function secretText(name: string, key: string): Promise<string> {
  const secret = await core.readNamespacedSecret({ name, namespace });
  return Buffer.from(secret.data![key]!, "base64").toString("utf8");
}

async function caBundles(): Promise<string[]> {
  const config = await admission.readMutatingWebhookConfiguration({ name: options.webhookConfiguration });
  return config.webhooks!.map((w) => Buffer.from(w.clientConfig.caBundle ?? "", "base64").toString("utf8"));
}

describeWithControlPlane("webhook certificates on a real API server", () => {
  beforeAll(async () => {
    const config = kubeConfig(await controlPlane());
    core = config.makeApiClient(CoreV1Api);
    admission = config.makeApiClient(AdmissionregistrationV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    const webhook = (name: string) => ({
      name,
      admissionReviewVersions: ["v1"],
      sideEffects: "None",
      clientConfig: { service: { name: "toolwall-webhook", namespace, path: "/mutate" } },
      objectSelector: { matchLabels: { "never-matches": "true" } },
    });
    await admission.createMutatingWebhookConfiguration({
      body: {
        metadata: { name: options.webhookConfiguration },
        webhooks: [webhook("a.toolwall.io"), webhook("b.toolwall.io")],
      },
    });
  }, CONTROL_PLANE_TIMEOUT_MS);

  afterAll(async () => {
    if (!core) return;
    await admission
      .deleteMutatingWebhookConfiguration({ name: options.webhookConfiguration })
      .catch(() => undefined);
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  });

  it("issues a CA and a serving certificate for the Service names and fills in every caBundle", async () => {
    const result = await reconcileWebhookCertificate({ core, admission }, options);
    expect(result).toEqual({ caRotated: true, servingRotated: true, caBundleUpdated: true });
    const ca = await secretText(options.caSecret, "ca.crt");
    const serving = await secretText(options.servingSecret, "tls.crt");
    expect(await isSignedBy(serving, ca)).toBe(true);
    expect(certificateDnsNames(serving)).toEqual(options.dnsNames);
    expect(await caBundles()).toEqual([ca, ca]);
    const servingSecret = await core.readNamespacedSecret({ name: options.servingSecret, namespace });
    expect(servingSecret.type).toBe("kubernetes.io/tls");
    expect(Object.keys(servingSecret.data!).sort()).toEqual(["ca.crt", "tls.crt", "tls.key"]);
  });

  it("changes nothing on a second pass", async () => {
    const before = await core.readNamespacedSecret({ name: options.servingSecret, namespace });
    const result = await reconcileWebhookCertificate({ core, admission }, options);
    expect(result).toEqual({ caRotated: false, servingRotated: false, caBundleUpdated: false });
    const after = await core.readNamespacedSecret({ name: options.servingSecret, namespace });
    expect(after.metadata!.resourceVersion).toBe(before.metadata!.resourceVersion);
  });

  it("renews the serving certificate when two thirds of its life are gone, keeping the CA", async () => {
    const oldServing = await secretText(options.servingSecret, "tls.crt");
    const result = await reconcileWebhookCertificate(
      { core, admission },
      options,
      new Date(Date.now() + 61 * DAY_MS),
    );
    expect(result).toEqual({ caRotated: false, servingRotated: true, caBundleUpdated: false });
    expect(await secretText(options.servingSecret, "tls.crt")).not.toBe(oldServing);
  });

  it("restores a caBundle that was wiped (e.g. by a chart upgrade)", async () => {
    const config = await admission.readMutatingWebhookConfiguration({ name: options.webhookConfiguration });
    config.webhooks![1]!.clientConfig.caBundle = undefined;
    await admission.replaceMutatingWebhookConfiguration({ name: options.webhookConfiguration, body: config });
    const result = await reconcileWebhookCertificate({ core, admission }, options);
    expect(result.caBundleUpdated).toBe(true);
    const ca = await secretText(options.caSecret, "ca.crt");
    expect(await caBundles()).toEqual([ca, ca]);
  });

  it("rotates the CA before it expires and trusts old and new CA during the change", async () => {
    const oldCa = await secretText(options.caSecret, "ca.crt");
    const later = new Date(Date.now() + 250 * DAY_MS);
    const result = await reconcileWebhookCertificate({ core, admission }, options, later);
    expect(result).toEqual({ caRotated: true, servingRotated: true, caBundleUpdated: true });
    const newCa = await secretText(options.caSecret, "ca.crt");
    expect(newCa).not.toBe(oldCa);
    expect(await caBundles()).toEqual([newCa + oldCa, newCa + oldCa]);
    expect(await isSignedBy(await secretText(options.servingSecret, "tls.crt"), newCa)).toBe(true);
    expect(await secretText(options.servingSecret, "ca.crt")).toBe(newCa + oldCa);
  });
});
