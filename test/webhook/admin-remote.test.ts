/**
 * The sidecar's admin server listens on the pod IP so Prometheus can scrape it: clients outside the
 * pod get /metrics and nothing else, loopback (the startup probe) keeps /readyz and /healthz.
 */
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

describe("admin server with remoteMetricsOnly", () => {
  const app = createAdminServer(() => true, [], { remoteMetricsOnly: true });
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

  it("answers 404 to /readyz and /healthz from outside the pod", async () => {
    for (const path of ["/readyz", "/healthz", "/metrics/../readyz"]) {
      const response = await fetch(`http://${externalAddress()}:${port}${path}`);
      expect(response.status, path).toBe(404);
    }
  });

  it("keeps every endpoint on loopback, over IPv4 and IPv6", async () => {
    for (const host of ["127.0.0.1", "[::1]"]) {
      expect((await fetch(`http://${host}:${port}/readyz`)).status).toBe(200);
      expect((await fetch(`http://${host}:${port}/healthz`)).status).toBe(200);
    }
  });
});
