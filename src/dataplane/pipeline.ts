/**
 * Inspected connections into the proxy pipeline: an LLM provider host goes to that provider's
 * dialects (llmRoute against https://<name>:<port>), a declared MCP server to the MCP dialect's
 * route for that server, any other inspected host is relayed untouched (but visible to audit).
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isIP } from "node:net";
import { anthropicMessages } from "../dialects/anthropic-messages/index.ts";
import { gemini } from "../dialects/gemini/index.ts";
import { McpRouteError, normalisePath, serverBase } from "../dialects/mcp/routing.ts";
import { openaiChat } from "../dialects/openai-chat/index.ts";
import { openaiResponses } from "../dialects/openai-responses/index.ts";
import { builtinProviderHosts } from "../dialects/providers.ts";
import type { LlmDialect } from "../engine/dialect.ts";
import { type ProxyContext, type RouteHandler, sendToolwallError } from "../net/server.ts";
import type { PolicyDocument } from "../policy/types.ts";
import { type EgressPolicy, hostPattern, matchesHost } from "./egress.ts";
import type { RequestHandler } from "./forward.ts";
import { type LlmRouteOptions, llmRoute } from "./llm-route.ts";

const DIALECTS_BY_NAME: Record<string, readonly LlmDialect[]> = {
  AnthropicMessages: [anthropicMessages],
  OpenAIChat: [openaiChat],
  OpenAIResponses: [openaiResponses],
  Gemini: [gemini],
};

export interface PipelineOptions {
  context: ProxyContext;
  /** The routes of the current policy set, compiled once with it (see RouteTable). */
  routes: () => RouteTable;
  /** The egress rules of the same policy set (a path outside every declared MCP server is held to them). */
  egress: () => EgressPolicy;
  /** The MCP dialect's route handler (mounted at /mcp in local mode). */
  mcp?: RouteHandler;
  /** Bounds on LLM responses (`--llm-limit`; defaults: src/codecs/framing.ts). */
  llm?: LlmRouteOptions;
}

type HostFacts = Parameters<typeof matchesHost>[1];

interface DeclaredMcpServer {
  name: string;
  url: URL;
  scheme: string;
  host: ReturnType<typeof hostPattern>;
  /** serverBase(url), lower case: what `/<rest>` under the server may address. */
  base: string;
  /** url.pathname, lower case. */
  path: string;
  failClosed: boolean;
}

/**
 * Where inspected requests go, compiled once per policy set (beside its EgressPolicy): the LLM
 * providers with their dialects (built-in first) and the declared MCP servers with their parsed URLs,
 * host patterns and base paths. A request is then only looked up, never compiled or parsed again.
 */
export class RouteTable {
  readonly #llm: { host: ReturnType<typeof hostPattern>; dialects: readonly LlmDialect[] }[];
  readonly #mcp: DeclaredMcpServer[];

  constructor(policies: readonly PolicyDocument[]) {
    this.#llm = [
      ...builtinProviderHosts.map((provider) => ({
        host: hostPattern(provider.host),
        dialects: provider.dialects,
      })),
      ...policies.flatMap((policy) =>
        (policy.spec.llm?.providers ?? []).flatMap((provider) => {
          const dialects = DIALECTS_BY_NAME[provider.dialect];
          return dialects ? [{ host: hostPattern(provider.host), dialects }] : [];
        }),
      ),
    ];
    this.#mcp = policies.flatMap((policy) =>
      (policy.spec.servers ?? []).flatMap((server) => {
        if (!server.url || !URL.canParse(server.url)) return [];
        const url = new URL(server.url);
        const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
        return [
          {
            name: server.name,
            url,
            scheme: url.protocol,
            host: hostPattern(`${url.hostname}:${port}`),
            base: serverBase(url).toLowerCase(),
            path: url.pathname.toLowerCase(),
            failClosed: policy.spec.failClosed === true,
          },
        ];
      }),
    );
  }

  /** The dialects spoken at a host (by name, or by address for a provider declared by address). */
  llmDialects(facts: HostFacts): readonly LlmDialect[] | undefined {
    return this.#llm.find((provider) => matchesHost([provider.host], facts))?.dialects;
  }

  /**
   * The declared MCP server a request on an inspected connection is for: among every server declared
   * on the connection's origin (scheme, port, and host compared in canonical spelling or by address),
   * the one with the longest base path holding the normalised request path, compared without case so
   * that no spelling the origin may accept escapes judgement. Undefined when no server is declared on
   * the origin. Throws McpRouteError for paths that cannot be read one way only, or that two servers
   * could own.
   */
  mcp(tls: boolean, facts: HostFacts, pathname: string): McpRouting | undefined {
    const scheme = tls ? "https:" : "http:";
    const onOrigin = this.#mcp.filter(
      (server) => server.scheme === scheme && matchesHost([server.host], facts),
    );
    if (onOrigin.length === 0) return undefined;
    const failClosed = onOrigin.some((server) => server.failClosed);
    const path = normalisePath(pathname).toLowerCase();
    let best: { server: DeclaredMcpServer; exact: boolean }[] = [];
    for (const server of onOrigin) {
      const exact = path === server.path;
      if (!exact && !path.startsWith(server.base)) continue;
      const current = best[0];
      const longer = !current || server.base.length > current.server.base.length || (exact && !current.exact);
      if (longer) best = [{ server, exact }];
      else if (
        server.base.length === current.server.base.length &&
        exact === current.exact &&
        current.server.name !== server.name
      )
        best.push({ server, exact });
    }
    const owner = best[0];
    if (!owner) return { kind: "outside", failClosed, servers: onOrigin.map((s) => s.name) };
    if (best.length > 1) {
      throw new McpRouteError(
        403,
        `path ${pathname} could belong to MCP servers ${best.map((s) => `'${s.server.name}'`).join(" and ")}; refused`,
      );
    }
    const name = `/${encodeURIComponent(owner.server.name)}`;
    return {
      kind: "server",
      server: owner.server.name,
      path: owner.exact ? name : `${name}/${normalisePath(pathname).slice(owner.server.base.length)}`,
    };
  }
}

/** Where a request to an origin with declared MCP servers goes. */
export type McpRouting =
  /** `path` is the MCP route's path for the server that owns the request path. */
  | { kind: "server"; server: string; path: string }
  /** The path is under no declared server's base; `failClosed` when an applicable policy says so. */
  | { kind: "outside"; failClosed: boolean; servers: string[] };

/** One request of an inspected connection (or an explicit proxy's absolute-form request) into the pipeline. */
export function pipelineRequestHandler(options: PipelineOptions): RequestHandler {
  const llmRoutes = new Map<string, RouteHandler>();
  return async (request, response, connection) => {
    const req = request as IncomingMessage;
    const res = response as ServerResponse;
    if (connection.alpn === "h2") {
      // HTTP/2 pseudo-headers (:method, :path…) describe this hop only and must not go upstream as
      // headers; the compat request reads method and url from them, so pin those first.
      Object.defineProperty(req, "method", { value: req.method });
      Object.defineProperty(req, "url", { value: req.url });
      for (const name of Object.keys(req.headers)) if (name.startsWith(":")) delete req.headers[name];
    }
    const url = req.url ?? "/";
    const queryAt = url.indexOf("?");
    const pathname = queryAt < 0 ? url : url.slice(0, queryAt);
    const search = queryAt < 0 ? "" : url.slice(queryAt);
    const host = isIP(connection.serverName) === 6 ? `[${connection.serverName}]` : connection.serverName;
    const origin = `${connection.tls ? "https" : "http"}://${host}:${connection.port}`;
    const abort = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) abort.abort(new Error("client disconnected"));
    });
    const routes = options.routes();
    const facts = {
      name: connection.serverName,
      port: connection.port,
      address: connection.originalDestination.address,
    };
    const dialects = routes.llmDialects(facts);
    let mcp: McpRouting | undefined;
    try {
      mcp = dialects ? undefined : routes.mcp(connection.tls, facts, pathname);
    } catch (error) {
      if (!(error instanceof McpRouteError)) throw error;
      return sendToolwallError(res, error.status, error.message);
    }
    if (mcp?.kind === "outside" && mcp.failClosed) {
      return sendToolwallError(
        res,
        403,
        `${pathname} is outside every MCP server declared on ${origin} (${mcp.servers.join(", ")}); refused (failClosed)`,
      );
    }
    if (mcp?.kind === "outside") {
      // The connection was let in because MCP servers are declared on the origin; a path none of
      // them owns is another destination, held to the egress rules as if nothing were declared.
      const decision = options.egress().classify(
        {
          name: connection.serverName,
          port: connection.port,
          address: connection.originalDestination.address,
          protocol: connection.tls ? "tls" : "http",
        },
        { ignoreMcpServers: true },
      );
      if (decision.verdict === "deny") {
        const { namespace, pod } = options.context.identity;
        options.context.audit.emit({
          type: "network_connection",
          timestamp: new Date().toISOString(),
          namespace,
          pod,
          requestId: randomUUID(),
          action: "deny",
          reason: `${pathname} is outside every declared MCP server: ${decision.reason}`,
          rule: decision.rule,
          mode: decision.mode,
          verdict: "deny",
          category: decision.category,
          host: connection.serverName,
          destination: origin,
          protocol: connection.tls ? "tls" : "http",
        });
        options.context.log(
          `toolwall sidecar: ${req.method} ${origin}${pathname}: outside every declared MCP server, denied by ${decision.rule}`,
        );
        return sendToolwallError(
          res,
          403,
          `${pathname} is outside every MCP server declared on ${origin} (${mcp.servers.join(", ")}) and the egress rules deny it: ${decision.reason} (${decision.rule})`,
        );
      }
    }
    let handler: RouteHandler;
    let path = pathname;
    if (dialects) {
      handler = llmRoutes.get(origin) ?? llmRoute(new URL(origin), dialects, options.llm);
      llmRoutes.set(origin, handler);
    } else if (mcp?.kind === "server") {
      if (!options.mcp)
        return sendToolwallError(res, 403, `MCP server '${mcp.server}' cannot be judged here; refused`);
      handler = options.mcp;
      path = mcp.path;
    } else {
      handler = (rq, rs, route) => route.context.upstream.relay(rq, rs, new URL(origin + url), route.signal);
    }
    try {
      await handler(req, res, {
        context: options.context,
        prefix: "",
        path,
        search,
        requestId: randomUUID(),
        signal: abort.signal,
      });
    } catch (error) {
      if (abort.signal.aborted) return;
      options.context.log(
        `toolwall sidecar: ${req.method} ${origin}${pathname}: ${(error as Error).message}`,
      );
      if (res.headersSent) {
        res.destroy();
      } else {
        sendToolwallError(res, 502, `upstream failed: ${(error as Error).message}`);
      }
    }
  };
}
