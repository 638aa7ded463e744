import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PolicySet } from "../../src/policy/evaluate.ts";
import { parsePolicies } from "../../src/policy/load.ts";
import { type LocalProxy, startLocalProxy } from "../../src/runtime/local.ts";
import { MemoryAuditSink } from "../../src/telemetry/audit.ts";
import { metricsRegistry } from "../../src/telemetry/metrics.ts";
import { type PolicyServer, startPolicyServer } from "./policy-server.ts";

/**
 * tools/call, resources/read and prompts/get all go through the engine's decide(): the state check
 * (rate limits), the audit event and the decision metrics are the same for the three.
 */
let upstream: PolicyServer;
let proxy: LocalProxy;
const audit = new MemoryAuditSink();

beforeAll(async () => {
  upstream = await startPolicyServer();
  const { policies, problems } = parsePolicies(
    `
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: limits, namespace: agents }
spec:
  servers:
    - { name: tools, transport: StreamableHTTP, url: "${upstream.url}" }
  rateLimits:
    # Names a tool: counts calls of that tool only, never resource reads or prompt gets.
    - { name: weather-only, servers: [tools], tools: [weather], perMinute: 1, burst: 1 }
    # Covers every tool of the server: counts its resource reads and prompt gets too.
    - { name: whole-server, servers: [tools], perMinute: 1, burst: 3 }
`,
    "limits.yaml",
  );
  expect(problems).toEqual([]);
  proxy = await startLocalProxy({
    policies: PolicySet.fromDocuments(policies),
    audit,
    providers: [],
    listen: { host: "127.0.0.1", port: 0 },
    mcp: true,
    state: {},
    log: () => {},
  });
});

afterAll(async () => {
  await proxy?.close(1000);
  await upstream?.close();
});

async function metric(pattern: RegExp): Promise<number> {
  const match = (await metricsRegistry.metrics()).match(pattern);
  return match ? Number(match[1]) : 0;
}

const decisions = () =>
  metric(/^toolwall_decision_duration_seconds_count\{[^}]*dialect="mcp"[^}]*\} (\d+)$/m);
const counted = (action: string, tool: string) =>
  metric(
    new RegExp(
      `^toolwall_tool_calls_total\\{(?=[^}]*dialect="mcp")(?=[^}]*action="${action}")(?=[^}]*server="tools")(?=[^}]*tool="${tool.replace("/", "\\/")}")[^}]*\\} (\\d+)$`,
      "m",
    ),
  );

describe("resources/read and prompts/get through decide()", () => {
  it("spends a server-wide rate limit, is denied past it without reaching the server, and is recorded and timed like a tool call", async () => {
    const client = new Client({ name: "toolwall-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp/tools`)));
    const timedBefore = await decisions();
    const eventsBefore = audit.events.length;

    // Three requests fit the whole-server burst; the weather-only limit (burst 1) never counts them.
    expect((await client.readResource({ uri: "file:///public/readme.md" })).contents[0]).toMatchObject({
      text: "# Readme",
    });
    expect((await client.getPrompt({ name: "greeting" })).messages).toHaveLength(1);
    expect((await client.readResource({ uri: "file:///public/readme.md" })).contents).toHaveLength(1);
    expect(upstream.calls.get("readme")).toBe(2);
    expect(upstream.calls.get("greeting")).toBe(1);

    const resource = await client.readResource({ uri: "file:///public/readme.md" }).catch((e) => e);
    expect(resource).toBeInstanceOf(McpError);
    expect(resource.code).toBe(-32001);
    expect(resource.message).toContain("Resource 'file:///public/readme.md' was blocked by policy");
    expect(resource.data).toMatchObject({ rule: "agents/limits#rateLimits[1]" });
    expect(resource.data.reason).toMatch(/^rate limit 'whole-server' exceeded/);
    const prompt = await client.getPrompt({ name: "greeting" }).catch((e) => e);
    expect(prompt).toBeInstanceOf(McpError);
    expect(prompt.code).toBe(-32001);
    expect(prompt.message).toContain("Prompt 'greeting' was blocked by policy");
    expect(prompt.data).toMatchObject({ rule: "agents/limits#rateLimits[1]" });
    expect(upstream.calls.get("readme")).toBe(2);
    expect(upstream.calls.get("greeting")).toBe(1);

    // One event shape: the type, fields and metric labels of a tool call, with the MCP method.
    const judged = audit.events.slice(eventsBefore).filter((e) => e.type === "mcp_tool_called");
    expect(judged.map((e) => [e.method, e.action])).toEqual([
      ["resources/read", "allow"],
      ["prompts/get", "allow"],
      ["resources/read", "allow"],
      ["resources/read", "deny"],
      ["prompts/get", "deny"],
    ]);
    expect(judged[3]).toMatchObject({
      dialect: "mcp",
      namespace: "local",
      server: "tools",
      tool: "resources/read",
      name: "file:///public/readme.md",
      uri: "file:///public/readme.md",
      rule: "agents/limits#rateLimits[1]",
      mode: "Enforce",
    });
    expect(judged[4]).toMatchObject({ tool: "prompts/get", name: "greeting", prompt: "greeting" });
    expect(await decisions()).toBe(timedBefore + 5);
    expect(await counted("deny", "resources/read")).toBe(1);
    expect(await counted("allow", "resources/read")).toBe(2);
    expect(await counted("deny", "prompts/get")).toBe(1);

    // The server-wide limit spent, a tool call is denied by it too, in the same shape.
    const call = await client.callTool({ name: "weather", arguments: { city: "Oslo" } }).catch((e) => e);
    expect(call).toBeInstanceOf(McpError);
    expect(call.data).toMatchObject({ rule: "agents/limits#rateLimits[1]" });
    expect(audit.events.filter((e) => e.type === "mcp_tool_called").at(-1)).toMatchObject({
      method: "tools/call",
      tool: "weather",
      name: "weather",
      input: { city: "Oslo" },
      action: "deny",
    });
    expect(await counted("deny", "weather")).toBe(1);
    expect(await decisions()).toBe(timedBefore + 6);
    await client.close();
  });
});
