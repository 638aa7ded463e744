import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BundleClient, backoffDelay } from "../../src/bundle/client.ts";
import { TokenAuthenticator, type TokenReviewStatus } from "../../src/controller/auth.ts";
import { ControllerModel, type PodObject, type PolicyObject } from "../../src/controller/model.ts";
import { BundleServer } from "../../src/controller/server.ts";
import { MemoryAuditSink } from "../../src/telemetry/audit.ts";

/*
 * The bundle client against the controller's real bundle server over loopback. Only TokenReview is
 * answered in process here (tokens "token-<pod>" are bound to that pod); the real API server's
 * TokenReview is exercised in controller-apiserver.test.ts.
 */

function policyObject(name: string, generation: number, spec: Record<string, unknown>): PolicyObject {
  return {
    apiVersion: "toolwall.io/v1alpha1",
    kind: "MCPPolicy",
    metadata: { namespace: "agents", name, uid: `uid-${name}`, generation },
    spec,
  };
}

function podObject(name: string, labels: Record<string, string>): PodObject {
  return {
    metadata: { namespace: "agents", name, uid: `uid-${name}`, labels },
    spec: { serviceAccountName: "agent" },
  };
}

const pods = [podObject("research-1", { app: "research" }), podObject("writer-1", { app: "writer" })];
const denyDelete = (generation: number, tools: string[]) =>
  policyObject("research", generation, {
    podSelector: { matchLabels: { app: "research" } },
    toolPolicy: { default: "Allow", rules: [{ action: "Deny", tools, reason: "destructive" }] },
    maxStaleness: "1500ms",
  });

async function review(token: string): Promise<TokenReviewStatus> {
  const pod = /^token-(.+)$/.exec(token)?.[1];
  if (!pod) return { authenticated: false, error: "unknown token" };
  return {
    authenticated: true,
    audiences: ["toolwall"],
    user: {
      username: "system:serviceaccount:agents:agent",
      extra: {
        "authentication.kubernetes.io/pod-name": [pod],
        "authentication.kubernetes.io/pod-uid": [`uid-${pod}`],
      },
    },
  };
}

describe("bundle client and bundle server", () => {
  let model: ControllerModel | undefined;
  let server: BundleServer;
  let url: string;
  let dir: string;
  let tokenFile: string;

  const setPolicies = (policies: PolicyObject[]) => {
    model = new ControllerModel(policies, pods);
    server.changed();
  };

  const client = (audit = new MemoryAuditSink(), bundleDir = join(dir, "bundle")) =>
    new BundleClient({
      controllerUrl: url,
      namespace: "agents",
      pod: "research-1",
      tokenFile,
      bundleDir,
      audit,
      backoffBaseMs: 20,
      backoffMaxMs: 100,
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolwall-bundle-"));
    tokenFile = join(dir, "token");
    await writeFile(tokenFile, "token-research-1\n");
    server = new BundleServer({
      authenticator: new TokenAuthenticator({ audience: "toolwall", review }),
      model: () => model,
      fetchPod: async () => undefined,
      pollTimeoutMs: 300,
    });
    url = await server.app.listen({ host: "127.0.0.1", port: 0 });
  });

  afterAll(async () => {
    await server.app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers 503 until synced, 401 without a valid token, 403 for another pod's bundle, 400 without a pod", async () => {
    const get = (query: string, token?: string) =>
      fetch(`${url}/v1/bundle?${query}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    expect((await get("namespace=agents&pod=research-1", "token-research-1")).status).toBe(503);
    setPolicies([denyDelete(1, ["delete_*"])]);
    expect((await get("namespace=agents&pod=research-1")).status).toBe(401);
    expect((await get("namespace=agents&pod=research-1", "forged")).status).toBe(401);
    const other = await get("namespace=agents&pod=writer-1", "token-research-1");
    expect(other.status).toBe(403);
    expect(await other.text()).toMatch(/may not read the bundle of agents\/writer-1/);
    expect((await get("namespace=other&pod=research-1", "token-research-1")).status).toBe(403);
    expect((await get("namespace=agents", "token-research-1")).status).toBe(400);
    const own = await get("namespace=agents&pod=research-1", "token-research-1");
    expect(own.status).toBe(200);
    const bundle = (await own.json()) as { hash: string; policies: unknown[] };
    expect(bundle.policies).toHaveLength(1);
    const unchanged = await get(`namespace=agents&pod=research-1&since=${bundle.hash}`, "token-research-1");
    expect(unchanged.status).toBe(304);
  });

  it("is not ready and denies everything until a bundle is loaded, then enforces it and follows changes at once", async () => {
    setPolicies([denyDelete(1, ["delete_*"])]);
    const audit = new MemoryAuditSink();
    const sidecar = client(audit);
    expect(sidecar.ready()).toBe(false);
    expect(sidecar.expired()).toBe(true);
    expect(sidecar.current().evaluate({ tool: "read_file" }).reason).toBe("policy expired");
    await sidecar.start();
    await sidecar.whenReady();
    try {
      expect(sidecar.current().evaluate({ tool: "delete_repo" })).toMatchObject({
        action: "deny",
        reason: "destructive",
      });
      expect(sidecar.current().evaluate({ tool: "drop_table" }).action).toBe("allow");
      expect(audit.events.find((e) => e.type === "policy_bundle_applied")).toMatchObject({
        namespace: "agents",
        pod: "research-1",
        policies: ["agents/research@1"],
        source: "controller",
      });
      const changed = new Promise<number>((resolve) => {
        const started = performance.now();
        sidecar.onBundle(() => resolve(performance.now() - started));
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      setPolicies([denyDelete(2, ["delete_*", "drop_*"])]);
      expect(await changed).toBeLessThan(200);
      expect(sidecar.current().evaluate({ tool: "drop_table" }).action).toBe("deny");
    } finally {
      await sidecar.stop();
    }
  });

  it("keeps the last good bundle on disk and loads it when the controller is unreachable", async () => {
    setPolicies([denyDelete(3, ["delete_*"])]);
    const first = client();
    await first.start();
    await first.whenReady();
    await first.stop();
    const offline = new BundleClient({
      controllerUrl: "http://127.0.0.1:9",
      namespace: "agents",
      pod: "research-1",
      tokenFile,
      bundleDir: join(dir, "bundle"),
      audit: new MemoryAuditSink(),
      backoffBaseMs: 20,
      backoffMaxMs: 100,
    });
    await offline.start();
    try {
      expect(offline.ready()).toBe(true);
      expect(offline.bundle()?.policies[0]?.generation).toBe(3);
      expect(offline.current().evaluate({ tool: "delete_repo" }).action).toBe("deny");
    } finally {
      await offline.stop();
    }
  });

  it("after maxStaleness without contact denies every call with reason 'policy expired'", async () => {
    setPolicies([denyDelete(4, ["delete_*"])]);
    const sidecar = client(new MemoryAuditSink(), join(dir, "stale"));
    await sidecar.start();
    await sidecar.whenReady();
    try {
      expect(sidecar.expired()).toBe(false);
      model = undefined;
      await new Promise((resolve) => setTimeout(resolve, 1800));
      expect(sidecar.expired()).toBe(true);
      expect(sidecar.current().evaluate({ tool: "read_file" })).toMatchObject({
        action: "deny",
        reason: "policy expired",
        mode: "Enforce",
      });
      expect(sidecar.current().evaluate({ tool: "x", server: "github" }).reason).toBe("policy expired");
      setPolicies([denyDelete(4, ["delete_*"])]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(sidecar.expired()).toBe(false);
    } finally {
      await sidecar.stop();
    }
  });

  it("a maxStaleness shorter than the controller's long-poll does not expire a sidecar in contact", async () => {
    // Found on a real node: with the 30 s long-poll and maxStaleness 20 s every call was denied
    // ("policy expired") between polls although the controller was up.
    const slow = new BundleServer({
      authenticator: new TokenAuthenticator({ audience: "toolwall", review }),
      model: () => model,
      fetchPod: async () => undefined,
      pollTimeoutMs: 10_000,
    });
    const slowUrl = await slow.app.listen({ host: "127.0.0.1", port: 0 });
    setPolicies([denyDelete(5, ["delete_*"])]);
    const sidecar = new BundleClient({
      controllerUrl: slowUrl,
      namespace: "agents",
      pod: "research-1",
      tokenFile,
      bundleDir: join(dir, "short-staleness"),
      audit: new MemoryAuditSink(),
    });
    await sidecar.start();
    await sidecar.whenReady();
    try {
      await new Promise((resolve) => setTimeout(resolve, 3500));
      expect(sidecar.expired()).toBe(false);
      expect(sidecar.current().evaluate({ tool: "read_file" }).action).toBe("allow");
    } finally {
      await sidecar.stop();
      await slow.app.close();
    }
  });

  it("backs off with full jitter up to the cap", () => {
    expect(backoffDelay(0, 100, 1000, () => 1)).toBe(100);
    expect(backoffDelay(3, 100, 1000, () => 1)).toBe(800);
    expect(backoffDelay(10, 100, 1000, () => 1)).toBe(1000);
    expect(backoffDelay(10, 100, 1000, () => 0)).toBe(0);
  });
});

describe("bundle client over HTTPS", () => {
  it("fetches from a controller serving TLS with a certificate from the given CA", async () => {
    const { createCertificateAuthority, issueCertificate } = await import("../../src/k8s/pki.ts");
    const ca = await createCertificateAuthority("toolwall-test-controller-ca", 1);
    const serving = await issueCertificate(ca, {
      commonName: "toolwall-controller",
      dnsNames: ["localhost"],
      ipAddresses: ["127.0.0.1"],
      usage: "server",
      validDays: 1,
    });
    const dir = await mkdtemp(join(tmpdir(), "toolwall-bundle-tls-"));
    const tokenFile = join(dir, "token");
    await writeFile(tokenFile, "token-research-1");
    const model = new ControllerModel([denyDelete(1, ["delete_*"])], pods);
    const server = new BundleServer({
      authenticator: new TokenAuthenticator({ audience: "toolwall", review }),
      model: () => model,
      fetchPod: async () => undefined,
      tls: { cert: serving.certPem, key: serving.keyPem },
    });
    const url = await server.app.listen({ host: "127.0.0.1", port: 0 });
    expect(url).toMatch(/^https:/);
    const sidecar = new BundleClient({
      controllerUrl: url,
      namespace: "agents",
      pod: "research-1",
      tokenFile,
      bundleDir: join(dir, "bundle"),
      audit: new MemoryAuditSink(),
      controllerCa: ca.certPem,
    });
    try {
      await sidecar.start();
      await sidecar.whenReady();
      expect(sidecar.current().evaluate({ tool: "delete_repo" }).action).toBe("deny");
    } finally {
      await sidecar.stop();
      await server.app.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
