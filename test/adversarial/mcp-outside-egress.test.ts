/**
 * Issue 10, build item 3: "a request to an origin with declared servers that matches none of them is
 * refused under failClosed and judged by egress rules otherwise". A connection to a declared MCP
 * origin is inspected (not judged by the egress rules), so a path outside every declared base must
 * be held to the egress rules at the request: under `egress.default: Deny`, an undeclared MCP server
 * on the same origin (`/admin/mcp`) is refused unless a rule allows the host.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePolicies } from "../../src/policy/load.ts";
import type { LocalProxy } from "../../src/runtime/local.ts";
import { MemoryAuditSink } from "../../src/telemetry/audit.ts";
import { type McpOrigin, rawPost, startExplicitProxy, startMcpOrigin } from "./mcp-origin.ts";

const call = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "delete_repo", arguments: { id: "x" } },
});

/** An absolute-form POST through the explicit proxy (what HTTP_PROXY makes a client send). */
const post = (proxyPort: number, url: string) => rawPost(proxyPort, url, call);

describe("a path outside every declared MCP server of an origin, without failClosed", () => {
  let origin: McpOrigin;
  const proxies: LocalProxy[] = [];
  const dirs: string[] = [];

  const audit = new MemoryAuditSink();

  async function proxyWith(egress: string): Promise<LocalProxy> {
    const { policies: documents, problems } = parsePolicies(
      `
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: outside, namespace: agents }
spec:
  servers:
    - { name: github, transport: StreamableHTTP, url: "http://127.0.0.1:${origin.port}/github/mcp" }
  egress: ${egress}
  toolPolicy:
    rules:
      - { action: Deny, servers: [github], tools: [read_note], reason: notes are private }
`,
      "outside.yaml",
    );
    expect(problems).toEqual([]);
    const caDir = mkdtempSync(join(tmpdir(), "toolwall-outside-"));
    dirs.push(caDir);
    const proxy = await startExplicitProxy(documents, audit, caDir);
    proxies.push(proxy);
    return proxy;
  }

  beforeAll(async () => {
    origin = await startMcpOrigin(["/github/mcp", "/admin/mcp"]);
  });

  afterAll(async () => {
    for (const proxy of proxies) await proxy.close(1000);
    await origin?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("is refused when the egress rules deny the destination by default", async () => {
    const proxy = await proxyWith("{ default: Deny }");
    const declared = await post(proxy.address.port, `http://127.0.0.1:${origin.port}/github/mcp`);
    expect(declared.status, declared.text).toBe(200);
    expect(origin.reached("/github/mcp", "delete_repo")).toBe(1);
    for (const path of ["/admin/mcp", "/github/../admin/mcp", "/ADMIN/mcp"]) {
      const answer = await post(proxy.address.port, `http://127.0.0.1:${origin.port}${path}`);
      expect(answer.status, `${path}: ${answer.text}`).toBe(403);
      expect(answer.text).toContain("egress");
    }
    expect(origin.reached("/admin/mcp", "delete_repo")).toBe(0);
    const refused = audit.events.filter(
      (event) => event.type === "network_connection" && event.action === "deny",
    );
    expect(refused).toHaveLength(3);
    expect(refused[0]).toMatchObject({ rule: "agents/outside#egress.default", reason: /outside every/ });
  });

  it("is relayed when an egress rule allows the destination", async () => {
    const before = origin.reached("/admin/mcp", "delete_repo");
    const proxy = await proxyWith(
      `{ default: Deny, rules: [{ name: origin, action: Allow, hosts: ["127.0.0.1"] }] }`,
    );
    const answer = await post(proxy.address.port, `http://127.0.0.1:${origin.port}/admin/mcp`);
    expect(answer.status, answer.text).toBe(200);
    expect(origin.reached("/admin/mcp", "delete_repo")).toBe(before + 1);
  });
});
