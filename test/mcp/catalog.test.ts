import { describe, expect, it } from "vitest";
import { ToolCatalog } from "../../src/dialects/mcp/catalog.ts";
import { toolHash } from "../../src/inspect/pinning.ts";
import { PolicySet } from "../../src/policy/evaluate.ts";
import { parsePolicies } from "../../src/policy/load.ts";
import { MemoryStore } from "../../src/state/memory.ts";
import { MemoryAuditSink } from "../../src/telemetry/audit.ts";

const weather = { name: "weather", description: "Returns the weather.", inputSchema: { type: "object" } };
const context = { server: "tools", requestId: "r1" };

function catalog(pinning: string, store: Pick<MemoryStore, "pinIfAbsent"> = new MemoryStore()) {
  const yaml = `
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: pins, namespace: ns }
spec:
  pinning: ${pinning}
`;
  const policies = PolicySet.fromDocuments(parsePolicies(yaml, "p.yaml").policies);
  const audit = new MemoryAuditSink();
  return { audit, catalog: new ToolCatalog({ policies: () => policies, store, namespace: "ns", audit }) };
}

describe("tool pins", () => {
  it("trusts on first use, then reports a changed definition with a field-level diff", async () => {
    const { catalog: pins, audit } = catalog("{ onChange: Block }");
    expect((await pins.review(context, [weather]))[0]).toMatchObject({ status: "new", hidden: false });
    expect((await pins.review(context, [weather]))[0]).toMatchObject({ status: "unchanged" });
    const changed = { ...weather, inputSchema: { type: "object", properties: { city: { type: "string" } } } };
    expect((await pins.review(context, [changed]))[0]).toMatchObject({
      status: "changed",
      definitionChanged: true,
      hidden: true,
    });
    expect(pins.facts("tools", "WEATHER")).toEqual({ definitionChanged: true });
    expect(audit.events.filter((e) => e.type === "mcp_tool_changed")).toEqual([
      expect.objectContaining({
        server: "tools",
        tool: "weather",
        action: "block",
        previousSha256: toolHash(weather),
        sha256: toolHash(changed),
        changes: [expect.objectContaining({ field: "inputSchema.properties", change: "added" })],
      }),
    ]);
  });

  it("shares pins through the store: a second pod sees the first pod's pin", async () => {
    const store = new MemoryStore();
    await catalog("{}", store).catalog.review(context, [weather]);
    const other = catalog("{}", store).catalog;
    expect((await other.review(context, [{ ...weather, description: "New text." }]))[0]).toMatchObject({
      status: "changed",
      hidden: false,
    });
  });

  it("checks static pins, and without trust on first use treats an unpinned tool as changed", async () => {
    const { catalog: fixed } = catalog(
      `{ trustOnFirstUse: false, onChange: Block, pins: [{ server: tools, tool: weather, sha256: "${toolHash(weather)}" }] }`,
    );
    const [pinned, unpinned] = await fixed.review(context, [weather, { name: "other", description: "x" }]);
    expect(pinned).toMatchObject({ status: "unchanged", hidden: false });
    expect(unpinned).toMatchObject({ definitionChanged: true, hidden: true });
  });

  it("counts a definition whose pin cannot be checked as changed (fail closed)", async () => {
    const broken = {
      pinIfAbsent: async () => {
        throw new Error("redis down");
      },
    };
    const { catalog: pins } = catalog("{ onChange: Block }", broken);
    expect((await pins.review(context, [weather]))[0]).toMatchObject({
      definitionChanged: true,
      hidden: true,
    });
  });

  it("pins nothing when pinning is disabled", async () => {
    const { catalog: off } = catalog("{ enabled: false }");
    await off.review(context, [weather]);
    expect((await off.review(context, [{ ...weather, description: "changed" }]))[0]).toMatchObject({
      definitionChanged: false,
      hidden: false,
    });
  });
});
