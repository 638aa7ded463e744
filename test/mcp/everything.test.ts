import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEverything, startProxy } from "./peers.ts";

let everything: Awaited<ReturnType<typeof startEverything>>;
let everythingSse: Awaited<ReturnType<typeof startEverything>>;
let proxied: Awaited<ReturnType<typeof startProxy>>;

beforeAll(async () => {
  [everything, everythingSse] = await Promise.all([
    startEverything("streamableHttp"),
    startEverything("sse"),
  ]);
  proxied = await startProxy(`
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: everything, namespace: agents }
spec:
  servers:
    - { name: everything, transport: StreamableHTTP, url: "http://127.0.0.1:${everything.port}/mcp" }
    - { name: legacy, transport: SSE, url: "http://127.0.0.1:${everythingSse.port}/sse" }
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
  await everythingSse?.stop();
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

describe("session continuity", () => {
  it("keeps one Mcp-Session-Id across requests and ends the session with DELETE", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${proxied.url}/mcp/everything`));
    const client = new Client({ name: "toolwall-test", version: "1.0.0" });
    await client.connect(transport);
    const session = transport.sessionId;
    expect(session).toMatch(/.+/);
    await client.listTools();
    const sum = await client.callTool({ name: "get-sum", arguments: { a: 2, b: 3 } });
    expect(JSON.stringify(sum.content)).toContain("5");
    expect(transport.sessionId).toBe(session);
    await transport.terminateSession();
    const after = await fetch(`${proxied.url}/mcp/everything`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": session!,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    });
    expect([400, 404]).toContain(after.status);
    await client.close();
  });
});

/** A raw Streamable HTTP session at protocol 2025-03-26, the revision that allows batches. */
async function rawSession(): Promise<(body: unknown) => Promise<Response>> {
  const url = `${proxied.url}/mcp/everything`;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const init = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
  await init.text();
  headers["mcp-session-id"] = init.headers.get("mcp-session-id")!;
  const post = (body: unknown) => fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  await (await post({ jsonrpc: "2.0", method: "notifications/initialized" })).text();
  return post;
}

/** The JSON-RPC messages of a JSON or SSE answer. */
async function messagesOf(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    const value = JSON.parse(text);
    return Array.isArray(value) ? value : [value];
  }
  return text
    .split(/\n\n/)
    .flatMap((block) => block.split("\n").filter((line) => line.startsWith("data:")))
    .flatMap((line) => {
      const value = JSON.parse(line.slice(5));
      return Array.isArray(value) ? value : [value];
    });
}

describe("JSON-RPC batches", () => {
  it("judges every entry: denied ones answered with errors, the rest forwarded and answered", async () => {
    const post = await rawSession();
    const before = proxied.audit.events.length;
    const response = await post([
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { message: "hi" } } },
      { jsonrpc: "2.0", id: "two", method: "tools/call", params: { name: "get-env", arguments: {} } },
      { jsonrpc: "2.0", id: 3, method: "tools/list" },
      {
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "echo", arguments: { message: "secret!" } },
      },
    ]);
    expect(response.status).toBe(200);
    const messages = await messagesOf(response);
    const byId = new Map(messages.map((m) => [m.id, m]));
    expect(byId.size).toBe(4);
    expect(byId.get(1)).toMatchObject({ result: { content: [{ type: "text", text: "Echo: hi" }] } });
    expect(byId.get("two")).toMatchObject({
      error: { code: -32001, data: { reason: "environment holds secrets" } },
    });
    expect(byId.get(4)).toMatchObject({ error: { code: -32001 } });
    const listed = (byId.get(3)!.result as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(listed).toContain("echo");
    expect(listed).not.toContain("get-env");
    const calls = proxied.audit.events.slice(before).filter((e) => e.type === "mcp_tool_called");
    expect(calls.map((e) => [e.rpcId, e.action])).toEqual([
      [1, "allow"],
      ["two", "deny"],
      [4, "deny"],
    ]);
  });

  it("answers a batch whose every entry is denied without contacting the server", async () => {
    const post = await rawSession();
    const response = await post([
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "GET-ENV" } },
    ]);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await response.json()).toEqual([
      {
        jsonrpc: "2.0",
        id: 7,
        error: {
          code: -32001,
          message: "Tool 'GET-ENV' was blocked by policy: environment holds secrets",
          data: { reason: "environment holds secrets", rule: "agents/everything#toolPolicy.rules[0]" },
        },
      },
    ]);
  });

  it("refuses a body that is not JSON-RPC instead of forwarding what it cannot judge", async () => {
    const post = await rawSession();
    const response = await post([{ jsonrpc: "2.0", id: 8, method: 42 }]);
    expect(await response.json()).toMatchObject([{ id: 8, error: { code: -32600 } }]);
  });
});

describe("legacy HTTP+SSE (server-everything sse mode)", () => {
  async function connectLegacy(): Promise<{ client: Client; transport: SSEClientTransport }> {
    const transport = new SSEClientTransport(new URL(`${proxied.url}/mcp/legacy`));
    const client = new Client({ name: "toolwall-test", version: "1.0.0" });
    await client.connect(transport);
    return { client, transport };
  }

  it("rewrites the endpoint so messages come back through the proxy, and filters the listing", async () => {
    const { client } = await connectLegacy();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("echo");
    expect(tools.map((t) => t.name)).not.toContain("get-env");
    const result = await client.callTool({ name: "echo", arguments: { message: "legacy" } });
    expect(result.content).toEqual([{ type: "text", text: "Echo: legacy" }]);
    await client.close();
  });

  it("answers a denied call on the session's SSE stream while the POST gets 202 and is not forwarded", async () => {
    const { client } = await connectLegacy();
    const before = proxied.audit.events.length;
    const error = await client.callTool({ name: "get-env", arguments: {} }).catch((e) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(-32001);
    expect(proxied.audit.events.slice(before)).toContainEqual(
      expect.objectContaining({ type: "mcp_tool_called", server: "legacy", tool: "get-env", action: "deny" }),
    );
    // The session is still usable after a denial.
    const result = await client.callTool({ name: "echo", arguments: { message: "still here" } });
    expect(result.content).toEqual([{ type: "text", text: "Echo: still here" }]);
    await client.close();
  });
});

describe("server-to-client traffic through the proxy", () => {
  for (const [label, transport] of [
    ["Streamable HTTP", () => new StreamableHTTPClientTransport(new URL(`${proxied.url}/mcp/everything`))],
    ["legacy SSE", () => new SSEClientTransport(new URL(`${proxied.url}/mcp/legacy`))],
  ] as const) {
    it(`carries a sampling request to the client and its answer back (${label})`, async () => {
      const client = new Client(
        { name: "toolwall-test", version: "1.0.0" },
        { capabilities: { sampling: {} } },
      );
      client.setRequestHandler(CreateMessageRequestSchema, async () => ({
        model: "test-model",
        role: "assistant",
        content: { type: "text", text: "sampled through the proxy" },
      }));
      await client.connect(transport());
      const result = await client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "hi" } });
      expect(JSON.stringify(result.content)).toContain("sampled through the proxy");
      let progress = 0;
      await client.callTool(
        { name: "trigger-long-running-operation", arguments: { duration: 0.2, steps: 2 } },
        undefined,
        {
          onprogress: () => {
            progress++;
          },
        },
      );
      expect(progress).toBeGreaterThan(0);
      await client.close();
    });
  }
});
