import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type RunningProxy,
  toolwall as run,
  startToolServer,
  startToolwallProxy,
} from "../helpers/toolwall-cli.ts";
import { judgedTools, useFakeProvider } from "./fake-provider.ts";

const dir = mkdtempSync(join(tmpdir(), "toolwall-judge-"));
const { subtle, plain } = judgedTools;
const env = { ...process.env, JUDGE_KEY: "sk-test" };
const fake = useFakeProvider();
const toolwall = (...args: string[]) => run(args, env);

describe("toolwall scan --judge", () => {
  const tools = join(dir, "tools.json");
  writeFileSync(tools, JSON.stringify({ tools: [subtle, plain] }));
  const judge = (provider: string) => [
    "--judge",
    "--judge-provider",
    provider,
    "--judge-endpoint",
    fake().url,
    "--judge-model",
    "judge-1",
    "--judge-key-env",
    "JUDGE_KEY",
  ];

  it("reports what the rules missed and the model caught, asking once per definition", async () => {
    const { code, stdout } = await toolwall("scan", "--file", tools, "--output", "json", ...judge("Gemini"));
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as { tools: { name: string; findings: { rule: string }[] }[] };
    expect(report.tools.map((t) => [t.name, t.findings.map((f) => f.rule)])).toEqual([
      ["summarize_notes", ["judge.model-verdict"]],
      ["add", []],
    ]);
    expect(fake().calls.map((c) => c.path)).toEqual([
      "/v1beta/models/judge-1:generateContent",
      "/v1beta/models/judge-1:generateContent",
    ]);
  });

  it("fails closed when the judge fails, and names a missing key as a usage error", async () => {
    fake().behaviour.status = 500;
    const failed = await toolwall("scan", "--file", tools, "--output", "json", ...judge("OpenAI"));
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain("judge.unavailable");
    const noKey = await toolwall(
      "scan",
      "--file",
      tools,
      "--judge",
      "--judge-model",
      "m",
      "--judge-key-env",
      "NOT_SET_ANYWHERE",
    );
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("environment variable NOT_SET_ANYWHERE is missing or empty");
    expect(noKey.stderr).not.toContain("    at ");
  });
});

describe("toolwall proxy with spec.inspection.judge", () => {
  let upstream: Awaited<ReturnType<typeof startToolServer>>;
  let proxy: RunningProxy;

  beforeAll(async () => {
    upstream = await startToolServer("notes", [subtle, plain]);
    const policy = join(dir, "policy.yaml");
    writeFileSync(
      policy,
      `apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: judged, namespace: agents }
spec:
  mode: Enforce
  servers: [{ name: notes, transport: StreamableHTTP, url: "${upstream.url}" }]
  inspection:
    action: Block
    judge: { enabled: true, provider: Anthropic, endpoint: "${fake().url}", model: judge-1, apiKey: { env: JUDGE_KEY } }
`,
    );
    proxy = await startToolwallProxy(policy, env);
  });

  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  it("hides the tool the model judged malicious, audits the verdict, and asks nothing for an unchanged listing", async () => {
    const client = new Client({ name: "agent", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp/notes`)));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["add"]);
    expect(fake().calls).toHaveLength(2);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["add"]);
    expect(fake().calls).toHaveLength(2);
    await client.close();
    const deadline = Date.now() + 10_000;
    while (!proxy.stdout().includes("mcp_judge_verdict") && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const verdicts = proxy
      .stdout()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((e) => e.type === "mcp_judge_verdict");
    expect(verdicts.map((e) => [e.tool, e.verdict, e.action])).toEqual([
      ["summarize_notes", "malicious", "block"],
      ["add", "benign", "allow"],
    ]);
  });
});
