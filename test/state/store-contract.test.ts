import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallRecord } from "../../src/analyzer/types.ts";
import { MemoryStore } from "../../src/state/memory.ts";
import { connectRedis, RedisStore } from "../../src/state/redis.ts";
import { ResilientStore } from "../../src/state/resilient.ts";
import type { CheckAndRecordInput, RateLimitCharge, StateStore } from "../../src/state/types.ts";
import type { AuditEventType } from "../../src/telemetry/audit.ts";
import { RedisServer, skipWithoutRedis } from "../helpers/redis.ts";

const skipRedis = skipWithoutRedis();
let server: RedisServer | undefined;
let redisStore: RedisStore | undefined;

beforeAll(async () => {
  if (skipRedis) return;
  server = await RedisServer.start();
  redisStore = new RedisStore(connectRedis(server.url));
  await waitForReady(redisStore);
});

afterAll(async () => {
  await redisStore?.close();
  await server?.dispose();
});

async function waitForReady(store: StateStore): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      await store.ping();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

const implementations: [string, () => StateStore, boolean][] = [
  ["memory", () => new MemoryStore(), false],
  ["redis", () => redisStore!, skipRedis],
  ["redis behind the timeout wrapper", () => new ResilientStore(redisStore!, { timeoutMs: 1000 }), skipRedis],
];

function call(overrides: Partial<CallRecord> = {}): CallRecord {
  return {
    at: Date.now(),
    server: "github",
    tool: "get_issue",
    requestId: "msg_1",
    category: "read",
    action: "allow",
    ...overrides,
  };
}

function input(namespace: string, overrides: Partial<CheckAndRecordInput> = {}): CheckAndRecordInput {
  return {
    namespace,
    session: "pod-a",
    call: call(),
    charges: [],
    windowRetentionMs: 30_000,
    maxWindowEntries: 1000,
    ...overrides,
  };
}

function limit(overrides: Partial<RateLimitCharge> = {}): RateLimitCharge {
  return { key: "p#0:pod-a", name: "github-calls", perMinute: 6, burst: 3, enforce: true, ...overrides };
}

for (const [name, makeStore, skip] of implementations) {
  describe.skipIf(skip)(`StateStore contract: ${name}`, () => {
    let store: StateStore;
    let ns: string;
    beforeAll(() => {
      store = makeStore();
    });
    const fresh = () => {
      ns = `ns-${randomUUID().slice(0, 8)}`;
      return ns;
    };

    it("keeps each server's latest complete tool listing per namespace (the shared tool registry)", async () => {
      fresh();
      expect(await store.serverTools(ns)).toEqual({});
      await store.recordServerTools(ns, "GitHub", ["Delete_Repo", "get_issue"]);
      await store.recordServerTools(ns, "notes", []);
      await store.recordServerTools(`${ns}-other`, "github", ["x"]);
      await store.recordServerTools(ns, "github", ["delete_repo"]);
      expect(await store.serverTools(ns)).toEqual({ github: ["delete_repo"], notes: [] });
    });

    it("appends each call to the session window and loads it back oldest first", async () => {
      fresh();
      const now = Date.now();
      await store.checkAndRecord(input(ns, { call: call({ at: now - 2, tool: "get_a" }) }));
      await store.checkAndRecord(
        input(ns, { call: call({ at: now - 1, tool: "send_b", category: "send" }) }),
      );
      await store.checkAndRecord(input(ns, { session: "pod-b", call: call({ at: now, tool: "other" }) }));
      const state = await store.loadSession(ns, "pod-a", now - 30_000);
      expect(state.window.map((r) => r.tool)).toEqual(["get_a", "send_b"]);
      expect(state.window[1]).toMatchObject({
        server: "github",
        category: "send",
        action: "allow",
        requestId: "msg_1",
      });
      expect(state.shadows).toEqual([]);
    });

    it("trims window entries older than the retention and caps the count", async () => {
      fresh();
      const now = Date.now();
      await store.checkAndRecord(input(ns, { call: call({ at: now - 60_000, tool: "old" }) }));
      for (let i = 0; i < 5; i++) {
        await store.checkAndRecord(
          input(ns, { maxWindowEntries: 3, call: call({ at: now + i, tool: `t${i}` }) }),
        );
      }
      const state = await store.loadSession(ns, "pod-a", 0);
      expect(state.window.map((r) => r.tool)).toEqual(["t2", "t3", "t4"]);
    });

    it("keeps no window when the retention is zero", async () => {
      fresh();
      await store.checkAndRecord(input(ns, { windowRetentionMs: 0 }));
      expect((await store.loadSession(ns, "pod-a", 0)).window).toEqual([]);
    });

    it("allows the burst, then blocks with the limit's name and records the call as denied", async () => {
      fresh();
      const outcomes = [];
      for (let i = 0; i < 4; i++)
        outcomes.push(await store.checkAndRecord(input(ns, { charges: [limit()] })));
      expect(outcomes.slice(0, 3).every((o) => !o.blocked && o.exceeded.length === 0)).toBe(true);
      expect(outcomes[3]!.blocked).toBe(true);
      expect(outcomes[3]!.exceeded).toEqual([
        { key: "p#0:pod-a", name: "github-calls", enforce: true, retryAfterMs: expect.any(Number) },
      ]);
      expect(outcomes[3]!.exceeded[0]!.retryAfterMs).toBeGreaterThan(0);
      expect(outcomes[3]!.exceeded[0]!.retryAfterMs).toBeLessThanOrEqual(10_000);
      const window = (await store.loadSession(ns, "pod-a", 0)).window;
      expect(window.map((r) => r.action)).toEqual(["allow", "allow", "allow", "deny"]);
    });

    it("spends no token anywhere when one enforced limit is over", async () => {
      fresh();
      const tight = limit({ key: "tight", name: "tight", burst: 1 });
      const loose = limit({ key: "loose", name: "loose", burst: 2 });
      expect((await store.checkAndRecord(input(ns, { charges: [tight, loose] }))).blocked).toBe(false);
      expect((await store.checkAndRecord(input(ns, { charges: [tight, loose] }))).blocked).toBe(true);
      // loose had one token left and must still have it.
      expect((await store.checkAndRecord(input(ns, { charges: [loose] }))).blocked).toBe(false);
      expect((await store.checkAndRecord(input(ns, { charges: [loose] }))).blocked).toBe(true);
    });

    it("reports an Audit-mode limit that is over without blocking", async () => {
      fresh();
      const audit = limit({ key: "audit", name: "audit-limit", burst: 1, enforce: false });
      await store.checkAndRecord(input(ns, { charges: [audit] }));
      const outcome = await store.checkAndRecord(input(ns, { charges: [audit] }));
      expect(outcome.blocked).toBe(false);
      expect(outcome.exceeded.map((e) => [e.name, e.enforce])).toEqual([["audit-limit", false]]);
    });

    it("shares a limit between pods that use the same key and separates namespaces", async () => {
      fresh();
      const shared = limit({ key: "p#0:namespace", burst: 2 });
      await store.checkAndRecord(input(ns, { session: "pod-a", charges: [shared] }));
      await store.checkAndRecord(input(ns, { session: "pod-b", charges: [shared] }));
      expect((await store.checkAndRecord(input(ns, { session: "pod-c", charges: [shared] }))).blocked).toBe(
        true,
      );
      const other = `${ns}-other`;
      expect((await store.checkAndRecord(input(other, { charges: [shared] }))).blocked).toBe(false);
    });

    it("remembers the first server offering a tool and reports a later one as shadowing it", async () => {
      fresh();
      expect(
        await store.noteToolProviders(ns, "pod-a", [
          { tool: "search", server: "docs" },
          { tool: "send_email", server: "mail" },
        ]),
      ).toEqual([]);
      expect(await store.noteToolProviders(ns, "pod-a", [{ tool: "Search", server: "docs" }])).toEqual([]);
      const shadows = await store.noteToolProviders(ns, "pod-a", [{ tool: "search", server: "evil" }]);
      expect(shadows).toEqual([{ tool: "search", originalServer: "docs", currentServer: "evil" }]);
      expect((await store.loadSession(ns, "pod-a", 0)).shadows).toEqual(shadows);
      expect((await store.loadSession(ns, "pod-b", 0)).shadows).toEqual([]);
    });

    it("shares model-judge verdicts: the first claim wins until it expires, verdicts are read back", async () => {
      const key = `verdict-${randomUUID()}`;
      expect(await store.getVerdicts([key])).toEqual([undefined]);
      expect(await store.claimVerdict(key, "pod-a", 200)).toBe(true);
      expect(await store.claimVerdict(key, "pod-b", 200)).toBe(false);
      await store.putVerdict(key, '{"verdict":"benign"}', 60_000);
      expect(await store.getVerdicts([key, `${key}-other`])).toEqual(['{"verdict":"benign"}', undefined]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await store.claimVerdict(key, "pod-b", 200)).toBe(true);
    });

    it("pins the first definition per namespace and keeps it against later writers", async () => {
      fresh();
      expect(await store.pinIfAbsent(ns, [{ key: "github/create_issue", sha256: "aaa" }])).toEqual([
        { key: "github/create_issue", pinned: "aaa", created: true },
      ]);
      expect(
        await store.pinIfAbsent(ns, [
          { key: "github/create_issue", sha256: "bbb" },
          { key: "github/get_issue", sha256: "ccc" },
        ]),
      ).toEqual([
        { key: "github/create_issue", pinned: "aaa", created: false },
        { key: "github/get_issue", pinned: "ccc", created: true },
      ]);
      expect(await store.getPins(ns)).toEqual({ "github/create_issue": "aaa", "github/get_issue": "ccc" });
      expect(await store.getPins(`${ns}-other`)).toEqual({});
    });

    it("appends audit events and queries them newest first with filters, since, after and limit", async () => {
      fresh();
      const other = `${ns}-b`;
      const event = (type: AuditEventType, tool: string, action: string) => ({
        type,
        timestamp: new Date().toISOString(),
        server: "github",
        tool,
        action,
      });
      store.appendAudit(ns, event("mcp_tool_called", "get_issue", "allow"));
      store.appendAudit(ns, event("mcp_tool_called", "create_issue", "deny"));
      store.appendAudit(ns, event("mcp_cross_server_blocked", "send_email", "deny"));
      store.appendAudit(other, event("mcp_tool_called", "get_issue", "allow"));
      await store.flush();

      const all = await store.readAudit({ namespace: ns, limit: 100 });
      expect(all.map((e) => e.event["tool"])).toEqual(["send_email", "create_issue", "get_issue"]);
      expect(all[0]!.event["namespace"]).toBe(ns);
      expect(
        (await store.readAudit({ namespace: ns, type: ["mcp_tool_called"], action: "DENY", limit: 100 })).map(
          (e) => e.event["tool"],
        ),
      ).toEqual(["create_issue"]);
      expect(
        (await store.readAudit({ namespace: ns, tool: "get_issue", server: "github", limit: 100 })).length,
      ).toBe(1);
      expect((await store.readAudit({ namespace: ns, limit: 2 })).length).toBe(2);
      const after = await store.readAudit({ namespace: ns, after: all[1]!.id, limit: 100 });
      expect(after.map((e) => e.event["tool"])).toEqual(["send_email"]);
      expect(await store.readAudit({ namespace: ns, since: Date.now() + 60_000, limit: 100 })).toEqual([]);
      const everywhere = await store.readAudit({ tool: "get_issue", limit: 100 });
      // Other suites' namespaces may share the server: only these two are known to be there.
      expect([...new Set(everywhere.map((e) => e.event["namespace"]))]).toEqual(
        expect.arrayContaining([ns, other]),
      );
    });
  });
}
