import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testPolicy } from "../dialects/harness.ts";
import { type ReplayServer, startReplayServer } from "../helpers/replay.ts";

let replay: ReplayServer;
let child: ChildProcess;
let proxyUrl = "";
let adminUrl = "";
let stdout = "";
let stderr = "";

function waitFor(predicate: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (predicate()) resolve();
      else if (Date.now() > deadline) reject(new Error(`timed out waiting for ${what}; stderr: ${stderr}`));
      else setTimeout(tick, 20);
    };
    tick();
  });
}

beforeAll(async () => {
  replay = await startReplayServer();
  const policyFile = join(tmpdir(), `toolwall-proxy-test-${process.pid}.yaml`);
  writeFileSync(policyFile, testPolicy);
  child = spawn(
    process.execPath,
    [
      "bin/toolwall.js",
      "proxy",
      "-f",
      policyFile,
      "--listen",
      "127.0.0.1:0",
      "--admin",
      "127.0.0.1:0",
      "--upstream",
      `anthropic=${replay.url}`,
      "--upstream",
      `openai=${replay.url}`,
      "--upstream",
      `gemini=${replay.url}`,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await waitFor(() => /admin on http:\/\/\S+:\d+/.test(stderr), "the proxy to listen");
  proxyUrl = /listening on (http:\/\/\S+:\d+)/.exec(stderr)![1]!;
  adminUrl = /admin on (http:\/\/\S+:\d+)/.exec(stderr)![1]!;
});

afterAll(async () => {
  if (child.exitCode === null) child.kill("SIGKILL");
  await replay.close();
});

const anthropicBody = JSON.stringify({
  model: "claude-sonnet-4-5",
  max_tokens: 100,
  stream: true,
  tools: [{ name: "delete_file", input_schema: { type: "object" } }],
  messages: [{ role: "user", content: "hi" }],
});

describe("toolwall proxy (the command, as a child process)", () => {
  it("serves /healthz and /readyz", async () => {
    expect((await fetch(`${adminUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${adminUrl}/readyz`)).status).toBe(200);
  });

  it("writes audit events as JSON lines on stdout, never the API key, and counts them in /metrics", async () => {
    const response = await fetch(`${proxyUrl}/anthropic/v1/messages`, {
      method: "POST",
      headers: {
        "x-api-key": "sk-ant-api03-secretsecretsecret",
        "x-fixture": "anthropic-messages/blocked-name.sse",
      },
      body: anthropicBody,
    });
    expect(await response.text()).toContain("was blocked by policy");
    await waitFor(() => stdout.includes("tool_call_intercepted"), "an audit line");
    const event = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
    expect(event).toMatchObject({ type: "tool_call_intercepted", tool: "delete_file", action: "deny" });
    expect(stdout + stderr).not.toContain("secretsecret");
    const metrics = await (await fetch(`${adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/toolwall_tool_calls_total\{[^}]*action="deny"[^}]*\} 1/);
    expect(metrics).toContain("toolwall_decision_duration_seconds_bucket");
    expect(metrics).toContain("toolwall_rate_limited_total");
  });

  it("mounts the MCP dialect at /mcp/<server>", async () => {
    const response = await fetch(`${proxyUrl}/mcp/nowhere`, { method: "POST", body: "{}" });
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("not declared");
  });

  it("on SIGTERM lets an open stream finish, then exits 0", async () => {
    const response = await fetch(`${proxyUrl}/anthropic/v1/messages`, {
      method: "POST",
      headers: {
        "x-fixture": "anthropic-messages/text-only.sse",
        "x-cut": "100,200,300,400,500,600,700,800",
        "x-delay-ms": "60",
      },
      body: anthropicBody,
    });
    const reader = response.body!.getReader();
    const first = await reader.read();
    child.kill("SIGTERM");
    let text = Buffer.from(first.value!).toString();
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      text += Buffer.from(part.value).toString();
    }
    expect(text).toContain("message_stop");
    await waitFor(() => child.exitCode !== null, "the proxy to exit");
    expect(child.exitCode).toBe(0);
  });
});
