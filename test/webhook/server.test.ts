import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificateAuthority, issueCertificate } from "../../src/k8s/pki.ts";
import { defaultInjectionConfig } from "../../src/webhook/inject.ts";
import { startWebhookServer, type WebhookServer } from "../../src/webhook/server.ts";

interface ReviewBody {
  response: {
    uid: string;
    allowed: boolean;
    patchType?: string;
    patch: string;
    status?: { message: string };
  };
  error?: string;
}

let dir: string;
let server: WebhookServer;
let caPem: string;

async function writeServingPair(caName: string): Promise<string> {
  const ca = await createCertificateAuthority(caName, 1);
  const leaf = await issueCertificate(ca, {
    commonName: "webhook",
    dnsNames: ["localhost"],
    ipAddresses: ["127.0.0.1"],
    usage: "server",
    validDays: 1,
  });
  await writeFile(join(dir, "tls.crt"), leaf.certPem);
  await writeFile(join(dir, "tls.key"), leaf.keyPem);
  return ca.certPem;
}

function call(
  method: string,
  path: string,
  body?: unknown,
  ca = caPem,
): Promise<{ status: number; text: string; json: () => ReviewBody }> {
  const url = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, ca, agent: false, headers: { "content-type": "application/json" } },
      (res) => {
        let text = "";
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode!, text, json: () => JSON.parse(text) }));
      },
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const podReview = (uid: string, spec: object) => ({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: {
    uid,
    kind: { group: "", version: "v1", kind: "Pod" },
    resource: { group: "", version: "v1", resource: "pods" },
    namespace: "agents",
    operation: "CREATE",
    object: { apiVersion: "v1", kind: "Pod", metadata: { generateName: "agent-" }, spec },
  },
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolwall-webhook-"));
  caPem = await writeServingPair("first-ca");
  server = await startWebhookServer({
    host: "127.0.0.1",
    port: 0,
    tlsCertFile: join(dir, "tls.crt"),
    tlsKeyFile: join(dir, "tls.key"),
    injection: defaultInjectionConfig,
    certReloadIntervalMs: 100,
    log: () => {},
  });
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("toolwall webhook server", () => {
  it("answers an AdmissionReview with a JSON patch for the pod", async () => {
    const res = await call("POST", "/mutate", podReview("u-1", { containers: [{ name: "a", image: "a" }] }));
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" });
    expect(body.response).toMatchObject({ uid: "u-1", allowed: true, patchType: "JSONPatch" });
    const patch = JSON.parse(Buffer.from(body.response.patch, "base64").toString());
    expect(patch.map((op: { path: string }) => op.path)).toContain("/spec/initContainers");
  });

  it("refuses a hostNetwork pod with the reason", async () => {
    const res = await call(
      "POST",
      "/mutate",
      podReview("u-2", { hostNetwork: true, containers: [{ name: "a", image: "a" }] }),
    );
    expect(res.json().response).toMatchObject({
      uid: "u-2",
      allowed: false,
      status: { code: 403, message: expect.stringContaining("hostNetwork") },
    });
  });

  it("answers 400 to something that is not an AdmissionReview", async () => {
    const res = await call("POST", "/mutate", { kind: "Pod" });
    expect(res.status).toBe(400);
    expect(res.json().error).toContain("AdmissionReview");
  });

  it("counts admissions by outcome", async () => {
    const res = await call("GET", "/metrics");
    expect(res.text).toContain('toolwall_webhook_admissions_total{operation="CREATE",outcome="injected"} 1');
    expect(res.text).toContain('toolwall_webhook_admissions_total{operation="CREATE",outcome="rejected"} 1');
    expect(res.text).toContain('toolwall_webhook_admissions_total{operation="unknown",outcome="error"} 1');
  });

  it("serves a rotated certificate without a restart", async () => {
    const newCa = await writeServingPair("second-ca");
    const deadline = Date.now() + 5000;
    for (;;) {
      const res = await call("GET", "/healthz", undefined, newCa).catch((error: Error) => error);
      if (!(res instanceof Error)) {
        expect(res.status).toBe(200);
        break;
      }
      if (Date.now() > deadline) throw res;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await expect(call("GET", "/healthz")).rejects.toThrow(/certificate/);
  });
});
