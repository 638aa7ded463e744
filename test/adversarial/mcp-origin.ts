import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { explicitModeSetup } from "../../src/dataplane/explicit-mode.ts";
import { PolicySet } from "../../src/policy/evaluate.ts";
import type { PolicyDocument } from "../../src/policy/types.ts";
import { type LocalProxy, startLocalProxy } from "../../src/runtime/local.ts";
import type { MemoryAuditSink } from "../../src/telemetry/audit.ts";

/**
 * One origin serving several SDK-built MCP servers (stateless Streamable HTTP), one per path, as an
 * ordinary deployment with two MCP servers on one host does. Every server offers the same tools and
 * counts, per path, the calls that reach it: a test reads whether a denied call arrived anywhere.
 */
export interface McpOrigin {
  port: number;
  /** `<path> <tool>` → calls that reached it. */
  calls: Map<string, number>;
  reached(path: string, tool: string): number;
  close(): Promise<void>;
}

export async function startMcpOrigin(paths: readonly string[]): Promise<McpOrigin> {
  const calls = new Map<string, number>();
  const build = (path: string) => {
    const server = new McpServer({ name: `origin${path}`, version: "1.0.0" });
    for (const tool of ["delete_repo", "read_note"]) {
      server.registerTool(
        tool,
        { description: `${tool} on ${path}`, inputSchema: { id: z.string() } },
        async () => {
          calls.set(`${path} ${tool}`, (calls.get(`${path} ${tool}`) ?? 0) + 1);
          return { content: [{ type: "text" as const, text: `${tool} ran on ${path}` }] };
        },
      );
    }
    return server;
  };
  const http: Server = createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://origin").pathname;
    if (!paths.includes(path)) {
      res.writeHead(404).end(`no MCP server at ${path}`);
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const server = build(path);
    res.on("close", () => {
      transport.close().catch(() => {});
      server.close().catch(() => {});
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    port: (http.address() as AddressInfo).port,
    calls,
    reached: (path, tool) => calls.get(`${path} ${tool}`) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** One raw HTTP/1.1 POST: the path goes on the wire exactly as written (no URL normalisation). */
export function rawPost(
  port: number,
  path: string,
  body: string,
  extraHeaders: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...extraHeaders,
        },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** `toolwall proxy --ca-dir` in this process: the `/mcp/<server>` route and the explicit forward proxy. */
export async function startExplicitProxy(
  documents: PolicyDocument[],
  audit: MemoryAuditSink,
  caDir: string,
  resolve: string[] = [],
): Promise<LocalProxy> {
  const setup = await explicitModeSetup({ caDir, resolve, extraCaFiles: [], log: () => {} });
  return startLocalProxy({
    policies: PolicySet.fromDocuments(documents),
    audit,
    providers: [],
    listen: { host: "127.0.0.1", port: 0 },
    mcp: true,
    log: () => {},
    ...setup,
  });
}
