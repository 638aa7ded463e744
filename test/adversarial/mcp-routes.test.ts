/**
 * Issue 10, classes 12 and 13, as an attacker runs them: an MCP client that crafts URLs, and an
 * ordinary configuration with two MCP servers on one origin, reached through `toolwall proxy`'s
 * `/mcp/<server>` route and through its explicit forward-proxy mode (absolute form and CONNECT).
 * Every case fails on the main before the fix: the denied call reached a server.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ProxyAgent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePolicies } from "../../src/policy/load.ts";
import type { LocalProxy } from "../../src/runtime/local.ts";
import { MemoryAuditSink } from "../../src/telemetry/audit.ts";
import { type PolicyServer, startPolicyServer } from "../mcp/policy-server.ts";
import { type McpOrigin, rawPost as post, startExplicitProxy, startMcpOrigin } from "./mcp-origin.ts";

const call = (tool: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: tool, arguments: { id: "x" } },
  });

/** An Anthropic Messages answer calling Bash. */
function answerWithBash(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-test",
        content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "id" } }],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      }),
    );
  });
}

describe("MCP routes: the server a request reaches is the server it was judged as", () => {
  let origin: McpOrigin;
  let redirector: Server;
  /** A model that always calls Bash, declared as localhost:<port>, and one declared by a name. */
  let model: Server;
  let namedModel: Server;
  /** A legacy HTTP+SSE server (GET /sse, POST /messages?sessionId=…). */
  let legacy: PolicyServer;
  let proxy: LocalProxy;
  const audit = new MemoryAuditSink();
  const caDir = mkdtempSync(join(tmpdir(), "toolwall-routes-"));

  beforeAll(async () => {
    origin = await startMcpOrigin(["/github/mcp", "/notes/mcp", "/admin/mcp"]);
    const base = `http://localhost:${origin.port}`;
    // Sends every request on to github, which the client would then reach without the proxy.
    redirector = createServer((req, res) => {
      req.resume();
      res.writeHead(307, { location: `http://127.0.0.1:${origin.port}/github/mcp` }).end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, "127.0.0.1", resolve));
    const redirectorUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/mcp`;
    legacy = await startPolicyServer();
    const modelPorts: number[] = [];
    for (const assign of [(s: Server) => (model = s), (s: Server) => (namedModel = s)]) {
      const server = assign(createServer(answerWithBash));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      modelPorts.push((server.address() as AddressInfo).port);
    }
    const { policies: documents, problems } = parsePolicies(
      `
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: routes, namespace: agents }
spec:
  failClosed: true
  servers:
    - { name: github, transport: StreamableHTTP, url: "${base}/github/mcp" }
    - { name: notes, transport: StreamableHTTP, url: "${base}/notes/mcp" }
    - { name: redirector, transport: StreamableHTTP, url: "${redirectorUrl}" }
    - { name: legacy, transport: SSE, url: "${legacy.sseUrl}" }
  llm:
    providers:
      - { host: "localhost:${modelPorts[0]}", dialect: AnthropicMessages }
      - { host: "model.internal:${modelPorts[1]}", dialect: AnthropicMessages }
  toolPolicy:
    rules:
      - { action: Deny, servers: [github], tools: [delete_repo], reason: repositories stay }
      - { action: Deny, servers: [notes], tools: [read_note], reason: notes are private }
      - { action: Deny, tools: [Bash], reason: no shell }
      - { action: Deny, servers: [legacy], tools: [add], reason: no adding }
`,
      "routes.yaml",
    );
    expect(problems).toEqual([]);
    proxy = await startExplicitProxy(documents, audit, caDir, [
      "localhost=127.0.0.1",
      "model.internal=127.0.0.1",
    ]);
  });

  afterAll(async () => {
    await proxy?.close(1000);
    await origin?.close();
    redirector?.close();
    model?.close();
    namedModel?.close();
    await legacy?.close();
    rmSync(caDir, { recursive: true, force: true });
  });

  it("class 12: dot segments, plain or encoded, are resolved before the server is chosen", async () => {
    for (const path of [
      "/mcp/notes/../github/mcp",
      "/mcp/notes/%2e%2e/github/mcp",
      "/mcp/notes/.%2E/github/mcp",
      "/mcp/notes\\..\\github\\mcp",
      "/mcp/notes/x/../../github/mcp",
    ]) {
      const answer = await post(proxy.address.port, path, call("delete_repo"));
      expect(answer.text, path).toContain("repositories stay");
    }
    expect(origin.reached("/github/mcp", "delete_repo")).toBe(0);
  });

  it("class 12: a path that leaves the declared base is an undeclared server, or refused", async () => {
    for (const path of [
      "/mcp/github/../admin/mcp",
      "/mcp/github/%2e%2e/admin/mcp",
      "/mcp/github/..%2Fadmin/mcp",
    ]) {
      const answer = await post(proxy.address.port, path, call("delete_repo"));
      expect([400, 404], `${path}: ${answer.text}`).toContain(answer.status);
    }
    expect(origin.reached("/admin/mcp", "delete_repo")).toBe(0);
  });

  async function sdkThroughProxy(url: string, proxyTunnel: boolean) {
    const dispatcher = new ProxyAgent({ uri: proxy.url, proxyTunnel });
    const client = new Client({ name: "toolwall-adversary", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        fetch: ((input: string, init: object) => undiciFetch(input, { ...init, dispatcher })) as never,
      }),
    );
    return {
      client,
      close: async () => {
        await client.close();
        await dispatcher.close();
      },
    };
  }

  for (const proxyTunnel of [false, true]) {
    const how = proxyTunnel ? "CONNECT tunnel" : "absolute-form request";
    it(`class 13 (${how}): the second server declared on an origin is judged by its own rules`, async () => {
      for (const host of ["localhost", "127.0.0.1", "LOCALHOST."]) {
        const { client, close } = await sdkThroughProxy(
          `http://${host}:${origin.port}/notes/mcp`,
          proxyTunnel,
        );
        try {
          await expect(client.callTool({ name: "read_note", arguments: { id: "x" } }), host).rejects.toThrow(
            "notes are private",
          );
          const allowed = await client.callTool({ name: "delete_repo", arguments: { id: "x" } });
          expect(JSON.stringify(allowed)).toContain("delete_repo ran on /notes/mcp");
        } finally {
          await close();
        }
      }
      expect(origin.reached("/notes/mcp", "read_note")).toBe(0);
    });
  }

  it("class 13: case variants are judged as the declared server; paths outside every base are refused (failClosed)", async () => {
    const absolute = (path: string) => `http://127.0.0.1:${origin.port}${path}`;
    const viaProxy = (path: string) => post(proxy.address.port, absolute(path), call("read_note"));
    for (const path of ["/NOTES/mcp", "/Notes/MCP", "/github/../notes/mcp", "/%6Eotes/mcp"]) {
      const answer = await viaProxy(path);
      expect(answer.text, path).toContain("notes are private");
    }
    for (const path of ["/admin/mcp", "/github/../admin/mcp"]) {
      const answer = await viaProxy(path);
      expect(answer.status, path).toBe(403);
      expect(answer.text).toContain("failClosed");
    }
    expect(origin.reached("/notes/mcp", "read_note")).toBe(0);
    expect(origin.reached("/admin/mcp", "read_note")).toBe(0);
  });

  it("redirects from an MCP server are not relayed: the client would follow them around the proxy", async () => {
    const client = new Client({ name: "toolwall-adversary", version: "1.0.0" });
    await expect(
      client.connect(new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp/redirector`))),
    ).rejects.toThrow(/redirect/);
    const answer = await post(proxy.address.port, "/mcp/redirector", call("delete_repo"));
    expect(answer.status).toBe(502);
    expect(answer.text).toContain("does not relay redirects");
    expect(origin.reached("/github/mcp", "delete_repo")).toBe(0);
  });

  it("class 13: an LLM provider reached under another name is judged, or refused", async () => {
    const dispatcher = new ProxyAgent({ uri: proxy.url, proxyTunnel: false });
    const ask = async (baseURL: string) => {
      const client = new Anthropic({
        apiKey: "sk-ant-test",
        baseURL,
        maxRetries: 0,
        fetch: ((input: string, init: object) => undiciFetch(input, { ...init, dispatcher })) as never,
      });
      const message = await client.messages.create({
        model: "claude-test",
        max_tokens: 10,
        messages: [{ role: "user", content: "go" }],
      });
      return JSON.stringify(message.content);
    };
    try {
      const port = (model.address() as AddressInfo).port;
      for (const host of ["localhost", "127.0.0.1", "LOCALHOST.", "[::ffff:127.0.0.1]", "2130706433"]) {
        const content = await ask(`http://${host}:${port}`);
        expect(content, host).toContain("no shell");
        expect(content).not.toContain("tool_use");
      }
      // Declared by name, reached by its address: not judged as the provider, so refused.
      const named = (namedModel.address() as AddressInfo).port;
      expect(await ask(`http://model.internal:${named}`)).toContain("no shell");
      await expect(ask(`http://127.0.0.1:${named}`)).rejects.toThrow(
        /403|model\.internal under another name/,
      );
    } finally {
      await dispatcher.close();
    }
  });

  it("a legacy HTTP+SSE session through HTTP_PROXY keeps the origin's endpoint and is judged", async () => {
    const dispatcher = new ProxyAgent({ uri: proxy.url, proxyTunnel: false });
    const viaProxy = ((input: string, init: object) => undiciFetch(input, { ...init, dispatcher })) as never;
    const client = new Client({ name: "toolwall-adversary", version: "1.0.0" });
    try {
      await client.connect(new SSEClientTransport(new URL(legacy.sseUrl), { fetch: viaProxy }));
      const allowed = await client.callTool({ name: "weather", arguments: { city: "Paris" } });
      expect(allowed.content).toEqual([{ type: "text", text: "Sunny in Paris" }]);
      await expect(client.callTool({ name: "add", arguments: { a: 1, b: 2 } })).rejects.toThrow("no adding");
    } finally {
      await client.close();
      await dispatcher.close();
    }
    expect(legacy.calls.get("add") ?? 0).toBe(0);
  });

  it("a request body in a Content-Encoding is refused, not forwarded re-serialised under that header", async () => {
    const answer = await post(proxy.address.port, "/mcp/github", call("read_note"), {
      "content-encoding": "gzip",
    });
    expect(answer.status).toBe(415);
    expect(answer.text).toContain("Content-Encoding 'gzip'");
  });
});
