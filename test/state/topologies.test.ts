import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { connectRedis, RedisStore } from "../../src/state/redis.ts";
import type { StateStore } from "../../src/state/types.ts";
import { RedisServer, skipWithoutRedis } from "../helpers/redis.ts";

const skipRedis = skipWithoutRedis();
const started: RedisServer[] = [];
const stores: RedisStore[] = [];

afterAll(async () => {
  for (const store of stores) await store.close();
  for (const server of started.reverse()) await server.dispose();
});

async function until(what: string, condition: () => Promise<boolean>, maxMs = 15_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every kind of operation, across two namespaces (two hash slots, in a cluster two nodes). */
async function exercise(store: StateStore): Promise<void> {
  const namespaces = [`ns-${randomUUID().slice(0, 8)}`, `ns-${randomUUID().slice(0, 8)}`];
  for (const namespace of namespaces) {
    const charge = { key: "limit:pod", name: "limit", perMinute: 1, burst: 1, enforce: true };
    const call = {
      at: Date.now(),
      server: "db",
      tool: "get_row",
      requestId: "r",
      category: "read" as const,
      action: "allow" as const,
    };
    const input = {
      namespace,
      session: "pod",
      call,
      charges: [charge],
      windowRetentionMs: 30_000,
      maxWindowEntries: 100,
    };
    expect((await store.checkAndRecord(input)).blocked).toBe(false);
    expect((await store.checkAndRecord(input)).blocked).toBe(true);
    expect((await store.loadSession(namespace, "pod", 0)).window).toHaveLength(2);
    await store.noteToolProviders(namespace, "pod", [{ tool: "search", server: "a" }]);
    expect(await store.noteToolProviders(namespace, "pod", [{ tool: "search", server: "b" }])).toHaveLength(
      1,
    );
    expect((await store.pinIfAbsent(namespace, [{ key: "a/search", sha256: "x" }]))[0]!.created).toBe(true);
    store.appendAudit(namespace, {
      type: "mcp_tool_called",
      timestamp: new Date().toISOString(),
      tool: "get_row",
    });
  }
  await store.flush();
  const events = await store.readAudit({ tool: "get_row", limit: 100 });
  expect(new Set(events.map((e) => e.event["namespace"]))).toEqual(new Set(namespaces));
}

describe.skipIf(skipRedis)("Redis topologies", () => {
  it("works on a three-node Redis Cluster (keys of a namespace share one slot)", async () => {
    const nodes: RedisServer[] = [];
    for (let i = 0; i < 3; i++) {
      const node = await RedisServer.start({ config: ["cluster-enabled yes", "cluster-node-timeout 2000"] });
      started.push(node);
      nodes.push(node);
    }
    const ranges = [
      [0, 5460],
      [5461, 10922],
      [10923, 16383],
    ];
    for (const [i, node] of nodes.entries()) {
      expect(
        await node.command("CLUSTER", "ADDSLOTSRANGE", String(ranges[i]![0]), String(ranges[i]![1])),
      ).toBe("+OK");
    }
    for (const node of nodes.slice(1))
      await nodes[0]!.command("CLUSTER", "MEET", "127.0.0.1", String(node.port));
    for (const node of nodes) {
      await until("cluster_state:ok", async () => {
        const info = await node.bulk("CLUSTER", "INFO");
        return info.includes("cluster_state:ok") && info.includes("cluster_known_nodes:3");
      });
    }
    const store = new RedisStore(
      connectRedis(
        nodes
          .map((n) => `127.0.0.1:${n.port}`)
          .join(",")
          .replace(/^/, "redis+cluster://"),
      ),
    );
    stores.push(store);
    await until("cluster client ready", async () => {
      await store.ping();
      return true;
    });
    await exercise(store);
  });

  it("works through Redis Sentinel", async () => {
    const primary = await RedisServer.start();
    started.push(primary);
    const sentinel = await RedisServer.start({
      sentinel: true,
      config: [
        `sentinel monitor toolwall 127.0.0.1 ${primary.port} 1`,
        "sentinel down-after-milliseconds toolwall 2000",
      ],
    });
    started.push(sentinel);
    const store = new RedisStore(connectRedis(`redis+sentinel://127.0.0.1:${sentinel.port}/toolwall`));
    stores.push(store);
    await until("sentinel client ready", async () => {
      await store.ping();
      return true;
    });
    await exercise(store);
    expect(Number((await primary.command("DBSIZE")).slice(1))).toBeGreaterThan(0);
  });
});
