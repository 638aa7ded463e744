import { randomUUID } from "node:crypto";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CallContext, compileStatefulPolicy, type StatefulPolicySpec } from "../../src/state/guard.ts";
import type { MemoryStore } from "../../src/state/memory.ts";
import { openState } from "../../src/state/open.ts";
import type { RedisStore } from "../../src/state/redis.ts";
import { RedisServer, skipWithoutRedis } from "../helpers/redis.ts";

const skipRedis = skipWithoutRedis();
const timeoutMs = 50;
const slackMs = 20;

/**
 * The store is never awaited past `timeoutMs`; on a busy shared machine a request can still be late by
 * however long the event loop was stalled, so that stall is measured and allowed for, nothing more.
 */
function eventLoopStall() {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  return {
    maxMs: () => histogram.max / 1e6,
    stop: () => histogram.disable(),
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
let server: RedisServer | undefined;

beforeAll(async () => {
  if (!skipRedis) server = await RedisServer.start();
});

afterAll(async () => {
  await server?.dispose();
});

async function open(extra: { maxSessions?: number } = {}) {
  const registry = new Registry();
  const logs: string[] = [];
  const guard = await openState({
    redisUrl: server!.url,
    timeoutMs,
    probeIntervalMs: 100,
    registry,
    log: (line) => logs.push(line),
    memory: { maxKeys: 500 },
    auditQueueMax: 1000,
    ...extra,
  });
  return {
    guard,
    logs,
    registry,
    local: guard.store.local as MemoryStore,
    redis: guard.store.primary as RedisStore,
  };
}

function policy(spec: StatefulPolicySpec) {
  return [compileStatefulPolicy("agents/p", spec)];
}

const allow = { action: "allow" as const };
const ctx = (): CallContext => ({
  namespace: `ns-${randomUUID().slice(0, 8)}`,
  pod: "agent-0",
  session: "agent-0",
});

async function waitFor(condition: () => boolean, maxMs = 5000): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function gauge(registry: Registry): Promise<number> {
  const metric = await registry.getSingleMetric("toolwall_state_store_fallback_active")!.get();
  return metric.values[0]?.value ?? 0;
}

describe.skipIf(skipRedis)("state store failures against a real redis-server", () => {
  it("serves from memory when Redis is down at start, then recovers by itself", async () => {
    await server!.stop();
    const { guard, logs, registry } = await open();
    expect(await guard.store.waitUntilReachable(150)).toBe(false);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^toolwall: state store unavailable \(connect: /);
    expect(await gauge(registry)).toBe(1);

    const policies = policy({ rateLimits: [{ name: "two", perMinute: 60, burst: 2 }] });
    const c = ctx();
    const started = performance.now();
    const actions = [];
    for (let i = 0; i < 3; i++)
      actions.push((await guard.decide(c, { tool: "search" }, policies, allow)).action);
    expect(performance.now() - started).toBeLessThan(timeoutMs + slackMs);
    expect(actions).toEqual(["allow", "allow", "deny"]);

    await server!.start();
    await waitFor(() => guard.store.available);
    expect(logs).toHaveLength(2);
    expect(logs[1]).toMatch(/^toolwall: state store reachable again after \d+\.\ds$/);
    expect(await gauge(registry)).toBe(0);
    const errors = await registry.getSingleMetric("toolwall_state_store_errors_total")!.get();
    expect(errors.values.some((v) => v.labels["operation"] === "connect" && v.value >= 1)).toBe(true);
    await guard.close();
  });

  it("keeps every request within the timeout while Redis dies and comes back empty under load", async () => {
    const { guard, logs, registry } = await open();
    expect(await guard.store.waitUntilReachable(5000)).toBe(true);
    const policies = policy({
      crossServer: { readThenSend: { enabled: true }, burst: { enabled: true, maxCalls: 100_000 } },
      rateLimits: [{ name: "roomy", perMinute: 1_000_000, burst: 1_000_000 }],
    });
    const c = ctx();
    await guard.decide(c, { server: "db", tool: "get_secret" }, policies, allow);

    const latencies: number[] = [];
    const unexpected: string[] = [];
    let running = true;
    const worker = async (n: number) => {
      while (running) {
        const started = performance.now();
        try {
          const decision = await guard.decide(
            c,
            { server: `s${n % 4}`, tool: "lookup_item" },
            policies,
            allow,
          );
          if (decision.action !== "allow") unexpected.push(decision.reason);
        } catch (error) {
          unexpected.push(String(error));
        }
        latencies.push(performance.now() - started);
        await new Promise((r) => setImmediate(r));
      }
    };
    const stall = eventLoopStall();
    const workers = Array.from({ length: 8 }, (_, i) => worker(i));
    await new Promise((r) => setTimeout(r, 300));
    await server!.stop();
    await waitFor(() => !guard.store.available);
    await new Promise((r) => setTimeout(r, 400));
    await server!.start();
    await waitFor(() => guard.store.available);
    await new Promise((r) => setTimeout(r, 300));
    running = false;
    await Promise.all(workers);
    stall.stop();

    expect(unexpected).toEqual([]);
    expect(latencies.length).toBeGreaterThan(100);
    expect(Math.max(...latencies)).toBeLessThan(timeoutMs + stall.maxMs() + slackMs);
    expect(percentile(latencies, 95)).toBeLessThan(timeoutMs);
    await waitFor(() => guard.store.available);
    // One line per transition: unavailable, reachable again (a stalled machine may add more pairs).
    expect(logs.length % 2).toBe(0);
    logs.forEach((line, i) => {
      expect(line).toMatch(i % 2 === 0 ? /state store unavailable/ : /state store reachable again/);
    });
    // The window mirror outlived the empty restart: a send on another server is still caught.
    const send = await guard.decide(c, { server: "mail", tool: "send_email" }, policies, allow);
    expect(send.stage).toBe("crossServer");
    expect(Number((await server!.command("DBSIZE")).slice(1))).toBeGreaterThan(0);
    await waitFor(() => guard.store.available);
    expect(await gauge(registry)).toBe(0);
    await guard.close();
  });

  it("answers within the timeout when Redis hangs (SIGSTOP) and recovers when it resumes", async () => {
    const { guard, logs } = await open();
    expect(await guard.store.waitUntilReachable(5000)).toBe(true);
    const policies = policy({ rateLimits: [{ perMinute: 6000, burst: 100 }] });
    const c = ctx();
    server!.pause();
    const stall = eventLoopStall();
    try {
      const latencies = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        expect((await guard.decide(c, { tool: "search" }, policies, allow)).action).toBe("allow");
        latencies.push(performance.now() - started);
      }
      expect(Math.max(...latencies)).toBeLessThan(timeoutMs + stall.maxMs() + slackMs);
      expect(percentile(latencies.slice(1), 50)).toBeLessThan(5);
      expect(logs[0]).toMatch(/checkAndRecord: no answer within 50 ms/);
    } finally {
      stall.stop();
      server!.resume();
    }
    await waitFor(() => guard.store.available);
    await guard.close();
  });

  it("denies stateful checks in Deny mode and skips them in Allow mode while Redis is down", async () => {
    const { guard } = await open();
    expect(await guard.store.waitUntilReachable(5000)).toBe(true);
    await server!.stop();
    try {
      const limit = [{ name: "one", perMinute: 1, burst: 1 }];
      const deny = policy({ rateLimits: limit, onStateUnavailable: "Deny" });
      const allowAll = policy({ rateLimits: limit, onStateUnavailable: "Allow" });
      const c = ctx();
      const denied = await guard.decide(c, { tool: "search" }, deny, allow);
      expect(denied).toMatchObject({ action: "deny", stage: "stateUnavailable", stateUnavailable: true });
      expect(denied.reason).toBe("state store unavailable (onStateUnavailable: Deny)");
      expect((await guard.decide(c, { tool: "search" }, policy({}), allow)).action).toBe("allow");
      for (let i = 0; i < 3; i++) {
        const decision = await guard.decide(c, { tool: "search" }, allowAll, allow);
        expect(decision).toMatchObject({ action: "allow", stateUnavailable: true });
      }
      // The strictest mode among the policies whose stateful rules the call involves wins.
      const denyLimit = [
        compileStatefulPolicy("agents/strict", { rateLimits: limit, onStateUnavailable: "Deny" }),
      ];
      expect((await guard.decide(c, { tool: "search" }, [...allowAll, ...denyLimit], allow)).action).toBe(
        "deny",
      );
      const plainDeny = [compileStatefulPolicy("agents/plain", { onStateUnavailable: "Deny" })];
      expect((await guard.decide(c, { tool: "search" }, [...allowAll, ...plainDeny], allow)).action).toBe(
        "allow",
      );
    } finally {
      await server!.start();
    }
    await waitFor(() => guard.store.available);
    await guard.close();
  });

  it("keeps comparing definitions against the pins it saw while Redis is away", async () => {
    const { guard } = await open();
    expect(await guard.store.waitUntilReachable(5000)).toBe(true);
    const namespace = ctx().namespace;
    await guard.pin(namespace, [{ server: "github", tool: "create_issue", sha256: "aaa" }]);
    await server!.stop();
    try {
      const [changed, fresh] = await guard.pin(namespace, [
        { server: "github", tool: "create_issue", sha256: "evil" },
        { server: "github", tool: "get_issue", sha256: "ccc" },
      ]);
      expect(changed).toMatchObject({ changed: true, pinned: "aaa" });
      expect(fresh).toMatchObject({ created: true, changed: false });
    } finally {
      await server!.start();
    }
    await waitFor(() => guard.store.available);
    await guard.close();
  });

  it("stays bounded in memory while Redis is away, whatever the number of pods, sessions and events", async () => {
    const { guard, local, redis, registry } = await open({ maxSessions: 50 });
    expect(await guard.store.waitUntilReachable(5000)).toBe(true);
    await server!.stop();
    try {
      const policies = policy({
        crossServer: { burst: { enabled: true, maxCalls: 1000 } },
        rateLimits: [{ perMinute: 60, burst: 5 }],
      });
      const namespace = ctx().namespace;
      for (let i = 0; i < 5000; i++) {
        const c = { namespace, pod: `pod-${i}`, session: `pod-${i}` };
        await guard.decide(c, { server: "github", tool: "get_issue" }, policies, allow);
        guard.audit(namespace, {
          type: "mcp_tool_called",
          timestamp: new Date().toISOString(),
          tool: "get_issue",
        });
      }
      const stats = local.stats();
      expect(stats.rateKeys).toBeLessThanOrEqual(500);
      expect(stats.windows).toBeLessThanOrEqual(500);
      expect(guard.mirroredSessions).toBeLessThanOrEqual(50);
      expect(redis.auditBacklog).toBeLessThanOrEqual(1000);
      const dropped = await registry.getSingleMetric("toolwall_audit_stream_dropped_total")!.get();
      expect(dropped.values[0]!.value).toBeGreaterThanOrEqual(4000);
    } finally {
      await server!.start();
    }
    await waitFor(() => guard.store.available);
    await redis.flush();
    expect(redis.auditBacklog).toBe(0);
    await guard.close();
  });
});
