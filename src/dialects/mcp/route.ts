import type { IncomingMessage, ServerResponse } from "node:http";
import type { Dispatcher } from "undici";
import { sameJson } from "../../kernel/json.ts";
import {
  type ProxyContext,
  type RouteContext,
  type RouteHandler,
  sendToolwallError,
} from "../../net/server.ts";
import { forwardableRequestHeaders, type UpstreamRequest } from "../../net/upstream.ts";
import type { DeclaredServer } from "../../policy/servers.ts";
import type { StateStore } from "../../state/types.ts";
import { ToolCatalog } from "./catalog.ts";
import { judgedMethods, listingMethods, type McpContext, McpGate } from "./gate.ts";
import {
  contentType,
  header,
  isObject,
  maxRequestBytes,
  readLimited,
  relayUnchanged,
  sendJson,
  upstreamHeaders,
} from "./http.ts";
import {
  type Classified,
  errorCodes,
  errorResponse,
  idKey,
  type JsonRpcResponse,
  parseBody,
} from "./jsonrpc.ts";
import { answerLegacyPost, openLegacyEndpoint } from "./legacy-sse.ts";
import { Rechecker } from "./recheck.ts";
import { type RouteCore, relayStream } from "./relay.ts";
import { McpRouteError, type McpTarget, resolveTarget } from "./routing.ts";
import { McpSessions, pendingListings } from "./sessions.ts";
import { answerStreamablePost } from "./streamable-http.ts";

export interface McpRouteOptions {
  /** Tool pins (trust on first use) and model-judge verdicts; the memory store serves one process. */
  store: Pick<StateStore, "pinIfAbsent" | "getVerdicts" | "claimVerdict" | "putVerdict">;
  /** Namespace the pins are kept under; default: the proxy identity's. */
  namespace?: string;
}

/**
 * The MCP dialect's route, mounted at `/mcp` on the proxy core: `/mcp/<server>[/…]` goes to
 * `spec.servers[<server>].url`. Streamable HTTP (POST answered with JSON or SSE, GET server stream,
 * DELETE; streamable-http.ts), legacy HTTP+SSE (endpoint rewritten, denials injected into the
 * session's stream; legacy-sse.ts), batches. Sessions: sessions.ts; re-checks after list_changed:
 * recheck.ts; the server-to-client direction: relay.ts.
 */
export function mcpRoute(options: McpRouteOptions): { prefix: string; handler: RouteHandler } {
  let state: McpRoute | undefined;
  return {
    prefix: "/mcp",
    handler: async (req, res, route) => {
      state ??= new McpRoute(route.context, options);
      try {
        await state.handle(req, res, route);
      } catch (error) {
        if (!(error instanceof McpRouteError) || res.headersSent) throw error;
        sendToolwallError(res, error.status, error.message);
      }
    },
  };
}

/** One route's state; the client-to-server direction: dispatch by method, POST bodies judged. */
class McpRoute implements RouteCore {
  readonly context: ProxyContext;
  readonly gate: McpGate;
  readonly sessions = new McpSessions();
  readonly rechecker: Rechecker;

  constructor(context: ProxyContext, options: McpRouteOptions) {
    this.context = context;
    const catalog = new ToolCatalog({
      policies: context.policies,
      store: options.store,
      namespace: options.namespace ?? context.identity.namespace,
      audit: context.audit,
    });
    this.gate = new McpGate(context, catalog);
    this.rechecker = new Rechecker({
      gate: this.gate,
      sessions: this.sessions,
      request: (request) => this.request(request),
      log: (message) => context.log(message),
    });
  }

  #declared(): ReadonlyMap<string, DeclaredServer> {
    return this.context.policies().servers;
  }

  async handle(req: IncomingMessage, res: ServerResponse, route: RouteContext): Promise<void> {
    const target = resolveTarget(this.#declared(), route.path, route.search);
    if (req.method === "POST") return this.#post(req, res, route, target);
    if (req.method === "GET") return this.#get(req, res, route, target);
    if (req.method === "DELETE" || req.method === "OPTIONS" || req.method === "HEAD")
      return this.#bodiless(req, res, route, target);
    // Only POST bodies are judged: no other method may carry a message to the server.
    throw new McpRouteError(405, `method ${req.method} is not part of the MCP transports`);
  }

  /** DELETE (end of session), OPTIONS (CORS preflight), HEAD: relayed without any body. */
  async #bodiless(req: IncomingMessage, res: ServerResponse, route: RouteContext, target: McpTarget) {
    req.resume();
    const response = await this.request({
      url: target.url,
      method: req.method!,
      headers: forwardableRequestHeaders(req.headers, ["content-length", "content-type"]),
      signal: route.signal,
    });
    const session = header(req, "mcp-session-id");
    if (req.method === "DELETE" && session && response.statusCode < 300) this.sessions.end(target, session);
    await relayUnchanged(res, response);
  }

  /**
   * An upstream request without a body timeout: an MCP stream (a GET stream, a legacy session, a long
   * tool call answered in SSE) may stay quiet for long; it ends when either side closes it. A
   * redirect is an McpRouteError, never relayed.
   */
  async request(request: UpstreamRequest): Promise<Dispatcher.ResponseData> {
    const response = await this.context.upstream.request({ ...request, bodyTimeout: 0 });
    if (response.statusCode >= 300 && response.statusCode < 400 && response.headers.location !== undefined) {
      // A redirect would send the client to a URL nobody judged (another server, around the proxy).
      await response.body.dump();
      throw new McpRouteError(
        502,
        `MCP server at ${request.url.origin} answered ${response.statusCode} with a redirect; Toolwall does not relay redirects from MCP servers`,
      );
    }
    return response;
  }

  async #post(req: IncomingMessage, res: ServerResponse, route: RouteContext, target: McpTarget) {
    const encoding = header(req, "content-encoding")?.trim().toLowerCase();
    if (encoding !== undefined && encoding !== "" && encoding !== "identity")
      throw new McpRouteError(
        415,
        `request bodies with Content-Encoding '${encoding}' are not accepted; send JSON`,
      );
    const raw = await readLimited(req, maxRequestBytes, "request body");
    let parsed: ReturnType<typeof parseBody>;
    try {
      parsed = parseBody(raw.toString("utf8"));
    } catch (error) {
      sendJson(res, 400, errorResponse(null, errorCodes.parse, (error as Error).message));
      return;
    }
    const legacy = this.sessions.legacyAt(target.server.name, target.url);
    const mcpSession =
      header(req, "mcp-session-id") ?? legacy?.endpoint.searchParams.get("sessionId") ?? undefined;
    const context: McpContext = {
      server: target.server.name,
      requestId: route.requestId,
      ...(mcpSession ? { mcpSession } : {}),
    };
    const answers: JsonRpcResponse[] = [];
    const forwarded: unknown[] = [];
    // Listing answers may come on the POST's answer or (a misbehaving server) on the session's stream.
    const pending = legacy
      ? legacy.pending
      : mcpSession
        ? this.sessions.pendingFor(target, mcpSession)
        : pendingListings();
    for (const message of parsed.messages) {
      const earlier = message.kind === "request" ? pending.get(idKey(message.message.id)) : undefined;
      if (
        message.kind === "request" &&
        earlier &&
        !earlier.answered &&
        listingMethods.has(message.message.method) &&
        (earlier.method !== message.message.method || !sameJson(earlier.params, message.message.params))
      ) {
        // Two listings one answer could match: the answer might be filtered as the wrong one.
        answers.push(
          errorResponse(
            message.message.id,
            errorCodes.invalidRequest,
            `request id ${JSON.stringify(message.message.id)} is already used by a listing request awaiting its answer`,
          ),
        );
        continue;
      }
      const outcome = await this.#judge(context, message);
      if (outcome.answer) answers.push(outcome.answer);
      if (!outcome.forward) continue;
      forwarded.push(message.message);
      if (message.kind === "request" && listingMethods.has(message.message.method)) {
        pending.set(idKey(message.message.id), {
          method: message.message.method,
          params: message.message.params,
          internal: false,
        });
      }
    }
    const headers = upstreamHeaders(req);
    if (legacy) {
      await answerLegacyPost(this, res, route, target, legacy, headers, answers, forwarded, parsed.batch);
      return;
    }
    if (mcpSession) this.sessions.remember(target, mcpSession, headers);
    await answerStreamablePost(
      this,
      res,
      route,
      target,
      context,
      pending,
      headers,
      answers,
      forwarded,
      parsed.batch,
    );
  }

  async #judge(
    context: McpContext,
    message: Classified,
  ): Promise<{ forward: boolean; answer?: JsonRpcResponse }> {
    switch (message.kind) {
      case "request": {
        const verdict = await this.gate.judge(context, message.message);
        return verdict.forward ? { forward: true } : { forward: false, answer: verdict.answer };
      }
      case "notification": {
        if (!judgedMethods.has(message.message.method)) return { forward: true };
        // A call sent without an id gets no answer, but a lenient server might still run it: judged
        // like a request, and dropped when denied.
        const verdict = await this.gate.judge(context, { ...message.message, id: "" });
        return { forward: verdict.forward };
      }
      case "response":
        return { forward: true };
      default: {
        // What cannot be classified cannot be judged: it never reaches the server.
        const id = isObject(message.message) ? message.message.id : undefined;
        const validId = typeof id === "string" || typeof id === "number" ? id : null;
        return {
          forward: false,
          answer: errorResponse(
            validId,
            errorCodes.invalidRequest,
            `invalid JSON-RPC message: ${message.problem}`,
          ),
        };
      }
    }
  }

  /** The server stream of a Streamable HTTP session, or the stream that opens a legacy session. */
  async #get(req: IncomingMessage, res: ServerResponse, route: RouteContext, target: McpTarget) {
    const headers = upstreamHeaders(req);
    const response = await this.request({
      url: target.url,
      method: "GET",
      headers,
      signal: route.signal,
    });
    if (contentType(response.headers) !== "text/event-stream") {
      await relayUnchanged(res, response);
      return;
    }
    const mcpSession = header(req, "mcp-session-id");
    const context: McpContext = {
      server: target.server.name,
      requestId: route.requestId,
      ...(mcpSession ? { mcpSession } : {}),
    };
    if (mcpSession) this.sessions.remember(target, mcpSession, headers);
    const pending = mcpSession ? this.sessions.pendingFor(target, mcpSession) : pendingListings();
    const legacyRoute = { prefix: route.prefix, headers };
    await relayStream(
      { core: this, res, response, context, target, pending, answers: [] },
      (event, parser, session) => openLegacyEndpoint(this, res, target, legacyRoute, event, parser, session),
    );
  }
}
