/**
 * Bounds on what an MCP server sends (issue 10, robustness): one event of the server's SSE stream
 * that never ends is cut at the answer size limit (64 MiB), not buffered for ever.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProxy } from "../mcp/peers.ts";

describe("MCP stream bounds", () => {
  let upstream: Server;
  let sent = 0;
  let proxy: Awaited<ReturnType<typeof startProxy>>;

  beforeAll(async () => {
    // A GET stream whose first event is 96 MiB of data and never ends.
    upstream = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = Buffer.alloc(1024 * 1024, 0x78);
      res.write("data: ");
      const more = () => {
        while (sent < 96 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
      };
      res.on("error", () => {});
      more();
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
    proxy = await startProxy(`
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: bounds, namespace: agents }
spec:
  servers: [{ name: raw, transport: StreamableHTTP, url: "${url}" }]
`);
  });

  afterAll(async () => {
    await proxy?.proxy.close(1000);
    upstream?.closeAllConnections();
    upstream?.close();
  });

  it("cuts an event past the size limit instead of holding it", async () => {
    const response = await fetch(`${proxy.url}/mcp/raw`, { headers: { accept: "text/event-stream" } });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    expect(sent).toBeLessThan(96);
  });
});
