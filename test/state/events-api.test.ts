import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerTokenAuth, eventsRoute } from "../../src/state/events-route.ts";
import { connectRedis, RedisStore } from "../../src/state/redis.ts";
import type { AuditEventType } from "../../src/telemetry/audit.ts";
import { CertificateAuthority } from "../../src/tls/ca.ts";
import { RedisServer, skipWithoutRedis } from "../helpers/redis.ts";

const run = promisify(execFile);
const skipRedis = skipWithoutRedis();
const token = "s3cret-token";
let server: RedisServer | undefined;
let store: RedisStore;
let app: FastifyInstance;
let base: string;
const ns = `agents-${randomUUID().slice(0, 6)}`;
const other = `${ns}-b`;

function event(
  type: AuditEventType,
  server: string,
  tool: string,
  action: string,
  extra: Record<string, unknown> = {},
) {
  return { type, timestamp: new Date().toISOString(), pod: "research-0", server, tool, action, ...extra };
}

beforeAll(async () => {
  if (skipRedis) return;
  server = await RedisServer.start();
  store = new RedisStore(connectRedis(server.url));
  for (let i = 0; i < 50 && store.client.status !== "ready"; i++) await new Promise((r) => setTimeout(r, 20));
  store.appendAudit(ns, event("mcp_tool_seen", "github", "create_issue", "allow"));
  store.appendAudit(
    ns,
    event("mcp_tool_called", "github", "get_issue", "allow", { rule: "agents/p#toolPolicy.default" }),
  );
  store.appendAudit(
    ns,
    event("mcp_tool_called", "github", "delete_repo", "deny", { reason: "destructive tools are blocked" }),
  );
  store.appendAudit(ns, event("mcp_cross_server_blocked", "mail", "send_email", "deny"));
  store.appendAudit(other, event("tool_call_intercepted", "", "Bash", "allow"));
  await store.flush();
  app = Fastify();
  await app.register(eventsRoute, { reader: store, authenticate: bearerTokenAuth((t) => t === token) });
  base = await app.listen({ host: "127.0.0.1", port: 0 });
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await server?.dispose();
});

const cli = (bin: string, ...args: string[]) =>
  run(process.execPath, [bin, ...args, "--server", base, "--token", token], { timeout: 20_000 });

describe.skipIf(skipRedis)("audit query API and CLI", () => {
  it("refuses requests without a valid bearer token", async () => {
    expect((await fetch(`${base}/v1/events`)).status).toBe(401);
    const forbidden = await fetch(`${base}/v1/events`, { headers: { authorization: "Bearer nope" } });
    expect(forbidden.status).toBe(403);
  });

  it("filters by namespace, type, server, tool and action, newest first", async () => {
    const get = async (query: string) => {
      const response = await fetch(`${base}/v1/events?${query}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { events: { id: string; event: Record<string, string> }[] }).events;
    };
    expect((await get(`namespace=${ns}`)).map((e) => e.event["tool"])).toEqual([
      "send_email",
      "delete_repo",
      "get_issue",
      "create_issue",
    ]);
    expect(
      (await get(`namespace=${ns}&type=mcp_tool_called&action=deny`)).map((e) => e.event["tool"]),
    ).toEqual(["delete_repo"]);
    expect((await get(`server=mail`)).map((e) => e.event["namespace"])).toEqual([ns]);
    expect((await get(`tool=bash`)).map((e) => e.event["namespace"])).toEqual([other]);
    expect(await get(`namespace=${ns}&since=2000-01-01T00:00:00Z&limit=1`)).toHaveLength(1);
    expect(await get(`namespace=${ns}&since=1h`)).toHaveLength(4);
  });

  it("answers 400 with the parameter's name for bad input", async () => {
    for (const [query, message] of [
      ["limit=0", /^limit: expected an integer/],
      ["since=yesterday", /^since: expected/],
      ["namespace=Not_A_Namespace", /^namespace: /],
      ["after=abc", /^after: /],
    ] as const) {
      const response = await fetch(`${base}/v1/events?${query}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toMatch(message);
    }
  });

  it("prints tool calls as a table, oldest first (toolwall calls)", async () => {
    const { stdout } = await cli("bin/toolwall.js", "calls", "-n", ns);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^TIME\s+NAMESPACE\s+POD\s+SERVER\s+TOOL\s+ACTION\s+RULE\s+REASON$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[4])).toEqual(["get_issue", "delete_repo"]);
    expect(lines[2]).toContain("destructive tools are blocked");
  });

  it("prints events as JSON lines through the kubectl plugin entry", async () => {
    const { stdout } = await cli(
      "bin/kubectl-toolwall.js",
      "events",
      "-n",
      ns,
      "--type",
      "mcp_cross_server_blocked",
      "-o",
      "json",
    );
    const events = stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events).toEqual([
      expect.objectContaining({ type: "mcp_cross_server_blocked", tool: "send_email", namespace: ns }),
    ]);
    expect(events[0].id).toMatch(/^\d+-\d+$/);
  });

  it("keeps printing new events with --follow", async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      [
        "bin/toolwall.js",
        "events",
        "-n",
        ns,
        "-o",
        "json",
        "-f",
        "--interval",
        "100",
        "--server",
        base,
        "--token",
        token,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    try {
      const waitFor = async (text: string) => {
        for (let i = 0; i < 200 && !output.includes(text); i++) await new Promise((r) => setTimeout(r, 25));
        expect(output).toContain(text);
      };
      await waitFor('"send_email"');
      store.appendAudit(ns, event("mcp_tool_called", "github", "list_repos", "allow"));
      await store.flush();
      await waitFor('"list_repos"');
      const tools = output
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).tool);
      expect(tools).toEqual(["create_issue", "get_issue", "delete_repo", "send_email", "list_repos"]);
    } finally {
      child.kill();
    }
  });

  it("reads an https server whose CA it is given with --ca", async () => {
    const ca = await CertificateAuthority.create({ commonName: "toolwall test controller CA" });
    const leaf = await ca.leafFor("127.0.0.1");
    const secure = Fastify({ https: { cert: leaf.certificatePem, key: leaf.keyPem } });
    await secure.register(eventsRoute, { reader: store, authenticate: bearerTokenAuth((t) => t === token) });
    const secureBase = await secure.listen({ host: "127.0.0.1", port: 0 });
    const dir = await mkdtemp(join(tmpdir(), "toolwall-events-ca-"));
    try {
      const caFile = join(dir, "ca.pem");
      await writeFile(caFile, ca.certificatePem);
      const { stdout } = await run(
        process.execPath,
        [
          "bin/toolwall.js",
          "events",
          "-n",
          ns,
          "--tool",
          "send_email",
          "-o",
          "json",
          "--server",
          secureBase,
          "--token",
          token,
          "--ca",
          caFile,
        ],
        { timeout: 20_000 },
      );
      expect(JSON.parse(stdout.trim())).toMatchObject({ tool: "send_email", namespace: ns });
      const untrusted = await run(
        process.execPath,
        ["bin/toolwall.js", "events", "-n", ns, "--server", secureBase, "--token", token],
        { timeout: 20_000 },
      ).catch((error) => error);
      expect(untrusted.code).not.toBe(0);
    } finally {
      await secure.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
