import { PassThrough } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Registry } from "prom-client";
import { openProxyState } from "../../src/dataplane/proxy-state.ts";
import { mcpRoute } from "../../src/dialects/mcp/route.ts";
import { PolicySet } from "../../src/policy/evaluate.ts";
import { parsePolicies } from "../../src/policy/load.ts";
import { startLocalProxy } from "../../src/runtime/local.ts";
import { type AuditEvent, JsonLineAuditSink } from "../../src/telemetry/audit.ts";

/**
 * One pod's MCP proxy for cross-pod tests: its own process state, caches and audit events, the
 * namespace `agents` shared with other pods through the redis-server at `redisUrl`, and an SDK
 * client connected to `/mcp/<server>`.
 */
export async function startPodProxy(options: {
  name: string;
  redisUrl: string;
  /** An MCPPolicy in namespace `agents` declaring `server`. */
  policyYaml: string;
  server: string;
  /** The state store's log lines ("state store unavailable" …); dropped by default. */
  log?: (line: string) => void;
  /** The state store's timeout; openProxyState's default when left out. */
  timeoutMs?: number;
}) {
  const { policies } = parsePolicies(options.policyYaml, "policy.yaml");
  const identity = { namespace: "agents", pod: options.name, session: options.name };
  const events: AuditEvent[] = [];
  const audit = new JsonLineAuditSink(new PassThrough().resume());
  audit.subscribe((event) => events.push(event));
  const state = await openProxyState({
    redisUrl: options.redisUrl,
    identity,
    audit,
    log: options.log ?? (() => {}),
    registry: new Registry(),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
  const proxy = await startLocalProxy({
    policies: PolicySet.fromDocuments(policies),
    audit,
    providers: [],
    listen: { host: "127.0.0.1", port: 0 },
    routes: [mcpRoute({ store: state.store, namespace: identity.namespace })],
    stateful: state.stateful,
    registry: state.registry,
    identity,
    log: () => {},
  });
  const client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp/${options.server}`)));
  return {
    url: proxy.url,
    state,
    events,
    client,
    async close() {
      await client.close();
      await proxy.close(1000);
      await state.close();
    },
  };
}
