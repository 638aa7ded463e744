/**
 * `toolwall proxy --ca-dir`: explicit forward-proxy mode on loopback. TLS "providers" signed by a
 * test CA stand in for the internet; `--resolve` maps their names to 127.0.0.1.
 */

import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { type AddressInfo, connect as netConnect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createSecureContext,
  createServer as createTlsServer,
  type Server,
  connect as tlsConnect,
} from "node:tls";
import Anthropic from "@anthropic-ai/sdk";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ProxyAgent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentEnvironment, explicitModeSetup } from "../../src/dataplane/explicit-mode.ts";
import { providerRoutes } from "../../src/dialects/providers.ts";
import { PolicySet } from "../../src/policy/evaluate.ts";
import { parsePolicies } from "../../src/policy/load.ts";
import { type LocalProxy, startLocalProxy } from "../../src/runtime/local.ts";
import { MemoryAuditSink } from "../../src/telemetry/audit.ts";
import { connections } from "../../src/telemetry/metrics.ts";
import { CertificateAuthority } from "../../src/tls/ca.ts";
import type { TrustFiles } from "../../src/tls/trust-files.ts";
import { type ReplayServer, startReplayServer } from "../helpers/replay.ts";
import { type PolicyServer, startPolicyServer } from "../mcp/policy-server.ts";

const LLM = "llm.toolwall-test.example";
const INSPECTED = "inspect.toolwall-test.example";
const TUNNELLED = "tunnel.toolwall-test.example";
const PLAIN = "plain.toolwall-test.example";
const DENIED = "paste.bin.example";
const MCP = "mcp.toolwall-test.example";
const BLOCKED_TEXT = "Tool 'delete_file' was blocked by policy: deleting files is not allowed";

function listen(server: Server | HttpServer): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );
}

function curl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile("curl", ["-sS", "--max-time", "10", ...args], (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

describe("toolwall proxy explicit mode (HTTPS_PROXY / HTTP_PROXY)", () => {
  const audit = new MemoryAuditSink();
  const caDir = mkdtempSync(join(tmpdir(), "toolwall-explicit-"));
  const upstreamCaFile = join(caDir, "..", `${caDir.split("/").at(-1)}-upstream.pem`);
  let upstreamCa: CertificateAuthority;
  let replay: ReplayServer;
  let llmTls: Server;
  let webTls: Server;
  let web: HttpServer;
  let llmPort: number;
  let webPort: number;
  let plainPort: number;
  let proxy: LocalProxy;
  let proxyPort: number;
  let caPem: string;
  let mcpServer: PolicyServer;
  let mcpUrl: string;
  let trust: TrustFiles;

  beforeAll(async () => {
    upstreamCa = await CertificateAuthority.create({ commonName: "upstream test CA" });
    writeFileSync(upstreamCaFile, upstreamCa.certificatePem);
    const leaves = await Promise.all([LLM, INSPECTED, TUNNELLED].map((name) => upstreamCa.leafFor(name)));
    const tlsOptions = {
      SNICallback: (name: string, callback: (error: Error | null, context: unknown) => void) => {
        const leaf = leaves.find((l) => l.name === name) ?? leaves[0]!;
        callback(null, createSecureContext({ cert: leaf.certificatePem, key: leaf.keyPem }));
      },
    };
    replay = await startReplayServer();
    llmTls = createTlsServer(tlsOptions as never, (socket) => replay.server.emit("connection", socket));
    web = createHttpServer((req, res) => {
      const body = JSON.stringify({
        upstream: (req.socket as { servername?: string }).servername ?? "plain",
        host: req.headers.host,
        path: req.url,
      });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    });
    webTls = createTlsServer(tlsOptions as never, (socket) => web.emit("connection", socket));
    [llmPort, webPort, plainPort] = await Promise.all([listen(llmTls), listen(webTls), listen(web)]);
    mcpServer = await startPolicyServer();
    mcpUrl = mcpServer.url.replace("127.0.0.1", MCP);

    const documents = parsePolicies(
      `
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: laptop, namespace: agents }
spec:
  servers: [{ name: db, transport: StreamableHTTP, url: "${mcpUrl}" }]
  llm:
    providers: [{ host: "${LLM}:${llmPort}", dialect: AnthropicMessages }]
  denyAs: ToolError
  toolPolicy:
    rules:
      - { action: Deny, tools: [delete_file], reason: deleting files is not allowed }
      - { action: Deny, servers: [db], tools: [drop_table], reason: destructive }
  egress:
    default: Allow
    rules: [{ name: no-paste, action: Deny, hosts: ["*.bin.example"] }]
    inspect: ["${INSPECTED}"]
`,
      "laptop.yaml",
    ).policies;
    const setup = await explicitModeSetup({
      caDir,
      resolve: [
        `${LLM}=127.0.0.1`,
        `${INSPECTED}=127.0.0.1`,
        `${TUNNELLED}=127.0.0.1`,
        `${PLAIN}=127.0.0.1`,
        `${MCP}=127.0.0.1`,
      ],
      extraCaFiles: [upstreamCaFile],
      log: () => {},
    });
    trust = setup.trust;
    proxy = await startLocalProxy({
      policies: PolicySet.fromDocuments(documents),
      audit,
      providers: providerRoutes({ anthropic: replay.url }),
      listen: { host: "127.0.0.1", port: 0 },
      mcp: true,
      log: () => {},
      upstream: setup.upstream,
      explicit: setup.explicit,
    });
    proxyPort = proxy.address.port;
    caPem = readFileSync(join(caDir, "ca.crt"), "utf8");
  });

  afterAll(async () => {
    await proxy?.close(1000);
    await replay?.close();
    await mcpServer?.close();
    llmTls?.close();
    webTls?.close();
    web?.close();
    rmSync(caDir, { recursive: true, force: true });
    rmSync(upstreamCaFile, { force: true });
  });

  function anthropic(options: ConstructorParameters<typeof Anthropic>[0]) {
    return new Anthropic({
      apiKey: "sk-ant-test-key",
      maxRetries: 0,
      defaultHeaders: { "x-fixture": "anthropic-messages/blocked-name.json" },
      ...options,
    });
  }
  const request = {
    model: "claude-sonnet-4-5",
    max_tokens: 256,
    messages: [{ role: "user" as const, content: "tidy up" }],
  };

  /** Sends CONNECT and resolves with the proxy's answer head and the socket (paused after it). */
  function connectTunnel(target: string): Promise<{ head: string; socket: Socket }> {
    return new Promise((resolve, reject) => {
      const socket = netConnect(proxyPort, "127.0.0.1", () =>
        socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`),
      );
      let received = "";
      const onData = (chunk: Buffer) => {
        received += chunk.toString("latin1");
        const end = received.indexOf("\r\n\r\n");
        if (end < 0) return;
        socket.removeListener("data", onData);
        socket.pause();
        resolve({ head: received, socket });
      };
      socket.on("data", onData);
      socket.on("error", reject);
    });
  }

  it("rewrites a blocked tool call of the official Anthropic SDK sent through an HTTPS proxy", async () => {
    const dispatcher = new ProxyAgent({ uri: proxy.url, requestTls: { ca: caPem } });
    try {
      const client = anthropic({
        baseURL: `https://${LLM}:${llmPort}`,
        fetch: undiciFetch as never,
        fetchOptions: { dispatcher } as never,
      });
      const message = await client.messages.create(request);
      expect(message.content).toEqual([expect.objectContaining({ type: "text", text: BLOCKED_TEXT })]);
    } finally {
      await dispatcher.close();
    }
    expect(audit.events).toContainEqual(
      expect.objectContaining({ type: "network_connection", verdict: "inspect", host: LLM, category: "llm" }),
    );
  });

  it("keeps the base-URL routes working on the same port", async () => {
    const message = await anthropic({ baseURL: `${proxy.url}/anthropic` }).messages.create(request);
    expect(message.content).toEqual([expect.objectContaining({ type: "text", text: BLOCKED_TEXT })]);
  });

  it("lets curl reach an inspected host with a leaf of the local CA (trusting only ca-bundle.pem)", async () => {
    const result = await curl([
      "-x",
      proxy.url,
      "--cacert",
      join(caDir, "ca-bundle.pem"),
      `https://${INSPECTED}:${webPort}/probe?q=1`,
    ]);
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual({
      upstream: INSPECTED,
      host: `${INSPECTED}:${webPort}`,
      path: "/probe?q=1",
    });
  });

  it("tunnels an allowed, uninspected host untouched (the upstream's own certificate reaches curl)", async () => {
    const result = await curl([
      "-x",
      proxy.url,
      "--cacert",
      upstreamCaFile,
      `https://${TUNNELLED}:${webPort}/t`,
    ]);
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toMatchObject({ upstream: TUNNELLED, path: "/t" });
    expect(audit.events.at(-1)).toMatchObject({ verdict: "tunnel", host: TUNNELLED, protocol: "tls" });
  });

  /** A Node agent process (the official Anthropic SDK on the built-in fetch) with `env` only. */
  function nodeAgent(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
    const script = `
      import Anthropic from "@anthropic-ai/sdk";
      const client = new Anthropic({ apiKey: "sk-ant-test-key", baseURL: process.argv[1], maxRetries: 0,
        defaultHeaders: { "x-fixture": "anthropic-messages/blocked-name.json" } });
      const message = await client.messages.create(${JSON.stringify(request)});
      console.log(JSON.stringify(message.content));`;
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ["--input-type=module", "-e", script, `https://${LLM}:${llmPort}`],
        { env: { PATH: process.env.PATH ?? "", ...env }, timeout: 20_000 },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  // Issue 10 item 6: Node ignores HTTPS_PROXY unless NODE_USE_ENV_PROXY=1 — the agent went around Toolwall.
  it("gives a Node agent the environment that takes its SDK through the proxy (NODE_USE_ENV_PROXY=1)", async () => {
    const environment = agentEnvironment(proxy.url, trust);
    expect(environment).toMatchObject({ NODE_USE_ENV_PROXY: "1", HTTPS_PROXY: proxy.url });
    const through = await nodeAgent(environment);
    expect(through.code, through.stderr).toBe(0);
    expect(JSON.parse(through.stdout)).toEqual([
      expect.objectContaining({ type: "text", text: BLOCKED_TEXT }),
    ]);
    // Without it, Node dials the provider itself: the name only the proxy can resolve is unknown.
    const { NODE_USE_ENV_PROXY: _, ...withoutFlag } = environment;
    const around = await nodeAgent(withoutFlag);
    expect(around.code).not.toBe(0);
    expect(around.stderr).toMatch(/ENOTFOUND|EAI_AGAIN|Connection error/);
  });

  async function deniedConnections(): Promise<number> {
    return (await connections.get()).values.find((v) => v.labels.verdict === "deny")?.value ?? 0;
  }

  it("answers CONNECT to a denied host with 403 and the rule, before any tunnel", async () => {
    const deniedBefore = await deniedConnections();
    const { head, socket } = await connectTunnel(`${DENIED}:443`);
    expect(await deniedConnections()).toBe(deniedBefore + 1);
    socket.destroy();
    expect(head).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(head).toContain("x-toolwall-rule: agents/laptop#egress.rules[no-paste]");
    expect(audit.events.at(-1)).toMatchObject({
      type: "network_connection",
      action: "deny",
      verdict: "deny",
      host: DENIED,
      rule: "agents/laptop#egress.rules[no-paste]",
    });
    const viaCurl = await curl(["-x", proxy.url, `https://${DENIED}/`]);
    expect(viaCurl.code).not.toBe(0);
    expect(viaCurl.stderr).toContain("403");
  });

  it("refuses a tunnel whose SNI is not the CONNECT name", async () => {
    const { head, socket } = await connectTunnel(`${TUNNELLED}:${webPort}`);
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    const outcome = await new Promise<string>((resolve) => {
      const secure = tlsConnect({ socket, servername: PLAIN, ca: upstreamCa.certificatePem });
      secure.on("secureConnect", () => resolve("handshake completed"));
      secure.on("error", () => resolve("refused"));
      secure.on("close", () => resolve("refused"));
    });
    expect(outcome).toBe("refused");
    expect(audit.events.at(-1)).toMatchObject({
      type: "network_connection",
      verdict: "deny",
      host: PLAIN,
      rule: "builtin#name-address-mismatch",
    });
  });

  it("forwards absolute-form HTTP (HTTP_PROXY) by the request's path and denies blocked hosts", async () => {
    const allowed = await curl(["-x", proxy.url, `http://${PLAIN}:${plainPort}/hello?x=1`]);
    expect(JSON.parse(allowed.stdout)).toEqual({
      upstream: "plain",
      host: `${PLAIN}:${plainPort}`,
      path: "/hello?x=1",
    });
    const denied = await curl(["-x", proxy.url, "-i", `http://${DENIED}/x`]);
    expect(denied.stdout).toMatch(/^HTTP\/1\.1 403 /);
    expect(denied.stdout).toContain("x-toolwall-rule: agents/laptop#egress.rules[no-paste]");
  });

  it("judges MCP calls to a declared server reached through HTTP_PROXY (absolute form)", async () => {
    const dispatcher = new ProxyAgent({ uri: proxy.url, proxyTunnel: false });
    const client = new Client({ name: "toolwall-test", version: "1.0.0" });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(mcpUrl), {
          fetch: ((url: string, init: object) => undiciFetch(url, { ...init, dispatcher })) as never,
        }),
      );
      const allowed = await client.callTool({ name: "weather", arguments: { city: "Paris" } });
      expect(allowed.content).toEqual([{ type: "text", text: "Sunny in Paris" }]);
      const denied = await client.callTool({ name: "drop_table", arguments: { table: "users" } });
      expect(denied.isError).toBe(true);
      expect(JSON.stringify(denied.content)).toContain("destructive");
      expect(mcpServer.calls.get("drop_table")).toBeUndefined();
      expect(audit.events).toContainEqual(
        expect.objectContaining({
          type: "network_connection",
          host: MCP,
          verdict: "inspect",
          category: "mcp",
        }),
      );
    } finally {
      await client.close();
      await dispatcher.close();
    }
  });

  it("keeps its CA across restarts: the key private (0600), the same ca.crt loaded", async () => {
    expect(statSync(join(caDir, "ca.key")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(caDir, "ca-bundle.pem"), "utf8")).toContain(caPem.trim());
    const again = await CertificateAuthority.persistent(caDir);
    expect(again.created).toBe(false);
    expect(again.ca.certificatePem.trim()).toBe(caPem.trim());
  });
});
