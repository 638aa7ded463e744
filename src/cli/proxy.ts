import { llmLimitUsage, parseLlmLimits } from "../codecs/framing.ts";
import { ADMIN_PORT } from "../kernel/mesh.ts";
import type { Command } from "./args.ts";
import { addressFlag, stringList, UsageError } from "./args.ts";

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
  usage: `Usage: toolwall proxy -f POLICY.yaml… [--listen 127.0.0.1:15002] [--admin 127.0.0.1:${ADMIN_PORT}]
                      [--upstream anthropic=URL] [--upstream openai=URL] [--upstream gemini=URL]
                      [--redis URL] [--state-timeout 50ms] [--llm-limit [DIALECT.]NAME=VALUE]…
                      [--ca-dir DIR [--resolve NAME=IP]… [--extra-ca FILE]…]

MCP: /mcp/<server>[/…] → spec.servers[<server>].url (Streamable HTTP and legacy SSE).
Routes: /anthropic/… → Anthropic (https://api.anthropic.com), /openai/… → OpenAI
(https://api.openai.com), /gemini/… → Gemini (https://generativelanguage.googleapis.com).
Point an SDK's base URL at http://LISTEN/anthropic (Anthropic), http://LISTEN/openai/v1 (OpenAI),
http://LISTEN/gemini (Gemini). Everything after the prefix goes upstream with its headers (API keys
pass through and are never logged). Tool calls in responses are judged by the policies, streaming
or not; blocked calls reach the client as text.

Audit events: JSON lines on stdout. Diagnostics: stderr. Admin: /healthz, /readyz, /metrics.
SIGTERM/SIGINT: stop accepting, let open streams finish (30 s at most), exit.
--redis: shared state (rate limits, cross-server windows, pins, tool definitions' inspection
findings, the audit stream) in Redis:
redis://HOST:PORT, redis+sentinel://H:P,H:P/MASTER or redis+cluster://H:P,H:P. Without it, state
lives in this process. When Redis does not answer within --state-timeout, each policy's
onStateUnavailable applies until it answers again.

Explicit mode (--ca-dir DIR): the same listener is also a forward proxy, so an agent started with
HTTPS_PROXY=http://LISTEN and HTTP_PROXY=http://LISTEN, trusting DIR/ca.crt (NODE_EXTRA_CA_CERTS) or
DIR/ca-bundle.pem (SSL_CERT_FILE, REQUESTS_CA_BUNDLE, curl --cacert), is intercepted as in a pod
(Node agents also need NODE_USE_ENV_PROXY=1: without it Node ignores HTTPS_PROXY; the proxy prints
the whole environment when it starts):
LLM providers, declared MCP servers and egress.inspect hosts are TLS-terminated and judged, other
hosts tunnelled or denied by the policies' egress rules. The CA is generated on first start and kept
in DIR (ca.key mode 0600, ca.crt, ca-bundle.pem) so it is trusted once.
--resolve NAME=IP[,IP…]: resolve NAME to IP (like curl's). --extra-ca FILE: extra upstream roots.
${llmLimitUsage}`,
  options: {
    file: { type: "string", short: "f", multiple: true },
    listen: { type: "string", default: "127.0.0.1:15002" },
    admin: { type: "string", default: `127.0.0.1:${ADMIN_PORT}` },
    upstream: { type: "string", multiple: true },
    redis: { type: "string" },
    "state-timeout": { type: "string", default: "50ms" },
    "ca-dir": { type: "string" },
    resolve: { type: "string", multiple: true },
    "extra-ca": { type: "string", multiple: true },
    "llm-limit": { type: "string", multiple: true },
  },
  async run(values, positionals) {
    const files = [...stringList(values, "file"), ...positionals];
    if (files.length === 0) throw new UsageError("at least one -f POLICY.yaml is required");
    const listen = addressFlag("listen", values.listen as string, "127.0.0.1");
    const admin = addressFlag("admin", values.admin as string, "127.0.0.1");
    const upstreams = parseUpstreams(stringList(values, "upstream"));
    const redis = values.redis as string | undefined;
    if (redis !== undefined && !URL.canParse(redis)) throw new UsageError(`--redis: not a URL: '${redis}'`);
    const { loadPolicyFiles, PolicyLoadError, formatProblem } = await import("../policy/load.ts");
    const { PolicySet } = await import("../policy/evaluate.ts");
    const { JsonLineAuditSink } = await import("../telemetry/audit.ts");
    const { startLocalProxy } = await import("../runtime/local.ts");
    const { providerRoutes } = await import("../dialects/providers.ts");
    const { parseDuration } = await import("../kernel/duration.ts");
    let stateTimeoutMs: number;
    try {
      stateTimeoutMs = parseDuration(values["state-timeout"] as string);
    } catch (error) {
      throw new UsageError(`--state-timeout: ${(error as Error).message}`);
    }
    if (stateTimeoutMs < 1) throw new UsageError("--state-timeout: at least 1ms");
    let llm: ReturnType<typeof parseLlmLimits>;
    try {
      llm = parseLlmLimits(stringList(values, "llm-limit"));
    } catch (error) {
      throw new UsageError(`--llm-limit: ${(error as Error).message}`);
    }
    const caDir = values["ca-dir"] as string | undefined;
    const resolve = stringList(values, "resolve");
    const extraCaFiles = stringList(values, "extra-ca");
    if (caDir === undefined && resolve.length + extraCaFiles.length > 0) {
      throw new UsageError("--resolve and --extra-ca need explicit mode (--ca-dir DIR)");
    }
    let policies: InstanceType<typeof PolicySet>;
    let documents: ReturnType<typeof loadPolicyFiles>;
    try {
      documents = loadPolicyFiles(files);
      policies = PolicySet.fromDocuments(documents);
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
    const explicit =
      caDir === undefined
        ? undefined
        : await (await import("../dataplane/explicit-mode.ts")).explicitModeSetup({
            caDir,
            resolve,
            extraCaFiles,
            log,
          });
    let running: Awaited<ReturnType<typeof startLocalProxy>>;
    try {
      running = await startLocalProxy({
        policies,
        audit: new JsonLineAuditSink(process.stdout),
        providers: routes,
        listen,
        admin,
        state: { ...(redis ? { redisUrl: redis } : {}), timeoutMs: stateTimeoutMs },
        mcp: true,
        log,
        llm,
        ...(explicit ? { upstream: explicit.upstream, explicit: explicit.explicit } : {}),
      });
    } catch (error) {
      log(`toolwall proxy: ${(error as Error).message}`);
      setTimeout(() => process.exit(1), 1000).unref();
      return 1;
    }
    log(
      `toolwall proxy: listening on ${running.url} (${routes.map((r) => `${r.prefix} → ${r.upstream.origin}`).join(", ")}); admin on http://${admin.host}:${running.adminAddress?.port}; ${policies.policies.length} polic${policies.policies.length === 1 ? "y" : "ies"}; state in ${redis ? "Redis" : "memory"}`,
    );
    if (explicit) {
      const { agentEnvironment } = await import("../dataplane/explicit-mode.ts");
      const environment = Object.entries(agentEnvironment(running.url, explicit.trust));
      log(
        `toolwall proxy: start the agent with ${environment.map(([name, value]) => `${name}=${value}`).join(" ")} (Node ignores HTTPS_PROXY without NODE_USE_ENV_PROXY=1 and would bypass Toolwall)`,
      );
    }
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        log(`toolwall proxy: ${signal}: draining ${running.proxy.openRequests} open request(s)`);
        resolve();
      };
      process.once("SIGTERM", () => stop("SIGTERM"));
      process.once("SIGINT", () => stop("SIGINT"));
    });
    // 28 s plus at most 1 s to close the rest: out before a 30 s grace period ends.
    await running.close(28_000);
    log("toolwall proxy: stopped");
    // The documented drain is 30 s: a handle something left open (a socket, a client) must not
    // keep the process past it. Unreferenced, the timer fires only if the process would not exit.
    setTimeout(() => process.exit(), 1000).unref();
    return 0;
  },
};

export const proxyCommands: Command[] = [proxy];
