import { describe, expect, it } from "vitest";
import {
  type CrossServerSpec,
  compileCrossServer,
  evaluateCrossServer,
  type PendingCall,
} from "../../src/analyzer/cross-server.ts";
import type { CallRecord, SessionState } from "../../src/analyzer/types.ts";

const now = 1_700_000_000_000;
const allOn: CrossServerSpec = {
  readThenSend: { enabled: true, window: "30s" },
  burst: { enabled: true, maxCalls: 10, window: "5s" },
  crossServerFlow: { enabled: true, sameTurnOnly: true, window: "30s" },
  shadowTool: { enabled: true },
};

function record(server: string, tool: string, agoMs: number, extra: Partial<CallRecord> = {}): CallRecord {
  const category = compileCrossServer().classify(server, tool);
  return { at: now - agoMs, server, tool, requestId: "req-1", category, action: "allow", ...extra };
}

function pending(server: string, tool: string, requestId = "req-1"): PendingCall {
  return { at: now, server, tool, requestId, category: compileCrossServer().classify(server, tool) };
}

function check(
  spec: CrossServerSpec,
  window: CallRecord[],
  call: PendingCall,
  shadows: SessionState["shadows"] = [],
) {
  return evaluateCrossServer(compileCrossServer(spec), { window, shadows }, call);
}

describe("cross-server rules", () => {
  it("blocks a send on one server after another server read data (readThenSend)", () => {
    const finding = check(
      { readThenSend: { enabled: true } },
      [record("db", "query_database", 2000)],
      pending("mail", "send_email"),
    );
    expect(finding).toMatchObject({ rule: "readThenSend", severity: "critical" });
    expect(finding!.reason).toBe("Server 'mail' attempted send after 'db' read data 2s ago");
    expect(finding!.related.map((r) => r.tool)).toEqual(["query_database"]);
  });

  it("allows a send after a read on the same server", () => {
    expect(check(allOn, [record("mail", "read_inbox", 1000)], pending("mail", "send_email"))).toBeUndefined();
  });

  it("forgets reads older than the window", () => {
    expect(
      check(
        { readThenSend: { enabled: true } },
        [record("db", "query_database", 31_000)],
        pending("mail", "send_email"),
      ),
    ).toBeUndefined();
  });

  it("ignores reads that were denied", () => {
    const denied = record("db", "query_database", 1000, { action: "deny" });
    expect(
      check({ readThenSend: { enabled: true } }, [denied], pending("mail", "send_email")),
    ).toBeUndefined();
  });

  it("blocks the burst-th call from one server within the window, and not one fewer", () => {
    const nine = Array.from({ length: 9 }, (_, i) => record("github", "get_issue", 4000 - i * 100));
    expect(check({ burst: { enabled: true } }, nine, pending("github", "get_issue"))).toBeUndefined();
    const ten = [...nine, record("github", "get_issue", 10)];
    const finding = check({ burst: { enabled: true } }, ten, pending("github", "get_issue"));
    expect(finding).toMatchObject({
      rule: "burst",
      reason: "Server 'github' exceeded burst limit: 10 calls in 5s",
    });
    expect(finding!.related.length).toBe(10);
    expect(check({ burst: { enabled: true } }, ten, pending("other", "get_issue"))).toBeUndefined();
  });

  it("blocks a write on another server in the same turn as a read (crossServerFlow)", () => {
    const spec: CrossServerSpec = { crossServerFlow: { enabled: true } };
    const window = [record("db", "query_database", 20_000, { requestId: "req-7" })];
    const finding = check(spec, window, pending("github", "create_issue", "req-7"));
    expect(finding).toMatchObject({ rule: "crossServerFlow", severity: "high" });
    expect(finding!.reason).toContain("'db' read → 'github' write in the same turn");
  });

  it("allows the flow across different turns when sameTurnOnly, blocks it within the window otherwise", () => {
    const window = [record("db", "query_database", 10_000, { requestId: "req-1" })];
    expect(
      check({ crossServerFlow: { enabled: true } }, window, pending("github", "create_issue", "req-2")),
    ).toBeUndefined();
    expect(
      check(
        { crossServerFlow: { enabled: true, sameTurnOnly: false } },
        window,
        pending("github", "create_issue", "req-2"),
      ),
    ).toMatchObject({ rule: "crossServerFlow" });
  });

  it("never treats two calls without a request id as one turn", () => {
    const window = [record("db", "query_database", 1000, { requestId: "" })];
    expect(
      check({ crossServerFlow: { enabled: true } }, window, pending("github", "create_issue", "")),
    ).toBeUndefined();
  });

  it("blocks a shadowed tool from the first call, window or not", () => {
    const shadows = [{ tool: "search", originalServer: "docs", currentServer: "evil" }];
    expect(check({ shadowTool: { enabled: true } }, [], pending("evil", "Search"), shadows)).toMatchObject({
      rule: "shadowTool",
      reason: "Tool 'Search' was shadowed: originally from 'docs', now served by 'evil'",
    });
    expect(
      check({ shadowTool: { enabled: true } }, [], pending("evil", "mcp__evil__search"), shadows),
    ).toBeDefined();
  });

  it("checks nothing when every rule is disabled (the CRD default)", () => {
    const config = compileCrossServer({});
    expect(config.retentionMs).toBe(0);
    const shadows = [{ tool: "send_email", originalServer: "a", currentServer: "b" }];
    expect(
      evaluateCrossServer(
        config,
        { window: [record("db", "query_database", 10)], shadows },
        pending("mail", "send_email"),
      ),
    ).toBeUndefined();
  });

  it("keeps as much window as the longest enabled rule needs", () => {
    expect(compileCrossServer(allOn).retentionMs).toBe(30_000);
    expect(compileCrossServer({ burst: { enabled: true, window: "2m" } }).retentionMs).toBe(120_000);
  });

  it("uses classifier overrides in the rules", () => {
    const spec: CrossServerSpec = {
      readThenSend: { enabled: true },
      classifier: [{ servers: ["slack"], tools: ["chat"], class: "Send" }],
    };
    const config = compileCrossServer(spec);
    const call: PendingCall = {
      at: now,
      server: "slack",
      tool: "chat",
      requestId: "r",
      category: config.classify("slack", "chat"),
    };
    expect(
      evaluateCrossServer(config, { window: [record("db", "get_row", 100)], shadows: [] }, call),
    ).toMatchObject({
      rule: "readThenSend",
    });
  });

  it("rejects a malformed window with the field's value in the message", () => {
    expect(() => compileCrossServer({ burst: { enabled: true, window: "five" } })).toThrow(
      /invalid duration 'five'/,
    );
  });
});
