/**
 * Legacy HTTP+SSE MCP (GET /sse, then POST to the endpoint the server names) through the sidecar as
 * a client in a pod reaches it: the transparent listener (original destination given by the test, as
 * on loopback nothing is redirected), and the explicit proxy both ways an HTTP_PROXY client may use
 * it (absolute-form requests and a CONNECT tunnel carrying plain HTTP). The upstream must see the
 * paths the client used (`/sse`, `/messages?sessionId=…`), not the MCP route's `/<server>/…`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { connect as netConnect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { Agent, type Dispatcher, ProxyAgent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sidecar } from "../../src/runtime/sidecar.ts";
import { startFileSidecar } from "../helpers/sidecar.ts";
import { type PolicyServer, startPolicyServer } from "../mcp/policy-server.ts";

const HOST = "legacy-mcp.toolwall-test.example";

describe("legacy HTTP+SSE MCP through the sidecar", () => {
  let dir: string;
  let server: PolicyServer;
  let serverPort: number;
  let sidecar: Sidecar;
  const paths: string[] = [];
  const audit = new PassThrough();
  let auditText = "";
  audit.on("data", (chunk) => {
    auditText += chunk;
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "toolwall-legacy-sse-"));
    server = await startPolicyServer();
    serverPort = Number(new URL(server.sseUrl).port);
    sidecar = await startFileSidecar(
      dir,
      `apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: {name: legacy, namespace: agents}
spec:
  servers:
    - {name: legacy, transport: SSE, url: "http://${HOST}:${serverPort}/sse"}
  toolPolicy:
    rules:
      - {action: Deny, servers: ["*"], tools: ["drop_table"], reason: destructive}
  egress:
    default: Deny
`,
      {
        listen: { host: "127.0.0.1", port: 0 },
        originalDestination: () => ({ family: 4, address: "127.0.0.1", port: serverPort }),
        explicit: { host: "127.0.0.1", port: 0 },
        resolve: [`${HOST}=127.0.0.1`],
        namespace: "agents",
        pod: "agent-0",
        auditOut: audit,
      },
    );
  });

  afterAll(async () => {
    await sidecar?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Every connection the client opens goes to the transparent listener, as iptables would send it. */
  const transparent = () =>
    new Agent({
      connect: ((_options: unknown, callback: (error: Error | null, socket: unknown) => void) => {
        const socket = netConnect(sidecar.address!.port, "127.0.0.1");
        socket.once("connect", () => callback(null, socket));
        socket.once("error", (error) => callback(error, null));
      }) as never,
    });
  const explicit = (proxyTunnel: boolean) =>
    new ProxyAgent({ uri: `http://127.0.0.1:${sidecar.explicitAddress!.port}`, proxyTunnel });

  async function connect(dispatcher: Dispatcher): Promise<Client> {
    const fetch = ((url: string | URL, init?: RequestInit) =>
      undiciFetch(url, { ...(init as object), dispatcher }).then((response) => {
        paths.push(new URL(response.url).pathname);
        return response;
      })) as never;
    const transport = new SSEClientTransport(new URL(`http://${HOST}:${serverPort}/sse`), { fetch });
    const client = new Client({ name: "toolwall-test", version: "1.0.0" });
    await client.connect(transport);
    return client;
  }

  it.each([
    ["the transparent listener", transparent],
    ["the explicit proxy, absolute-form requests", () => explicit(false)],
    ["the explicit proxy, a CONNECT tunnel", () => explicit(true)],
  ])(
    "lists, calls and blocks through %s, the upstream seeing the client's own paths",
    async (_, dispatcher) => {
      const callsBefore = server.calls.get("weather") ?? 0;
      const client = await connect(dispatcher());
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("weather");
      expect(tools.map((t) => t.name)).not.toContain("drop_table");
      const result = await client.callTool({ name: "weather", arguments: { city: "Lyon" } });
      expect(result.content).toEqual([{ type: "text", text: "Sunny in Lyon" }]);
      expect(server.calls.get("weather")).toBe(callsBefore + 1);
      const error = await client
        .callTool({ name: "drop_table", arguments: { table: "users" } })
        .catch((e) => e);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32001);
      expect(server.calls.get("drop_table") ?? 0).toBe(0);
      await client.close();
      // The endpoint event kept the origin's path: the client posted to /messages, not /legacy/messages.
      expect(paths).toContain("/messages");
      expect(paths.filter((path) => path.startsWith("/legacy"))).toEqual([]);
      expect(auditText).toContain('"tool":"drop_table"');
    },
  );
});
