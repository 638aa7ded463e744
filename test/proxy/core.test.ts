import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PolicySet } from "../../src/policy/evaluate.ts";
import { parsePolicies } from "../../src/policy/load.ts";
import { type LocalProxy, startLocalProxy } from "../../src/runtime/local.ts";
import { MemoryAuditSink } from "../../src/telemetry/audit.ts";

const policyYaml = `
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: core, namespace: agents }
spec:
  toolPolicy:
    rules:
      - { action: Deny, servers: ["*"], tools: ["delete_*"], reason: destructive }
`;

const audit = new MemoryAuditSink();
let proxy: LocalProxy;
let upstreamPort = 0;
const upstream = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    res.writeHead(200, {
      "content-type": "application/json",
      "x-seen-key": String(req.headers["x-api-key"]),
    });
    res.end(
      JSON.stringify({
        path: req.url,
        body: Buffer.concat(chunks).toString(),
        hop: req.headers["keep-alive"] ?? null,
      }),
    );
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamPort = (upstream.address() as AddressInfo).port;
  const policies = PolicySet.fromDocuments(parsePolicies(policyYaml, "core.yaml").policies);
  proxy = await startLocalProxy({
    policies,
    audit,
    providers: [
      { prefix: "/anthropic", upstream: new URL(`http://127.0.0.1:${upstreamPort}/base`), dialects: [] },
    ],
    listen: { host: "127.0.0.1", port: 0 },
    routes: [
      {
        prefix: "/mcp",
        async handler(_req, res, route) {
          const decided = await route.context.decide({
            dialect: "mcp",
            requestId: route.requestId,
            name: "delete_repo",
            server: route.path.split("/")[1]!,
            arguments: { repo: "x" },
          });
          res.writeHead(200, { "content-type": "application/json" });
          res.end(
            JSON.stringify({
              path: route.path,
              search: route.search,
              blocked: decided.blocked,
              message: decided.message,
            }),
          );
        },
      },
    ],
    log: () => {},
  });
});

afterAll(async () => {
  await proxy.close(1000);
  upstream.close();
});

describe("proxy core", () => {
  it("relays paths without a dialect to the upstream base URL with end-to-end headers only", async () => {
    const answer = await new Promise<{ key: unknown; body: unknown }>((resolve, reject) => {
      const req = request(
        `${proxy.url}/anthropic/v1/models?limit=2`,
        {
          method: "POST",
          headers: { "x-api-key": "sk-test", "keep-alive": "timeout=5", connection: "keep-alive" },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({ key: res.headers["x-seen-key"], body: JSON.parse(Buffer.concat(chunks).toString()) }),
          );
        },
      );
      req.on("error", reject);
      req.end("hello");
    });
    expect(answer).toEqual({
      key: "sk-test",
      body: { path: "/base/v1/models?limit=2", body: "hello", hop: null },
    });
  });

  it("routes a mounted prefix to its handler, which decides through the shared step and audits", async () => {
    const response = await fetch(`${proxy.url}/mcp/github/mcp?x=1`);
    expect(await response.json()).toEqual({
      path: "/github/mcp",
      search: "?x=1",
      blocked: true,
      message: "Tool 'delete_repo' was blocked by policy: destructive",
    });
    expect(audit.events.at(-1)).toMatchObject({
      type: "mcp_tool_called",
      dialect: "mcp",
      server: "github",
      tool: "delete_repo",
      input: { repo: "x" },
      action: "deny",
      rule: "agents/core#toolPolicy.rules[0]",
      mode: "Enforce",
    });
  });

  it("answers 404 with a JSON error for unknown prefixes (and prefixes match whole segments)", async () => {
    expect((await fetch(`${proxy.url}/mcpx/a`)).status).toBe(404);
    expect((await fetch(`${proxy.url}/nowhere`)).status).toBe(404);
  });
});

describe("client disconnect", () => {
  it("aborts the upstream request", async () => {
    const replay = await (await import("../helpers/replay.ts")).startReplayServer();
    const local = await startLocalProxy({
      policies: PolicySet.fromDocuments([]),
      audit,
      providers: [
        {
          prefix: "/anthropic",
          upstream: new URL(replay.url),
          dialects: [(await import("../../src/dialects/anthropic-messages/index.ts")).anthropicMessages],
        },
      ],
      listen: { host: "127.0.0.1", port: 0 },
      log: () => {},
    });
    try {
      const abort = new AbortController();
      const response = await fetch(`${local.url}/anthropic/v1/messages`, {
        method: "POST",
        headers: {
          "x-fixture": "anthropic-messages/text-only.sse",
          // Pieces of 40 bytes, 200 ms apart: the stream is still running when the client goes.
          "x-cut": Array.from({ length: 30 }, (_, i) => (i + 1) * 40).join(","),
          "x-delay-ms": "200",
        },
        body: "{}",
        signal: abort.signal,
      });
      await response.body!.getReader().read();
      abort.abort();
      const deadline = Date.now() + 5000;
      while (replay.abandoned === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(replay.abandoned).toBe(1);
    } finally {
      await local.close(500);
      await replay.close();
    }
  });
});
