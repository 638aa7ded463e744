/**
 * The sidecar's admin server listens on the pod IP so Prometheus can scrape it and the kubelet can
 * probe it: clients outside the pod get GET /metrics, /healthz and /readyz and nothing else (404),
 * loopback keeps every endpoint.
 */
import { request } from "node:http";
import { networkInterfaces } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminServer } from "../../src/runtime/admin.ts";

/** An address of this machine that is not loopback: connecting to it makes a non-loopback client. */
function externalAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry && entry.family === "IPv4" && !entry.internal);
  if (!found) throw new Error("this test needs a non-loopback IPv4 address (none found)");
  return found.address;
}

/** A raw request: unlike fetch, node:http sends the path as written (no dot-segment removal). */
function status(host: string, port: number, method: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host, port, method, path }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

describe("admin server with remoteMetricsAndProbesOnly", () => {
  let ready = true;
  const app = createAdminServer(() => ready, [], { remoteMetricsAndProbesOnly: true });
  let port = 0;
  beforeAll(async () => {
    await app.listen({ host: "::", port: 0 });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(() => app.close());

  it("serves /metrics to a client outside the pod", async () => {
    const response = await fetch(`http://${externalAddress()}:${port}/metrics`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("# HELP");
  });

  it("answers the kubelet's probes from outside the pod, readiness included", async () => {
    const host = externalAddress();
    expect(await status(host, port, "GET", "/healthz")).toBe(200);
    expect(await status(host, port, "GET", "/readyz")).toBe(200);
    expect(await status(host, port, "GET", "/readyz?verbose=1")).toBe(200);
    ready = false;
    try {
      expect(await status(host, port, "GET", "/readyz")).toBe(503);
    } finally {
      ready = true;
    }
  });

  it("answers 404 to other paths, methods and path tricks from outside the pod", async () => {
    const host = externalAddress();
    const refused: [string, string][] = [
      ["GET", "/"],
      ["GET", "/debug"],
      ["GET", "/metrics/"],
      ["GET", "/readyz/"],
      ["GET", "//readyz"],
      ["GET", "/metrics/../admin"],
      ["GET", "/readyz/../admin"],
      ["GET", "/%72eadyz"],
      ["GET", "/READYZ"],
      ["GET", "/readyz;x"],
      ["GET", "http://127.0.0.1/readyz"],
      ["POST", "/readyz"],
      ["HEAD", "/readyz"],
      ["OPTIONS", "/metrics"],
      ["DELETE", "/healthz"],
    ];
    for (const [method, path] of refused) {
      expect(await status(host, port, method, path), `${method} ${path}`).toBe(404);
    }
  });

  it("keeps every endpoint on loopback, over IPv4 and IPv6", async () => {
    for (const host of ["127.0.0.1", "::1"]) {
      expect(await status(host, port, "GET", "/readyz")).toBe(200);
      expect(await status(host, port, "GET", "/healthz")).toBe(200);
      expect(await status(host, port, "HEAD", "/readyz")).toBe(200);
    }
  });
});
