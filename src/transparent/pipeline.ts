/**
 * Inspected connections into the proxy pipeline: an LLM provider host goes to that provider's
 * dialects (llmRoute against https://<name>:<port>), a declared MCP server to the MCP dialect's
 * route for that server, any other inspected host is relayed untouched (but visible to audit).
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { anthropicMessages } from "../dialects/anthropic-messages/index.ts";
import { gemini } from "../dialects/gemini/index.ts";
import { openaiChat } from "../dialects/openai-chat/index.ts";
import { openaiResponses } from "../dialects/openai-responses/index.ts";
import type { PolicyDocument } from "../policy/types.ts";
import type { LlmDialect } from "../proxy/dialect.ts";
import { type LlmRouteOptions, llmRoute } from "../proxy/llm-route.ts";
import { builtinProviderHosts } from "../proxy/providers.ts";
import type { ProxyContext, RouteHandler } from "../proxy/server.ts";
import { hostPattern } from "./egress.ts";
import type { RequestHandler } from "./forward.ts";
import type { InspectedConnection } from "./listener.ts";

const DIALECTS_BY_NAME: Record<string, readonly LlmDialect[]> = {
  AnthropicMessages: [anthropicMessages],
  OpenAIChat: [openaiChat],
  OpenAIResponses: [openaiResponses],
  Gemini: [gemini],
};

export interface PipelineOptions {
  context: ProxyContext;
  policies: () => readonly PolicyDocument[];
  /** The MCP dialect's route handler (mounted at /mcp in local mode). */
  mcp?: RouteHandler;
  /** Bounds on LLM responses (`--llm-limit`; defaults: src/proxy/framing.ts). */
  llm?: LlmRouteOptions;
}

/** The dialects spoken at a host, or undefined when it is not an LLM provider. */
export function llmDialectsFor(
  policies: readonly PolicyDocument[],
  name: string,
  port: number,
): readonly LlmDialect[] | undefined {
  const matches = (pattern: string) => {
    const compiled = hostPattern(pattern);
    return compiled.match(name.toLowerCase()) && (compiled.port === undefined || compiled.port === port);
  };
  for (const provider of builtinProviderHosts) if (matches(provider.host)) return provider.dialects;
  for (const policy of policies) {
    for (const provider of policy.spec.llm?.providers ?? []) {
      if (matches(provider.host)) return DIALECTS_BY_NAME[provider.dialect];
    }
  }
  return undefined;
}

/** The declared server a connection is for, and the route path the MCP dialect expects for it. */
export function mcpServerPath(
  policies: readonly PolicyDocument[],
  connection: Pick<InspectedConnection, "serverName" | "port" | "tls">,
  pathname: string,
): string | undefined {
  for (const policy of policies) {
    for (const server of policy.spec.servers ?? []) {
      if (!server.url) continue;
      const url = new URL(server.url);
      const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
      const scheme = connection.tls ? "https:" : "http:";
      if (
        url.hostname.toLowerCase() !== connection.serverName ||
        port !== connection.port ||
        url.protocol !== scheme
      ) {
        continue;
      }
      const name = `/${encodeURIComponent(server.name)}`;
      if (pathname === url.pathname) return name;
      const base = url.pathname.slice(0, url.pathname.lastIndexOf("/") + 1);
      return pathname.startsWith(base) ? `${name}/${pathname.slice(base.length)}` : undefined;
    }
  }
  return undefined;
}

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
    const origin = `${connection.tls ? "https" : "http"}://${connection.serverName}:${connection.port}`;
    const abort = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) abort.abort(new Error("client disconnected"));
    });
    const policies = options.policies();
    const dialects = llmDialectsFor(policies, connection.serverName, connection.port);
    const mcpPath = dialects ? undefined : mcpServerPath(policies, connection, pathname);
    let handler: RouteHandler;
    let path = pathname;
    if (dialects) {
      handler = llmRoutes.get(origin) ?? llmRoute(new URL(origin), dialects, options.llm);
      llmRoutes.set(origin, handler);
    } else if (mcpPath !== undefined && options.mcp) {
      handler = options.mcp;
      path = mcpPath;
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
        const body = JSON.stringify({
          error: { type: "toolwall_error", message: `upstream failed: ${(error as Error).message}` },
        });
        res.writeHead(502, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        res.end(body);
      }
    }
  };
}
