import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProxy } from "./peers.ts";

/**
 * A raw upstream in the 2026-07-28 style (stateless: no session, no GET stream, `_meta` per request)
 * that records what reached it; `?sse` answers in SSE framing with CRLF line ends.
 */
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
let upstream: Server;
let proxied: Awaited<ReturnType<typeof startProxy>>;

const tools = [
  { name: "weather", description: "Returns the weather.", inputSchema: { type: "object" } },
  { name: "delete_file", description: "Deletes a file.", inputSchema: { type: "object" } },
];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      received.push({ headers: req.headers, body });
      const message = JSON.parse(body) as { id: number; method: string; params?: { cursor?: string } };
      const result =
        message.method === "tools/list"
          ? message.params?.cursor === "page2"
            ? { tools: [tools[1]] }
            : { tools: [tools[0], tools[1]], nextCursor: "page2" }
          : { content: [{ type: "text", text: "ok" }], _meta: { echoed: true } };
      const answer = JSON.stringify({ jsonrpc: "2.0", id: message.id, result });
      if (req.url?.includes("sse")) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`: keep-alive\r\n\r\nevent: message\r\nid: 1\r\ndata: ${answer}\r\n\r\n`);
        res.end();
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(answer);
      }
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const port = (upstream.address() as AddressInfo).port;
  proxied = await startProxy(`
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: stateless, namespace: agents }
spec:
  servers:
    - { name: plain, transport: StreamableHTTP, url: "http://127.0.0.1:${port}/mcp" }
  toolPolicy:
    rules: [{ action: Deny, servers: ["*"], tools: ["delete_*"], reason: destructive }]
---
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: watch, namespace: agents }
spec:
  mode: Audit
  toolPolicy:
    rules: [{ action: Deny, tools: ["weather"], reason: watched }]
`);
});

afterAll(async () => {
  await proxied?.proxy.close(1000);
  upstream?.close();
});

const headers = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
};

describe("stateless 2026-07-28 requests", () => {
  it("forwards an allowed call with its _meta, its protocol header and no session", async () => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "weather",
        arguments: { city: "Oslo" },
        _meta: { "io.modelcontextprotocol/clientInfo": { name: "x" } },
      },
    });
    const response = await fetch(`${proxied.url}/mcp/plain`, { method: "POST", headers, body });
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: "ok" }], _meta: { echoed: true } },
    });
    const last = received.at(-1)!;
    expect(last.body).toBe(body);
    expect(last.headers["mcp-protocol-version"]).toBe("2026-07-28");
    expect(last.headers["mcp-session-id"]).toBeUndefined();
    // An Audit-mode policy's deny is recorded, never enforced.
    expect(proxied.audit.events.filter((e) => e.type === "mcp_tool_called").at(-1)).toMatchObject({
      tool: "weather",
      action: "deny",
      mode: "Audit",
      reason: "watched",
    });
  });

  it("answers a denied call itself, with the request's id", async () => {
    const before = received.length;
    const response = await fetch(`${proxied.url}/mcp/plain`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "x-9",
        method: "tools/call",
        params: { name: "delete_file" },
      }),
    });
    expect(await response.json()).toMatchObject({ id: "x-9", error: { code: -32001 } });
    expect(received.length).toBe(before);
  });

  it("filters every page of a paginated listing, in JSON and in CRLF-framed SSE", async () => {
    for (const path of ["/mcp/plain", "/mcp/plain/?sse"]) {
      const page = async (cursor?: string) => {
        const response = await fetch(`${proxied.url}${path}`, {
          method: "POST",
          headers,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 2,
            method: "tools/list",
            ...(cursor ? { params: { cursor } } : {}),
          }),
        });
        const text = await response.text();
        const data = text.includes("data: ")
          ? text.slice(text.indexOf("data: ") + 6).split("\r\n")[0]!
          : text;
        return {
          text,
          result: (JSON.parse(data) as { result: { tools: { name: string }[]; nextCursor?: string } }).result,
        };
      };
      const first = await page();
      expect(first.result.tools.map((t) => t.name)).toEqual(["weather"]);
      expect(first.result.nextCursor).toBe("page2");
      const second = await page("page2");
      expect(second.result.tools).toEqual([]);
      if (path.includes("sse")) {
        // The rewritten event keeps its name and its resumption id, in the stream's own framing.
        expect(first.text.startsWith(": keep-alive\r\n\r\nevent: message\r\nid: 1\r\ndata: ")).toBe(true);
      }
    }
  });
});

it("refuses methods that could carry a message past the judge", async () => {
  const before = received.length;
  const response = await fetch(`${proxied.url}/mcp/plain`, {
    method: "PUT",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "delete_file" } }),
  });
  expect(response.status).toBe(405);
  expect(received.length).toBe(before);
});

it("judges a call sent as a notification (no id) and drops it when denied", async () => {
  const before = received.length;
  const response = await fetch(`${proxied.url}/mcp/plain`, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { name: "delete_file" } }),
  });
  expect(response.status).toBeLessThan(300);
  await response.text();
  expect(received.length).toBe(before);
  expect(proxied.audit.events.filter((e) => e.type === "mcp_tool_called").at(-1)).toMatchObject({
    tool: "delete_file",
    action: "deny",
  });
});

it("sends upstream what it judged: with duplicate keys the server sees the name the policy saw", async () => {
  const before = received.length;
  const response = await fetch(`${proxied.url}/mcp/plain`, {
    method: "POST",
    headers,
    body: '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"delete_file","name":"weather"}}',
  });
  expect(response.status).toBe(200);
  await response.text();
  expect(received.length).toBe(before + 1);
  expect(JSON.parse(received.at(-1)!.body)).toEqual({
    jsonrpc: "2.0",
    id: 5,
    method: "tools/call",
    params: { name: "weather" },
  });
  expect(received.at(-1)!.body).not.toContain("delete_file");
});
