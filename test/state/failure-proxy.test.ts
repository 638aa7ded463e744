import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPodProxy } from "../helpers/pod-proxy.ts";
import { RedisServer, skipWithoutRedis } from "../helpers/redis.ts";

/** A full GC before each heap reading, so the bound is on what is retained, not on pending garbage. */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

const skipRedis = skipWithoutRedis();
let redis: RedisServer | undefined;
let upstream: Server | undefined;

beforeAll(async () => {
  if (skipRedis) return;
  redis = await RedisServer.start();
  upstream = createServer(async (req, res) => {
    const server = new McpServer({ name: "catalog", version: "1.0.0" });
    server.registerTool("lookup_item", { description: "reads an item" }, async () => ({
      content: [{ type: "text", text: "item" }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => upstream!.listen(0, "127.0.0.1", resolve));
});

afterAll(async () => {
  upstream?.closeAllConnections();
  await new Promise((r) => (upstream ? upstream.close(r) : r(undefined)));
  await redis?.dispose();
});

describe.skipIf(skipRedis)("Redis failing under load through the proxy", () => {
  it("answers every tool call while Redis is killed and restarted empty, with bounded memory", async () => {
    const lines: string[] = [];
    const pod = await startPodProxy({
      name: "agent-0",
      redisUrl: redis!.url,
      server: "catalog",
      log: (line) => lines.push(line),
      policyYaml: `
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: catalog, namespace: agents }
spec:
  servers: [{ name: catalog, transport: StreamableHTTP, url: "http://127.0.0.1:${(upstream!.address() as AddressInfo).port}/mcp" }]
  crossServer: { readThenSend: { enabled: true }, burst: { enabled: true, maxCalls: 100000 } }
  rateLimits: [{ name: roomy, servers: [catalog], perMinute: 1000000, burst: 1000000 }]
  onStateUnavailable: Local
`,
    });
    const { state } = pod;
    const clients = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const client = new Client({ name: "load", version: "1.0.0" });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${pod.url}/mcp/catalog`)));
        return client;
      }),
    );
    const failures: string[] = [];
    let calls = 0;
    let running = true;
    collectGarbage();
    const heapBefore = process.memoryUsage().heapUsed;
    const workers = clients.map(async (client) => {
      while (running) {
        try {
          const result = await client.callTool({ name: "lookup_item", arguments: {} });
          if (JSON.stringify(result.content) !== '[{"type":"text","text":"item"}]')
            failures.push(JSON.stringify(result));
        } catch (error) {
          failures.push(String(error));
        }
        calls++;
      }
    });
    try {
      await new Promise((r) => setTimeout(r, 500));
      await redis!.stop();
      await new Promise((r) => setTimeout(r, 1000));
      await redis!.start();
      const deadline = Date.now() + 10_000;
      while (!state.store.available && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      running = false;
      await Promise.all(workers);
      // A stall of the shared machine after the restart may cost one more fallback round: let it end.
      const recovered = Date.now() + 10_000;
      while (!state.store.available && Date.now() < recovered) await new Promise((r) => setTimeout(r, 20));
      for (const client of clients) await client.close();
      await pod.close();
    }
    expect(failures).toEqual([]);
    expect(calls).toBeGreaterThan(20);
    expect(state.store.available).toBe(true);
    expect(lines.some((l) => l.includes("state store unavailable"))).toBe(true);
    expect(lines.at(-1)).toMatch(/state store reachable again/);
    // Bounded: a few seconds of calls do not grow the heap by more than a small constant.
    collectGarbage();
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 2 ** 20);
  });
});
