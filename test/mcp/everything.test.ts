import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEverything, startProxy } from "./peers.ts";

let everything: Awaited<ReturnType<typeof startEverything>>;
let proxied: Awaited<ReturnType<typeof startProxy>>;

beforeAll(async () => {
  everything = await startEverything("streamableHttp");
  proxied = await startProxy(`
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: everything, namespace: agents }
spec:
  servers:
    - { name: everything, transport: StreamableHTTP, url: "http://127.0.0.1:${everything.port}/mcp" }
  toolPolicy:
    rules:
      - { action: Deny, servers: ["*"], tools: ["get-env"], reason: environment holds secrets }
      - action: Deny
        servers: [everything]
        tools: [echo]
        when: { any: [{ path: message, op: Matches, value: "secret" }] }
        reason: no secrets in echoes
`);
});

afterAll(async () => {
  await proxied?.proxy.close(1000);
  await everything?.stop();
});

async function connect(): Promise<Client> {
  const client = new Client({ name: "toolwall-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${proxied.url}/mcp/everything`)));
  return client;
}

describe("server-everything over Streamable HTTP through the proxy", () => {
  it("lists tools without the unconditionally denied ones and keeps conditional ones", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain("echo");
    expect(names).toContain("get-sum");
    expect(names).not.toContain("get-env");
    await client.close();
  });

  it("returns the real result of an allowed call", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "echo", arguments: { message: "hello" } });
    expect(result.content).toEqual([{ type: "text", text: "Echo: hello" }]);
    await client.close();
  });

  it("answers a denied call with -32001 and the policy's reason, without reaching the server", async () => {
    const client = await connect();
    const error = await client
      .callTool({ name: "echo", arguments: { message: "my secret" } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(-32001);
    expect(error.message).toContain("no secrets in echoes");
    expect(error.data).toMatchObject({
      reason: "no secrets in echoes",
      rule: "agents/everything#toolPolicy.rules[1]",
    });
    const denied = proxied.audit.events.find((e) => e.type === "mcp_tool_called" && e.action === "deny");
    expect(denied).toMatchObject({ server: "everything", tool: "echo", method: "tools/call" });
    await client.close();
  });
});
