/**
 * Issue 10, class 14: a `tools/list` answer the MCP SDK client matches to its request but the proxy
 * did not — an id of another JSON type or spelling (the SDK looks answers up by `Number(id)`), a BOM
 * before the JSON (`Response.json()` drops it) — skipped filtering, inspection and pinning. A raw
 * upstream controls every byte; the official SDK client must never see the denied tool. Each case
 * fails on the main before the fix.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProxy } from "../mcp/peers.ts";

interface Variant {
  name: string;
  /** The id the upstream writes back for the listing request's id. */
  id: (id: number) => unknown;
  bom: boolean;
  sse: boolean;
  /** The listing is answered twice on the stream, a harmless answer first. */
  twice?: boolean;
  /** A BOM opens the event stream (the client's TextDecoderStream drops it). */
  streamBom?: boolean;
  crlf?: boolean;
}

const variants: Variant[] = [
  ...["same", "string", "padded", "hex", "exponent"].flatMap((name) =>
    [false, true].map((sse) => ({
      name: `${name} id${sse ? " (SSE)" : ""}`,
      id: (id: number) =>
        ({
          same: id,
          string: String(id),
          padded: ` ${id} `,
          hex: `0x${id.toString(16)}`,
          exponent: `${id}e0`,
        })[name],
      bom: false,
      sse,
    })),
  ),
  { name: "BOM before the JSON", id: (id) => id, bom: true, sse: false },
  { name: "BOM and a string id", id: (id) => String(id), bom: true, sse: false },
  { name: "BOM opening the event stream", id: (id) => id, bom: false, sse: true, streamBom: true },
  {
    name: "BOM opening the event stream, CRLF lines",
    id: (id) => String(id),
    bom: false,
    sse: true,
    streamBom: true,
    crlf: true,
  },
];

describe("MCP listings are filtered whatever the answer's id spelling or BOM", () => {
  let variant: Variant = variants[0]!;
  let upstream: Server;
  let proxy: Awaited<ReturnType<typeof startProxy>>;

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on("end", () => {
        if (req.method !== "POST") return res.writeHead(405).end();
        const message = JSON.parse(body) as { id?: number; method: string };
        if (message.id === undefined) return res.writeHead(202).end();
        let answer: unknown;
        if (message.method === "initialize") {
          answer = {
            jsonrpc: "2.0",
            id: message.id,
            result: {
              protocolVersion: "2025-06-18",
              capabilities: { tools: {} },
              serverInfo: { name: "raw", version: "1" },
            },
          };
        } else if (message.method === "tools/list") {
          const tool = (name: string) => ({ name, description: name, inputSchema: { type: "object" } });
          answer = {
            jsonrpc: "2.0",
            id: variant.id(message.id),
            result: { tools: [tool("read_note"), tool("delete_repo")] },
          };
        } else {
          answer = { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "no" } };
        }
        const json = `${variant.bom ? "\uFEFF" : ""}${JSON.stringify(answer)}`;
        if (variant.sse) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          const decoy = JSON.stringify({ ...(answer as object), result: { tools: [] } });
          // The data line first: a BOM in front of `event:` would only hide the event name.
          const stream = `${variant.twice ? `data: ${decoy}\nevent: message\n\n` : ""}data: ${json}\nevent: message\n\n`;
          res.end(
            (variant.streamBom ? "\uFEFF" : "") + (variant.crlf ? stream.replaceAll("\n", "\r\n") : stream),
          );
        } else {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(json);
        }
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
    proxy = await startProxy(`
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: listings, namespace: agents }
spec:
  servers: [{ name: raw, transport: StreamableHTTP, url: "${url}" }]
  toolPolicy:
    rules: [{ action: Deny, servers: [raw], tools: [delete_repo], reason: repositories stay }]
`);
  });

  afterAll(async () => {
    await proxy?.proxy.close(1000);
    upstream?.close();
  });

  for (const each of variants) {
    it(each.name, async () => {
      variant = each;
      const client = new Client({ name: "toolwall-adversary", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp/raw`)));
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(["read_note"]);
      } finally {
        await client.close();
      }
    });
  }

  // A client that keeps the last answer for an id would take the second, unfiltered on main.
  it("a listing answered twice is filtered both times", async () => {
    variant = { name: "twice", id: (id) => String(id), bom: false, sse: true, twice: true };
    const response = await fetch(`${proxy.url}/mcp/raw`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }),
    });
    const text = await response.text();
    expect(text.match(/"tools"/g)).toHaveLength(2);
    expect(text).toContain("read_note");
    expect(text).not.toContain("delete_repo");
  });
});
