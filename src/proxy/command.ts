import type { Command } from "../cli/args.ts";
import { stringList, UsageError } from "../cli/args.ts";

/** `host:port`, `[v6]:port` or `:port` (loopback). */
export function parseHostPort(flag: string, text: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port > 65535) throw new UsageError(`--${flag}: expected HOST:PORT, got '${text}'`);
  return { host: match[1] ?? (match[2] || "127.0.0.1"), port };
}

export function parseUpstreams(values: string[]): Record<string, string> {
  const upstreams: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf("=");
    const name = value.slice(0, at);
    const url = value.slice(at + 1);
    if (at <= 0 || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new UsageError(`--upstream: expected PROVIDER=http(s)://…, got '${value}'`);
    }
    upstreams[name] = url;
  }
  return upstreams;
}

const proxy: Command = {
  path: ["proxy"],
  summary: "run the LLM/MCP proxy locally: base-URL routes, policy from files",
  usage: `Usage: toolwall proxy -f POLICY.yaml… [--listen 127.0.0.1:15002] [--admin 127.0.0.1:15020]
                      [--upstream anthropic=URL] [--upstream openai=URL] [--upstream gemini=URL]
                      [--redis URL] [--state-timeout 50ms]

MCP: /mcp/<server>[/…] → spec.servers[<server>].url (Streamable HTTP and legacy SSE).
Routes: /anthropic/… → Anthropic (https://api.anthropic.com), /openai/… → OpenAI
(https://api.openai.com), /gemini/… → Gemini (https://generativelanguage.googleapis.com).
Point an SDK's base URL at http://LISTEN/anthropic (Anthropic), http://LISTEN/openai/v1 (OpenAI),
http://LISTEN/gemini (Gemini). Everything after the prefix goes upstream with its headers (API keys
pass through and are never logged). Tool calls in responses are judged by the policies, streaming
or not; blocked calls reach the client as text.

Audit events: JSON lines on stdout. Diagnostics: stderr. Admin: /healthz, /readyz, /metrics.
SIGTERM/SIGINT: stop accepting, let open streams finish (30 s at most), exit.
--redis: shared state (rate limits, cross-server windows, pins, the audit stream) in Redis:
redis://HOST:PORT, redis+sentinel://H:P,H:P/MASTER or redis+cluster://H:P,H:P. Without it, state
lives in this process. When Redis does not answer within --state-timeout, each policy's
onStateUnavailable applies until it answers again.`,
  options: {
    file: { type: "string", short: "f", multiple: true },
    listen: { type: "string", default: "127.0.0.1:15002" },
    admin: { type: "string", default: "127.0.0.1:15020" },
    upstream: { type: "string", multiple: true },
    redis: { type: "string" },
    "state-timeout": { type: "string", default: "50ms" },
  },
  async run(values, positionals) {
    const files = [...stringList(values, "file"), ...positionals];
    if (files.length === 0) throw new UsageError("at least one -f POLICY.yaml is required");
    const listen = parseHostPort("listen", values.listen as string);
    const admin = parseHostPort("admin", values.admin as string);
    const upstreams = parseUpstreams(stringList(values, "upstream"));
    const redis = values.redis as string | undefined;
    if (redis !== undefined) {
      const { parseRedisUrl } = await import("../state/redis.ts");
      try {
        parseRedisUrl(redis);
      } catch (error) {
        throw new UsageError(`--redis: ${(error as Error).message}`);
      }
    }
    const { loadPolicyFiles, PolicyLoadError, formatProblem } = await import("../policy/load.ts");
    const { PolicySet } = await import("../policy/evaluate.ts");
    const { JsonLineAuditSink } = await import("../telemetry/audit.ts");
    const { startLocalProxy } = await import("./local.ts");
    const { providerRoutes } = await import("./providers.ts");
    const { mcpRoute } = await import("../dialects/mcp/route.ts");
    const { openProxyState } = await import("../state/proxy-state.ts");
    const { parseDuration } = await import("../analyzer/duration.ts");
    let stateTimeoutMs: number;
    try {
      stateTimeoutMs = parseDuration(values["state-timeout"] as string);
    } catch (error) {
      throw new UsageError(`--state-timeout: ${(error as Error).message}`);
    }
    if (stateTimeoutMs < 1) throw new UsageError("--state-timeout: at least 1ms");
    const { localIdentity } = await import("./local.ts");
    let policies: InstanceType<typeof PolicySet>;
    try {
      policies = PolicySet.fromDocuments(loadPolicyFiles(files));
    } catch (error) {
      if (!(error instanceof PolicyLoadError)) throw error;
      for (const problem of error.problems) process.stderr.write(`${formatProblem(problem)}\n`);
      return 2;
    }
    let routes: ReturnType<typeof providerRoutes>;
    try {
      routes = providerRoutes(upstreams);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const log = (message: string) => process.stderr.write(`${message}\n`);
    const identity = localIdentity();
    const audit = new JsonLineAuditSink(process.stdout);
    const state = await openProxyState({
      identity,
      audit,
      log,
      timeoutMs: stateTimeoutMs,
      ...(redis !== undefined ? { redisUrl: redis } : {}),
    });
    const running = await startLocalProxy({
      policies,
      audit,
      providers: routes,
      routes: [mcpRoute({ store: state.store })],
      stateful: state.stateful,
      registry: state.registry,
      identity,
      listen,
      admin,
      log,
    });
    log(
      `toolwall proxy: listening on ${running.url} (${routes.map((r) => `${r.prefix} → ${r.upstream.origin}`).join(", ")}); admin on http://${admin.host}:${running.adminAddress?.port}; ${policies.policies.length} polic${policies.policies.length === 1 ? "y" : "ies"}`,
    );
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        log(`toolwall proxy: ${signal}: draining ${running.proxy.openRequests} open request(s)`);
        resolve();
      };
      process.once("SIGTERM", () => stop("SIGTERM"));
      process.once("SIGINT", () => stop("SIGINT"));
    });
    await running.close(30_000);
    await state.close();
    log("toolwall proxy: stopped");
    return 0;
  },
};

export const proxyCommands: Command[] = [proxy];
