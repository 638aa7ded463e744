import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type PolicyServer, startPolicyServer } from "./policy-server.ts";

let upstream: PolicyServer;
let child: ChildProcess;
let dir: string;
let stdout = "";
let stderr = "";
let proxyUrl = "";

beforeAll(async () => {
  upstream = await startPolicyServer();
  dir = await mkdtemp(join(tmpdir(), "toolwall-mcp-cli-"));
  const policy = join(dir, "policy.yaml");
  await writeFile(
    policy,
    `apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: cli, namespace: agents }
spec:
  servers: [{ name: tools, transport: StreamableHTTP, url: "${upstream.url}" }]
  toolPolicy:
    rules: [{ action: Deny, tools: ["drop_*"], reason: destructive }]
`,
  );
  child = spawn(
    process.execPath,
    ["bin/toolwall.js", "proxy", "-f", policy, "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const deadline = Date.now() + 15_000;
  while (!/listening on (http:\/\/\S+:\d+)/.test(stderr)) {
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`toolwall proxy did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  proxyUrl = /listening on (http:\/\/\S+:\d+)/.exec(stderr)![1]!;
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
  await upstream?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("toolwall proxy serves /mcp/<server>: listing filtered, denial answered, audit on stdout", async () => {
  const client = new Client({ name: "toolwall-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${proxyUrl}/mcp/tools`)));
  expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("drop_table");
  const error = await client.callTool({ name: "drop_table", arguments: { table: "t" } }).catch((e) => e);
  expect(error.code).toBe(-32001);
  expect((await client.callTool({ name: "weather", arguments: { city: "Oslo" } })).content).toEqual([
    { type: "text", text: "Sunny in Oslo" },
  ]);
  await client.close();
  const deadline = Date.now() + 15_000;
  while (!stdout.includes('"action":"allow"') && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  const events = stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(events.filter((e) => e.type === "mcp_tool_called").map((e) => [e.tool, e.action])).toEqual([
    ["drop_table", "deny"],
    ["weather", "allow"],
  ]);
});
