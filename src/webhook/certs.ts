/**
 * The webhook's serving certificate, issued and rotated by the controller: a CA kept in a Secret only
 * the controller reads, the serving pair in the Secret the webhook mounts, and the
 * MutatingWebhookConfiguration's caBundle kept in sync. During a CA rotation the bundle holds the old
 * and the new CA, so the API server trusts the webhook before and after it picks up the new pair.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { AdmissionregistrationV1Api, CoreV1Api, V1Secret } from "@kubernetes/client-node";
import {
  type CaKeyPair,
  certificateDnsNames,
  certificateValidity,
  createCertificateAuthority,
  isSignedBy,
  issueCertificate,
  loadCertificateAuthority,
} from "../k8s/pki.ts";

export interface WebhookCertificateOptions {
  namespace: string;
  /** Secret the webhook mounts: tls.crt, tls.key, ca.crt. */
  servingSecret: string;
  /** Secret only the controller reads: ca.crt, ca.key, and the previous CA during a rotation. */
  caSecret: string;
  webhookConfiguration: string;
  /** DNS names the serving certificate must carry, e.g. the webhook Service's names. */
  dnsNames: string[];
  ipAddresses?: string[];
  caValidityDays: number;
  servingValidityDays: number;
  /** Renew a certificate once less than this fraction of its lifetime is left. */
  renewFraction: number;
}

export const defaultCertificateTimings = {
  caValidityDays: 3650,
  servingValidityDays: 90,
  renewFraction: 1 / 3,
};

export interface CertificateReconcileResult {
  caRotated: boolean;
  servingRotated: boolean;
  caBundleUpdated: boolean;
}

export interface Clients {
  core: CoreV1Api;
  admission: AdmissionregistrationV1Api;
}

function statusCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === "number" ? code : undefined;
}

async function readSecret(core: CoreV1Api, namespace: string, name: string): Promise<V1Secret | undefined> {
  try {
    return await core.readNamespacedSecret({ name, namespace });
  } catch (error) {
    if (statusCode(error) === 404) return undefined;
    throw error;
  }
}

function decode(secret: V1Secret | undefined, key: string): string | undefined {
  const value = secret?.data?.[key];
  return value ? Buffer.from(value, "base64").toString("utf8") : undefined;
}

function encode(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v).toString("base64")]));
}

/** True when less than `fraction` of the certificate's lifetime is left at `now` (or it is unreadable). */
export function needsRenewal(certPem: string | undefined, now: Date, fraction: number): boolean {
  if (!certPem) return true;
  try {
    const { notBefore, notAfter } = certificateValidity(certPem);
    const lifetime = notAfter.getTime() - notBefore.getTime();
    return notAfter.getTime() - now.getTime() < lifetime * fraction;
  } catch {
    return true;
  }
}

async function writeSecret(
  core: CoreV1Api,
  namespace: string,
  name: string,
  existing: V1Secret | undefined,
  type: string,
  data: Record<string, string>,
): Promise<void> {
  const body: V1Secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name,
      namespace,
      labels: { "app.kubernetes.io/name": "toolwall", "app.kubernetes.io/managed-by": "toolwall-controller" },
      ...(existing?.metadata?.resourceVersion ? { resourceVersion: existing.metadata.resourceVersion } : {}),
    },
    type,
    data: encode(data),
  };
  // resourceVersion makes a concurrent writer (the other replica) fail with 409 instead of racing.
  if (existing) await core.replaceNamespacedSecret({ name, namespace, body });
  else await core.createNamespacedSecret({ namespace, body });
}

async function ensureCa(
  clients: Clients,
  options: WebhookCertificateOptions,
  now: Date,
): Promise<{ ca: CaKeyPair; bundle: string; rotated: boolean }> {
  const secret = await readSecret(clients.core, options.namespace, options.caSecret);
  const certPem = decode(secret, "ca.crt");
  const keyPem = decode(secret, "ca.key");
  const previousPem = decode(secret, "previous-ca.crt");
  // The CA is renewed well before it expires: serving certs it signed must expire first.
  if (certPem && keyPem && !needsRenewal(certPem, now, options.renewFraction)) {
    const stillValidPrevious =
      previousPem && certificateValidity(previousPem).notAfter > now ? previousPem : "";
    return {
      ca: await loadCertificateAuthority({ certPem, keyPem }),
      bundle: certPem + stillValidPrevious,
      rotated: false,
    };
  }
  const ca = await createCertificateAuthority(
    `toolwall-webhook-ca@${Math.floor(now.getTime() / 1000)}`,
    options.caValidityDays,
    now,
  );
  const keepPrevious = certPem && certificateValidity(certPem).notAfter > now ? certPem : "";
  await writeSecret(clients.core, options.namespace, options.caSecret, secret, "Opaque", {
    "ca.crt": ca.certPem,
    "ca.key": ca.keyPem,
    ...(keepPrevious ? { "previous-ca.crt": keepPrevious } : {}),
  });
  return { ca, bundle: ca.certPem + keepPrevious, rotated: true };
}

async function ensureServing(
  clients: Clients,
  options: WebhookCertificateOptions,
  ca: CaKeyPair,
  bundle: string,
  now: Date,
): Promise<boolean> {
  const secret = await readSecret(clients.core, options.namespace, options.servingSecret);
  const certPem = decode(secret, "tls.crt");
  const fresh =
    certPem !== undefined &&
    decode(secret, "tls.key") !== undefined &&
    decode(secret, "ca.crt") === bundle &&
    !needsRenewal(certPem, now, options.renewFraction) &&
    (await isSignedBy(certPem, ca.certPem).catch(() => false)) &&
    options.dnsNames.every((name) => certificateDnsNames(certPem).includes(name));
  if (fresh) return false;
  const leaf = await issueCertificate(ca, {
    commonName: options.dnsNames[0] ?? "toolwall-webhook",
    dnsNames: options.dnsNames,
    ipAddresses: options.ipAddresses ?? [],
    usage: "server",
    validDays: options.servingValidityDays,
    now,
  });
  await writeSecret(clients.core, options.namespace, options.servingSecret, secret, "kubernetes.io/tls", {
    "tls.crt": leaf.certPem,
    "tls.key": leaf.keyPem,
    "ca.crt": bundle,
  });
  return true;
}

async function syncCaBundle(clients: Clients, name: string, bundle: string): Promise<boolean> {
  const config = await clients.admission.readMutatingWebhookConfiguration({ name });
  const encoded = Buffer.from(bundle).toString("base64");
  const webhooks = config.webhooks ?? [];
  const stale = webhooks
    .map((webhook, index) => ({ webhook, index }))
    .filter(({ webhook }) => webhook.clientConfig.caBundle !== encoded);
  if (stale.length === 0) return false;
  await clients.admission.replaceMutatingWebhookConfiguration({
    name,
    body: {
      ...config,
      webhooks: webhooks.map((webhook) => ({
        ...webhook,
        clientConfig: { ...webhook.clientConfig, caBundle: encoded },
      })),
    },
  });
  return true;
}

/** One reconcile pass; idempotent. Conflicts (409) surface as errors: the caller retries. */
export async function reconcileWebhookCertificate(
  clients: Clients,
  options: WebhookCertificateOptions,
  now = new Date(),
): Promise<CertificateReconcileResult> {
  const { ca, bundle, rotated } = await ensureCa(clients, options, now);
  const servingRotated = await ensureServing(clients, options, ca, bundle, now);
  const caBundleUpdated = await syncCaBundle(clients, options.webhookConfiguration, bundle);
  return { caRotated: rotated, servingRotated, caBundleUpdated };
}

/**
 * Runs reconcile passes until `signal` aborts: every `intervalMs`, and sooner after a failure
 * (with backoff), so a caBundle wiped by a chart upgrade is restored within a minute.
 */
export async function runWebhookCertificateRotation(
  clients: Clients,
  options: WebhookCertificateOptions,
  signal: AbortSignal,
  intervalMs = 60_000,
  log: (line: Record<string, unknown>) => void = (line) => process.stdout.write(`${JSON.stringify(line)}\n`),
): Promise<void> {
  let failures = 0;
  while (!signal.aborted) {
    let wait = intervalMs;
    try {
      const result = await reconcileWebhookCertificate(clients, options);
      failures = 0;
      if (result.caRotated || result.servingRotated || result.caBundleUpdated) {
        log({ msg: "webhook certificate reconciled", ...result });
      }
    } catch (error) {
      failures++;
      wait = Math.min(intervalMs, 500 * 2 ** Math.min(failures, 7)) * (0.5 + Math.random() / 2);
      log({ msg: "webhook certificate reconcile failed", error: (error as Error).message, failures });
    }
    await sleep(wait, undefined, { signal }).catch(() => undefined);
  }
}

export function serviceDnsNames(service: string, namespace: string): string[] {
  return [
    `${service}.${namespace}.svc`,
    `${service}.${namespace}.svc.cluster.local`,
    `${service}.${namespace}`,
  ];
}
