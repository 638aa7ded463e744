import { randomUUID } from "node:crypto";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CallContext,
  compileStatefulPolicy,
  crossServerBlockedEvent,
  type StatefulPolicySpec,
  StateGuard,
} from "../../src/state/guard.ts";
import { MemoryStore } from "../../src/state/memory.ts";
import { stateMetrics } from "../../src/state/metrics.ts";
import { connectRedis, RedisStore } from "../../src/state/redis.ts";
import { ResilientStore } from "../../src/state/resilient.ts";
import type { CheckAndRecordInput, RateLimitOutcome } from "../../src/state/types.ts";
import { RedisServer, skipWithoutRedis } from "../helpers/redis.ts";

const skipRedis = skipWithoutRedis();
let server: RedisServer | undefined;
const opened: RedisStore[] = [];

beforeAll(async () => {
  if (!skipRedis) server = await RedisServer.start();
});

afterAll(async () => {
  for (const store of opened) await store.close();
  await server?.dispose();
});

/** A sidecar's guard over the shared Redis (each call makes a new "process"). */
async function sidecarGuard(): Promise<StateGuard> {
  const redis = new RedisStore(connectRedis(server!.url));
  opened.push(redis);
  // Not a failure test: a timeout that a stalled shared machine does not trip.
  const store = new ResilientStore(redis, { log: () => {}, timeoutMs: 2000 });
  expect(await store.waitUntilReachable(5000)).toBe(true);
  return new StateGuard({ store });
}

const allow = { action: "allow" as const };
const exfiltration: StatefulPolicySpec = {
  crossServer: { readThenSend: { enabled: true, window: "30s" }, shadowTool: { enabled: true } },
};

function context(overrides: Partial<CallContext> = {}): CallContext {
  return { namespace: `ns-${randomUUID().slice(0, 8)}`, pod: "agent-0", session: "agent-0", ...overrides };
}

describe.skipIf(skipRedis)("state guard over Redis", () => {
  it("blocks a send on one server after a read on another, listing the read in the event", async () => {
    const guard = await sidecarGuard();
    const policies = [compileStatefulPolicy("agents/exfil", exfiltration)];
    const ctx = context();
    const read = await guard.decide(
      ctx,
      { server: "db", tool: "query_database", requestId: "msg_1" },
      policies,
      allow,
    );
    expect(read).toMatchObject({ action: "allow", stage: "none" });
    const send = await guard.decide(
      ctx,
      { server: "mail", tool: "send_email", requestId: "msg_2" },
      policies,
      allow,
    );
    expect(send).toMatchObject({
      action: "deny",
      stage: "crossServer",
      rule: "agents/exfil#crossServer.readThenSend",
    });
    expect(send.reason).toMatch(/^Server 'mail' attempted send after 'db' read data/);
    const event = crossServerBlockedEvent(
      ctx,
      { server: "mail", tool: "send_email", requestId: "msg_2" },
      send.crossServer!,
      true,
    );
    expect(event).toMatchObject({
      type: "mcp_cross_server_blocked",
      action: "deny",
      server: "mail",
      severity: "critical",
    });
    expect(event["relatedCalls"]).toEqual([
      expect.objectContaining({ server: "db", tool: "query_database", category: "read" }),
    ]);
  });

  it("keeps the window across a sidecar restart", async () => {
    const policies = [compileStatefulPolicy("agents/exfil", exfiltration)];
    const ctx = context();
    const before = await sidecarGuard();
    await before.decide(ctx, { server: "db", tool: "get_customer" }, policies, allow);
    const after = await sidecarGuard();
    const send = await after.decide(ctx, { server: "mail", tool: "send_email" }, policies, allow);
    expect(send.stage).toBe("crossServer");
  });

  it("spends a rate-limit token only when everything else allowed, and names the limit when over", async () => {
    const guard = await sidecarGuard();
    const policies = [
      compileStatefulPolicy("agents/limits", {
        rateLimits: [
          { name: "github-writes", servers: ["github"], tools: ["create_*"], perMinute: 2, burst: 2 },
        ],
      }),
    ];
    const ctx = context();
    const call = { server: "github", tool: "create_issue" };
    for (let i = 0; i < 5; i++) {
      const denied = await guard.decide(ctx, call, policies, { action: "deny", reason: "nope", rule: "r" });
      expect(denied.stage).toBe("policy");
    }
    expect((await guard.decide(ctx, call, policies, allow)).action).toBe("allow");
    expect((await guard.decide(ctx, call, policies, allow)).action).toBe("allow");
    const over = await guard.decide(ctx, call, policies, allow);
    expect(over).toMatchObject({ action: "deny", stage: "rateLimit", rule: "agents/limits#rateLimits[0]" });
    expect(over.reason).toMatch(/^rate limit 'github-writes' exceeded \(2\/min, burst 2\); retry in \d+s$/);
    expect((await guard.decide(ctx, { server: "github", tool: "get_issue" }, policies, allow)).action).toBe(
      "allow",
    );
  });

  it("shares a Namespace-scoped limit between pods and keeps Pod-scoped ones apart", async () => {
    const [podA, podB] = [await sidecarGuard(), await sidecarGuard()];
    const policies = [
      compileStatefulPolicy("agents/limits", {
        rateLimits: [
          { name: "shared", tools: ["search_*"], perMinute: 1, burst: 2, scope: "Namespace" },
          { name: "own", tools: ["fetch_*"], perMinute: 1, burst: 1, scope: "Pod" },
        ],
      }),
    ];
    const ns = context().namespace;
    const a = context({ namespace: ns, pod: "a", session: "a" });
    const b = context({ namespace: ns, pod: "b", session: "b" });
    expect((await podA.decide(a, { tool: "search_web" }, policies, allow)).action).toBe("allow");
    expect((await podB.decide(b, { tool: "search_web" }, policies, allow)).action).toBe("allow");
    expect((await podB.decide(b, { tool: "search_web" }, policies, allow)).action).toBe("deny");
    expect((await podA.decide(a, { tool: "fetch_url" }, policies, allow)).action).toBe("allow");
    expect((await podB.decide(b, { tool: "fetch_url" }, policies, allow)).action).toBe("allow");
  });

  it("reports an Audit-mode policy's cross-server finding and rate limit without blocking", async () => {
    const guard = await sidecarGuard();
    const policies = [
      compileStatefulPolicy("agents/watch", {
        mode: "Audit",
        crossServer: { readThenSend: { enabled: true } },
        rateLimits: [{ name: "tiny", perMinute: 1, burst: 1 }],
      }),
    ];
    const ctx = context();
    await guard.decide(ctx, { server: "db", tool: "get_row" }, policies, allow);
    const send = await guard.decide(ctx, { server: "mail", tool: "send_email" }, policies, allow);
    expect(send.action).toBe("allow");
    expect(send.findings.map((f) => f.rule)).toEqual([
      "agents/watch#crossServer.readThenSend",
      "agents/watch#rateLimits[0]",
    ]);
  });

  it("blocks a tool that a second server shadows, from the first call", async () => {
    const guard = await sidecarGuard();
    const policies = [compileStatefulPolicy("agents/exfil", exfiltration)];
    const ctx = context();
    expect(await guard.noteToolList(ctx, "docs", ["search", "get_page"])).toEqual([]);
    expect(await guard.noteToolList(ctx, "evil", ["search"])).toEqual([
      { tool: "search", originalServer: "docs", currentServer: "evil" },
    ]);
    const call = await guard.decide(ctx, { server: "evil", tool: "search" }, policies, allow);
    expect(call).toMatchObject({
      action: "deny",
      stage: "crossServer",
      rule: "agents/exfil#crossServer.shadowTool",
    });
    const restarted = await sidecarGuard();
    expect((await restarted.decide(ctx, { server: "evil", tool: "search" }, policies, allow)).stage).toBe(
      "crossServer",
    );
  });

  it("pins the first pod's definition for the namespace and reports another pod's as a change", async () => {
    const [podA, podB] = [await sidecarGuard(), await sidecarGuard()];
    const ns = context().namespace;
    const first = await podA.pin(ns, [{ server: "github", tool: "create_issue", sha256: "aaa" }]);
    expect(first[0]).toMatchObject({ created: true, changed: false, pinned: "aaa" });
    const second = await podB.pin(ns, [{ server: "github", tool: "Create_Issue", sha256: "bbb" }]);
    expect(second[0]).toMatchObject({ created: false, changed: true, pinned: "aaa" });
    expect(
      (await podB.pin(ns, [{ server: "github", tool: "create_issue", sha256: "aaa" }]))[0]!.changed,
    ).toBe(false);
  });
});

describe("state guard round trips", () => {
  class CountingStore extends MemoryStore {
    rounds = 0;
    override async checkAndRecord(input: CheckAndRecordInput): Promise<RateLimitOutcome> {
      this.rounds++;
      return super.checkAndRecord(input);
    }
  }

  it("makes one store round trip per decision with stateful rules and none without", async () => {
    const store = new CountingStore();
    const registry = new Registry();
    const guard = new StateGuard({
      store: new ResilientStore(store, { local: store }),
      metrics: stateMetrics(registry),
    });
    const ctx = context();
    await guard.decide(
      ctx,
      { server: "github", tool: "get_issue" },
      [compileStatefulPolicy("a/plain", {})],
      allow,
    );
    expect(store.rounds).toBe(0);
    const policies = [
      compileStatefulPolicy("a/full", { ...exfiltration, rateLimits: [{ perMinute: 600, burst: 100 }] }),
    ];
    for (let i = 0; i < 10; i++)
      await guard.decide(ctx, { server: "github", tool: "get_issue" }, policies, allow);
    expect(store.rounds).toBe(10);
  });

  it("counts rate-limited and cross-server denials in metrics", async () => {
    const registry = new Registry();
    const local = new MemoryStore();
    const guard = new StateGuard({
      store: new ResilientStore(local, { local }),
      metrics: stateMetrics(registry),
    });
    const policies = [
      compileStatefulPolicy("a/p", {
        ...exfiltration,
        rateLimits: [{ name: "one", perMinute: 1, burst: 1 }],
      }),
    ];
    const ctx = context();
    await guard.decide(ctx, { server: "db", tool: "get_row" }, policies, allow);
    await guard.decide(ctx, { server: "db", tool: "get_row" }, policies, allow);
    await guard.decide(ctx, { server: "mail", tool: "send_email" }, policies, allow);
    const text = await registry.metrics();
    expect(text).toContain('toolwall_rate_limited_total{policy="a/p",limit="one"} 1');
    expect(text).toContain('toolwall_cross_server_blocked_total{rule="readThenSend"} 1');
  });

  it("charges an MCP resource read or prompt get to limits over every tool of its server only, outside the cross-server window", async () => {
    const local = new MemoryStore();
    const guard = new StateGuard({ store: new ResilientStore(local, { local }) });
    const policies = [
      compileStatefulPolicy("a/p", {
        ...exfiltration,
        rateLimits: [
          { name: "named", servers: ["db"], tools: ["get_*"], perMinute: 1, burst: 1 },
          { name: "server", servers: ["db"], perMinute: 1, burst: 2 },
        ],
      }),
    ];
    const ctx = context();
    const read = (kind: "resource" | "prompt") =>
      guard.decide(ctx, { server: "db", tool: "get_secrets", kind }, policies, allow);
    expect((await read("resource")).action).toBe("allow");
    // The limit naming tools (burst 1) is not spent by a resource read: a second request passes.
    expect((await read("prompt")).action).toBe("allow");
    expect(await read("resource")).toMatchObject({
      action: "deny",
      stage: "rateLimit",
      rule: "a/p#rateLimits[1]",
    });
    // Neither joined the session window: a send after them is no read-then-send.
    expect((await guard.decide(ctx, { server: "mail", tool: "send_email" }, policies, allow)).action).toBe(
      "allow",
    );
  });
});
