import { type ChildProcess, execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { CoreV1Api, RbacAuthorizationV1Api } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedis, RedisStore } from "../../src/state/redis.ts";
import type { AuditEventType } from "../../src/telemetry/audit.ts";
import { freePort, RedisServer, skipWithoutRedis } from "../helpers/redis.ts";
import {
  CONTROL_PLANE_TIMEOUT_MS,
  controlPlane,
  describeWithControlPlane,
  kubeConfig,
  kubectl,
} from "../k8s/cluster.ts";
import type { ControlPlaneInfo } from "../k8s/global-setup.ts";

/*
 * `toolwall controller --redis` against the real kube-apiserver of the shared test control plane and a
 * real redis-server: GET /v1/events is readable by whoever may list MCPPolicies in the namespace.
 */

const run = promisify(execFile);
const bin = new URL("../../bin/toolwall.js", import.meta.url).pathname;
const allowed = "evt-allowed";
const forbidden = "evt-forbidden";
const system = "evt-system";
const skipRedis = skipWithoutRedis();
const describeBoth = skipRedis ? describe.skip : describeWithControlPlane;

async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  detail = () => "",
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${detail()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function event(type: AuditEventType, tool: string, action: string, namespace: string) {
  return {
    type,
    timestamp: new Date().toISOString(),
    namespace,
    pod: "research-0",
    server: "github",
    tool,
    action,
  };
}

describeBoth("the controller's audit query API on a real API server and Redis", () => {
  let plane: ControlPlaneInfo;
  let redis: RedisServer;
  let controller: ChildProcess;
  const controllerLog: string[] = [];
  let url: string;
  let token: string;

  const logged = () => `; controller log:\n${controllerLog.join("")}`;
  const get = (query: string, bearer?: string) =>
    fetch(`${url}/v1/events?${query}`, bearer ? { headers: { authorization: `Bearer ${bearer}` } } : {});

  beforeAll(async () => {
    plane = await controlPlane();
    redis = await RedisServer.start();
    const store = new RedisStore(connectRedis(redis.url));
    await eventually("redis client ready", async () => (store.client.status === "ready" ? true : undefined));
    store.appendAudit(allowed, event("mcp_tool_called", "get_issue", "allow", allowed));
    store.appendAudit(allowed, event("mcp_cross_server_blocked", "send_email", "deny", allowed));
    store.appendAudit(allowed, event("mcp_tool_called", "delete_repo", "deny", allowed));
    store.appendAudit(forbidden, event("mcp_tool_called", "get_secret", "allow", forbidden));
    await store.flush();
    await store.close();

    const config = kubeConfig(plane);
    const core = config.makeApiClient(CoreV1Api);
    const rbac = config.makeApiClient(RbacAuthorizationV1Api);
    for (const name of [allowed, forbidden, system])
      await core.createNamespace({ body: { metadata: { name } } });
    await core.createNamespacedServiceAccount({
      namespace: allowed,
      body: { metadata: { name: "auditor" } },
    });
    await rbac.createNamespacedRole({
      namespace: allowed,
      body: {
        metadata: { name: "policy-reader" },
        rules: [{ apiGroups: ["toolwall.io"], resources: ["mcppolicies"], verbs: ["list"] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: allowed,
      body: {
        metadata: { name: "auditor-reads-policies" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "policy-reader" },
        subjects: [{ kind: "ServiceAccount", name: "auditor", namespace: allowed }],
      },
    });
    const request = await core.createNamespacedServiceAccountToken({
      namespace: allowed,
      name: "auditor",
      body: { spec: { expirationSeconds: 3600 } },
    });
    token = request.status!.token!;

    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    controller = spawn(
      process.execPath,
      [bin, "controller", "--kubeconfig", plane.kubeconfigPath, "--listen", `127.0.0.1:${port}`],
      {
        stdio: ["ignore", "ignore", "pipe"],
        env: { ...process.env, POD_NAMESPACE: system, TOOLWALL_REDIS_URL: redis.url },
      },
    );
    controller.stderr!.on("data", (chunk: Buffer) => controllerLog.push(chunk.toString()));
    await eventually(
      "controller listening",
      async () => ((await fetch(`${url}/healthz`)).ok ? true : undefined),
      logged,
    );
  }, CONTROL_PLANE_TIMEOUT_MS);

  afterAll(async () => {
    controller?.kill("SIGKILL");
    await redis?.dispose();
    if (plane) await kubectl(plane, ["delete", "namespace", allowed, forbidden, system, "--wait=false"]);
  });

  it("answers 200 with the namespace's events, newest first, to a token that may list its MCPPolicies", async () => {
    // RBAC objects reach the API server's authorizer through its informer, a moment after creation.
    const response = await eventually(
      "200 for the allowed namespace",
      async () => {
        const answer = await get(`namespace=${allowed}`, token);
        return answer.status === 200 ? answer : undefined;
      },
      logged,
    );
    const { events } = (await response.json()) as {
      events: { event: { namespace: string; tool: string } }[];
    };
    expect(events.map((e) => e.event.tool)).toEqual(["delete_repo", "send_email", "get_issue"]);
    expect(new Set(events.map((e) => e.event.namespace))).toEqual(new Set([allowed]));
  });

  it("answers 403 for a namespace the token may not list policies in, or no namespace at all", async () => {
    const other = await get(`namespace=${forbidden}`, token);
    expect(other.status).toBe(403);
    expect(((await other.json()) as { error: string }).error).toMatch(
      `not allowed to list mcppolicies.toolwall.io in namespace ${forbidden}`,
    );
    expect((await get("type=mcp_tool_called", token)).status).toBe(403);
  });

  it("answers 401 without a token and for a token the API server rejects", async () => {
    expect((await get(`namespace=${allowed}`)).status).toBe(401);
    expect((await get(`namespace=${allowed}`, "not-a-token")).status).toBe(401);
  });

  it("`toolwall calls --output json` prints the namespace's tool calls oldest first", async () => {
    const { stdout } = await run(
      process.execPath,
      [bin, "calls", "--server", url, "--token", token, "-n", allowed, "--output", "json"],
      { timeout: 20_000 },
    );
    const lines = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { tool: string; action: string; namespace: string });
    expect(lines.map((l) => [l.tool, l.action])).toEqual([
      ["get_issue", "allow"],
      ["delete_repo", "deny"],
    ]);
  }, 30_000);

  it("answers 503, not an empty list, while Redis is down", async () => {
    await redis.stop();
    const response = await get(`namespace=${allowed}`, token);
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: string }).error).toMatch(/audit stream unavailable/);
  });
});
