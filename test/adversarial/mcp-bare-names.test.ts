/**
 * Issue 10, class 11: a bare tool name (`delete_repo`, no `mcp__github__` prefix) in an LLM response
 * was judged as a native tool unless this very process had seen the server's listing, so
 * server-scoped rules did not apply to stdio servers or after a restart. Now a name some declared
 * server could own is judged against every such server's rules until the registry knows better, and
 * the registry is shared through the state store (a real redis-server): what one pod listed, another
 * pod knows. The official Anthropic SDK reads the answers. Fails on main before the fix.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import Anthropic from "@anthropic-ai/sdk";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anthropicMessages } from "../../src/dialects/anthropic-messages/index.ts";
import { mcpRoute } from "../../src/dialects/mcp/route.ts";
import { PolicySet } from "../../src/policy/evaluate.ts";
import { parsePolicies } from "../../src/policy/load.ts";
import { SessionToolRegistry } from "../../src/registry/registry.ts";
import { type LocalProxy, startLocalProxy } from "../../src/runtime/local.ts";
import type { StateGuard } from "../../src/state/guard.ts";
import { openState } from "../../src/state/open.ts";
import { SharedSessionRegistry, StateGuardCheck } from "../../src/state/proxy-check.ts";
import { JsonLineAuditSink } from "../../src/telemetry/audit.ts";
import { RedisServer } from "../helpers/redis.ts";
import { type McpOrigin, startMcpOrigin } from "./mcp-origin.ts";

/** A model that answers every request with one call of the tool named in `x-tool`. */
async function startModel(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const body = JSON.stringify({
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-test",
        content: [{ type: "tool_use", id: "toolu_1", name: req.headers["x-tool"], input: { id: "x" } }],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe("bare MCP tool names are judged by every server that could own them", () => {
  let redis: RedisServer;
  let origin: McpOrigin;
  let model: { url: string; server: Server };
  let policyYaml: string;
  const pods: { proxy: LocalProxy; guard: StateGuard }[] = [];

  async function startPod(pod: string) {
    const guard = await openState({
      redisUrl: redis.url,
      registry: new Registry(),
      log: () => {},
      timeoutMs: 2000,
    });
    expect(await guard.store.waitUntilReachable(5000)).toBe(true);
    const identity = { namespace: "agents", pod, session: pod };
    const audit = new JsonLineAuditSink(new PassThrough().resume());
    const proxy = await startLocalProxy({
      policies: PolicySet.fromDocuments(parsePolicies(policyYaml, "bare.yaml").policies),
      audit,
      providers: [{ prefix: "/anthropic", upstream: new URL(model.url), dialects: [anthropicMessages] }],
      listen: { host: "127.0.0.1", port: 0 },
      routes: [mcpRoute({ store: guard.store, namespace: identity.namespace })],
      stateful: new StateGuardCheck(guard, audit),
      registry: new SharedSessionRegistry(new SessionToolRegistry(), guard, identity, () => {}),
      identity,
      log: () => {},
    });
    pods.push({ proxy, guard });
    return proxy;
  }

  /** What the agent's SDK ends up with when the model calls `tool` bare. */
  async function modelCalls(proxy: LocalProxy, tool: string): Promise<string> {
    const client = new Anthropic({ apiKey: "sk-ant-test", baseURL: `${proxy.url}/anthropic`, maxRetries: 0 });
    const message = await client.messages.create(
      { model: "claude-test", max_tokens: 10, messages: [{ role: "user", content: "go" }] },
      { headers: { "x-tool": tool } },
    );
    const block = message.content[0]!;
    return block.type === "tool_use" ? `call ${block.name}` : block.type === "text" ? block.text : block.type;
  }

  beforeAll(async () => {
    redis = await RedisServer.start();
    origin = await startMcpOrigin(["/github/mcp"]);
    model = await startModel();
    policyYaml = `
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: bare, namespace: agents }
spec:
  servers:
    - { name: github, transport: StreamableHTTP, url: "http://127.0.0.1:${origin.port}/github/mcp" }
    - { name: files, transport: Stdio, command: ["files-mcp"] }
  toolPolicy:
    rules:
      - { action: Deny, servers: [github], tools: [delete_repo, "create_*"], reason: github is read-only }
      - { action: Deny, servers: [files], tools: [wipe_disk], reason: disks stay }
`;
  });

  afterAll(async () => {
    for (const pod of pods) {
      await pod.proxy.close(1000);
      await pod.guard.close();
    }
    model?.server.close();
    await origin?.close();
    await redis?.dispose();
  });

  it("denies a bare name any server with unknown tools could own, and only then", async () => {
    const proxy = await startPod("pod-a");
    expect(await modelCalls(proxy, "delete_repo")).toContain("github is read-only");
    expect(await modelCalls(proxy, "create_branch")).toContain("github is read-only");
    expect(await modelCalls(proxy, "wipe_disk")).toContain("disks stay");
    expect(await modelCalls(proxy, "Bash")).toBe("call Bash");
  });

  it("knows better once a listing is seen, in this pod and in another one through the store", async () => {
    const podA = pods[0]!.proxy;
    const client = new Client({ name: "agent", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${podA.url}/mcp/github`)));
    const { tools } = await client.listTools();
    await client.close();
    expect(tools.map((t) => t.name)).toEqual(["read_note"]);
    // github lists no create_branch: not github's; files' rules do not deny it.
    expect(await modelCalls(podA, "create_branch")).toBe("call create_branch");
    expect(await modelCalls(podA, "delete_repo")).toContain("github is read-only");
    // A pod that never listed github learns it from the store.
    await new Promise((r) => setTimeout(r, 200));
    const podB = await startPod("pod-b");
    expect(await modelCalls(podB, "create_branch")).toBe("call create_branch");
    expect(await modelCalls(podB, "delete_repo")).toContain("github is read-only");
    expect(await modelCalls(podB, "wipe_disk")).toContain("disks stay");
  });
});
