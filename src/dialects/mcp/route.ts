import type { IncomingMessage, ServerResponse } from "node:http";
import type { Dispatcher } from "undici";
import { formatEvent, type SseEvent, SseParser, withoutLeadingBom } from "../../codecs/sse.ts";
import { CappedMap } from "../../kernel/bounded-map.ts";
import {
  type ProxyContext,
  type RouteContext,
  type RouteHandler,
  sendToolwallError,
} from "../../net/server.ts";
import {
  decodedBody,
  forwardableRequestHeaders,
  forwardableResponseHeaders,
  type UpstreamRequest,
} from "../../net/upstream.ts";
import type { DeclaredServer } from "../../policy/servers.ts";
import type { StateStore } from "../../state/types.ts";
import { ToolCatalog } from "./catalog.ts";
import { judgedMethods, listingMethods, type McpContext, McpGate, sameJson } from "./gate.ts";
import {
  type Classified,
  errorCodes,
  errorResponse,
  idKey,
  type JsonRpcResponse,
  JsonTextError,
  parseBody,
  parseJson,
} from "./jsonrpc.ts";
import { McpRouteError, type McpTarget, proxyPathFor, resolveTarget } from "./routing.ts";
import { replaceEventData } from "./sse.ts";

const maxRequestBytes = 8 * 1024 * 1024;
const maxJsonResponseBytes = 64 * 1024 * 1024;
const maxRecheckPages = 50;
const maxSessions = 10_000;
const maxPendingPerSession = 1_000;

/** A session's listing requests let through and not yet answered (the oldest dropped past the cap). */
const pendingListings = () => new CappedMap<string, PendingListing>(maxPendingPerSession);

/** A listing request let through, awaiting its answer (which may come on another stream). */
interface PendingListing {
  method: string;
  params: Record<string, unknown> | undefined;
  /** Sent by Toolwall itself (a re-check): the answer is reviewed and swallowed. */
  internal: boolean;
  /**
   * An answer was seen. The entry stays (bounded with the others): a second answer with the same id,
   * which a client might take instead of the first, is filtered too.
   */
  answered?: boolean;
}

/** A legacy HTTP+SSE session: its GET stream, where answers to its POSTs (and our denials) go. */
interface LegacySession {
  target: McpTarget;
  /** The upstream POST endpoint of the session. */
  endpoint: URL;
  headers: Record<string, string | string[]>;
  pending: Map<string, PendingListing>;
  send(message: JsonRpcResponse): void;
}

export interface McpRouteOptions {
  /** Tool pins (trust on first use) and model-judge verdicts; the memory store serves one process. */
  store: Pick<StateStore, "pinIfAbsent" | "getVerdicts" | "claimVerdict" | "putVerdict">;
  /** Namespace the pins are kept under; default: the proxy identity's. */
  namespace?: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function contentType(headers: Record<string, string | string[] | undefined>): string {
  const value = headers["content-type"];
  const text = (Array.isArray(value) ? value[0] : value) ?? "";
  return text.split(";")[0]!.trim().toLowerCase();
}

async function readLimited(body: AsyncIterable<Buffer>, limit: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) throw new McpRouteError(413, `${what} is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

function write(res: ServerResponse, bytes: Buffer): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  if (res.write(bytes)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

function upstreamHeaders(req: IncomingMessage): Record<string, string | string[]> {
  // What goes upstream is a re-serialisation, never the client's bytes: the client's encoding of
  // its body does not describe it. The proxy reads every answer: no compression upstream of it.
  const headers = forwardableRequestHeaders(req.headers, [
    "content-length",
    "content-encoding",
    "accept-encoding",
  ]);
  headers["accept-encoding"] = "identity";
  return headers;
}

/**
 * The MCP dialect's route, mounted at `/mcp` on the proxy core: `/mcp/<server>[/…]` goes to
 * `spec.servers[<server>].url`. Streamable HTTP (POST answered with JSON or SSE, GET server stream,
 * DELETE), legacy HTTP+SSE (endpoint rewritten, denials injected into the session's stream), batches.
 */
export function mcpRoute(options: McpRouteOptions): { prefix: string; handler: RouteHandler } {
  let state: RouteState | undefined;
  return {
    prefix: "/mcp",
    handler: async (req, res, route) => {
      state ??= new RouteState(route.context, options);
      try {
        await state.handle(req, res, route);
      } catch (error) {
        if (!(error instanceof McpRouteError) || res.headersSent) throw error;
        sendToolwallError(res, error.status, error.message);
      }
    },
  };
}

class RouteState {
  readonly #context: ProxyContext;
  readonly gate: McpGate;
  readonly #legacy = new Map<string, LegacySession>();
  /** Headers of the latest POST per Streamable HTTP session, for re-checks after list_changed. */
  readonly #sessionHeaders = new CappedMap<string, Record<string, string | string[]>>(maxSessions);
  readonly #rechecking = new Set<string>();
  /** Listing requests of each Streamable HTTP session still awaiting their answer. */
  readonly #sessionPending = new CappedMap<string, Map<string, PendingListing>>(maxSessions);
  #recheckSeq = 0;

  constructor(context: ProxyContext, options: McpRouteOptions) {
    this.#context = context;
    const catalog = new ToolCatalog({
      policies: context.policies,
      store: options.store,
      namespace: options.namespace ?? context.identity.namespace,
      audit: context.audit,
    });
    this.gate = new McpGate(context, catalog);
  }

  #declared(): ReadonlyMap<string, DeclaredServer> {
    return this.#context.policies().servers;
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
    const response = await this.#request({
      url: target.url,
      method: req.method!,
      headers: forwardableRequestHeaders(req.headers, ["content-length", "content-type"]),
      signal: route.signal,
    });
    const session = header(req, "mcp-session-id");
    if (req.method === "DELETE" && session && response.statusCode < 300) {
      const key = this.#sessionKey(target, session);
      this.#sessionPending.delete(key);
      this.#sessionHeaders.delete(key);
    }
    res.writeHead(response.statusCode, forwardableResponseHeaders(response.headers));
    for await (const chunk of response.body) await write(res, chunk as Buffer);
    res.end();
  }

  #sessionKey(target: McpTarget, session: string): string {
    return `${target.server.name.toLowerCase()}\0${session}`;
  }

  #pendingFor(target: McpTarget, session: string): Map<string, PendingListing> {
    const key = this.#sessionKey(target, session);
    let pending = this.#sessionPending.get(key);
    if (!pending) {
      pending = pendingListings();
      this.#sessionPending.set(key, pending);
    }
    return pending;
  }

  /**
   * An upstream request without a body timeout: an MCP stream (a GET stream, a legacy session, a long
   * tool call answered in SSE) may stay quiet for long; it ends when either side closes it. A
   * redirect is an McpRouteError, never relayed.
   */
  async #request(request: UpstreamRequest): Promise<Dispatcher.ResponseData> {
    const response = await this.#context.upstream.request({ ...request, bodyTimeout: 0 });
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

  #legacyKey(server: string, url: URL): string {
    return `${server.toLowerCase()}\0${url.pathname}${url.search}`;
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
    const legacy = this.#legacy.get(this.#legacyKey(target.server.name, target.url));
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
        ? this.#pendingFor(target, mcpSession)
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
    if (mcpSession && !legacy) this.#rememberSession(target, mcpSession, headers);

    if (legacy) {
      for (const answer of answers) legacy.send(answer);
      if (forwarded.length === 0) {
        res.writeHead(202, { "content-type": "text/plain" });
        res.end("Accepted");
        return;
      }
    } else if (forwarded.length === 0) {
      if (answers.length === 0) {
        // Only notifications, all dropped: what the server would have said to a notification.
        res.writeHead(202).end();
        return;
      }
      sendJson(res, 200, parsed.batch ? answers : answers[0]);
      return;
    }

    // What goes upstream is the serialisation of what was judged, never the client's bytes: no
    // parser differential (duplicate keys, invalid UTF-8) can make the server read another call.
    const body = Buffer.from(JSON.stringify(parsed.batch ? forwarded : forwarded[0]));
    const response = await this.#request({
      url: target.url,
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body,
      signal: route.signal,
    });
    if (legacy) {
      res.writeHead(response.statusCode, forwardableResponseHeaders(response.headers));
      for await (const chunk of response.body) await write(res, chunk as Buffer);
      res.end();
      return;
    }
    const type = contentType(response.headers);
    if (type === "text/event-stream") {
      await this.#relayStream(res, response, context, target, pending, answers, undefined);
      return;
    }
    if (type === "application/json" && response.statusCode < 300) {
      await this.#relayJson(res, response, context, target, pending, answers, parsed.batch);
      return;
    }
    if (answers.length > 0 && response.statusCode < 300) {
      await response.body.dump();
      sendJson(res, 200, parsed.batch ? answers : answers[0]);
      return;
    }
    res.writeHead(response.statusCode, forwardableResponseHeaders(response.headers));
    for await (const chunk of response.body) await write(res, chunk as Buffer);
    res.end();
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

  #rememberSession(target: McpTarget, session: string, headers: Record<string, string | string[]>) {
    const key = this.#sessionKey(target, session);
    this.#sessionHeaders.set(key, headers);
  }

  /** One server message on its way to the client: listings filtered, list_changed re-checked. */
  async #process(
    value: unknown,
    context: McpContext,
    pending: Map<string, PendingListing>,
    target: McpTarget,
    session: { id: string | undefined; legacy: LegacySession | undefined },
  ): Promise<{ value: unknown; changed: boolean; drop: boolean }> {
    if (!isObject(value)) return { value, changed: false, drop: false };
    if (value.method === "notifications/tools/list_changed" && !("id" in value)) {
      this.#recheck(context, target, session);
      return { value, changed: false, drop: false };
    }
    if (!("result" in value) || !("id" in value)) return { value, changed: false, drop: false };
    const key = idKey(value.id as string | number);
    const listing = pending.get(key);
    if (!listing) return { value, changed: false, drop: false };
    if (listing.internal) pending.delete(key);
    else listing.answered = true;
    const result = await this.gate.filterResult(context, listing.method, listing.params, value.result);
    if (listing.internal) {
      const cursor = isObject(result) ? result.nextCursor : undefined;
      if (typeof cursor === "string" && session.legacy) this.#sendRecheck(session.legacy, cursor);
      return { value, changed: false, drop: true };
    }
    // Always re-serialised: the client receives the listing that was judged, not the upstream's bytes.
    return { value: result === value.result ? value : { ...value, result }, changed: true, drop: false };
  }

  /**
   * The messages of one JSON text, processed; `value` undefined when every message was swallowed.
   * Throws JsonTextError for text that is not JSON: it is never relayed unread.
   */
  async #processData(
    data: string,
    context: McpContext,
    pending: Map<string, PendingListing>,
    target: McpTarget,
    session: { id: string | undefined; legacy: LegacySession | undefined },
  ): Promise<{ value: unknown; changed: boolean }> {
    const value = parseJson(data, "upstream message");
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      let changed = false;
      for (const item of value) {
        const processed = await this.#process(item, context, pending, target, session);
        changed ||= processed.changed || processed.drop;
        if (!processed.drop) out.push(processed.value);
      }
      return { value: out.length === 0 ? undefined : out, changed };
    }
    const processed = await this.#process(value, context, pending, target, session);
    if (processed.drop) return { value: undefined, changed: true };
    return { value: processed.value, changed: processed.changed };
  }

  async #relayJson(
    res: ServerResponse,
    response: Dispatcher.ResponseData,
    context: McpContext,
    target: McpTarget,
    pending: Map<string, PendingListing>,
    answers: JsonRpcResponse[],
    batch: boolean,
  ) {
    const body = await readLimited(
      decodedBody(response.body, response.headers["content-encoding"] as string | undefined),
      maxJsonResponseBytes,
      "upstream JSON answer",
    );
    const headers = forwardableResponseHeaders(response.headers, ["content-length", "content-encoding"]);
    let processed: { value: unknown; changed: boolean };
    try {
      processed = await this.#processData(body.toString("utf8"), context, pending, target, {
        id: context.mcpSession,
        legacy: undefined,
      });
    } catch (error) {
      if (!(error instanceof JsonTextError)) throw error;
      throw new McpRouteError(
        502,
        `MCP server '${target.server.name}' answered with unreadable JSON: ${error.message}`,
      );
    }
    if (answers.length === 0 && !processed.changed) {
      res.writeHead(response.statusCode, { ...headers, "content-length": body.length });
      res.end(body);
      return;
    }
    const upstream: unknown = processed.value === undefined ? [] : processed.value;
    const merged =
      batch || answers.length > 0
        ? [...(Array.isArray(upstream) ? upstream : [upstream]), ...answers]
        : upstream;
    const text = JSON.stringify(merged);
    res.writeHead(response.statusCode, { ...headers, "content-length": Buffer.byteLength(text) });
    res.end(text);
  }

  /** An SSE answer or stream, event by event: only events that carry a listing answer are rewritten. */
  async #relayStream(
    res: ServerResponse,
    response: Dispatcher.ResponseData,
    context: McpContext,
    target: McpTarget,
    pending: Map<string, PendingListing>,
    answers: JsonRpcResponse[],
    legacyRoute: { prefix: string; headers: Record<string, string | string[]> } | undefined,
  ) {
    const headers = forwardableResponseHeaders(response.headers, ["content-length", "content-encoding"]);
    res.writeHead(response.statusCode, headers);
    res.flushHeaders();
    // Bounded like a JSON answer: an event that never ends must not grow the proxy without limit.
    const parser = new SseParser({ maxEventBytes: maxJsonResponseBytes });
    const session: { id: string | undefined; legacy: LegacySession | undefined } = {
      id: context.mcpSession,
      legacy: undefined,
    };
    const queue: Buffer[] = answers.map((answer) =>
      formatEvent({ event: "message", data: JSON.stringify(answer) }, "\n"),
    );
    for (const bytes of queue) await write(res, bytes);
    const handleEvent = async (event: SseEvent) => {
      if (event.event === "endpoint" && legacyRoute && event.data !== undefined) {
        const endpoint = new URL(event.data, target.url);
        const path = proxyPathFor(legacyRoute.prefix, target.server, endpoint);
        if (path === undefined) {
          this.#context.log(
            `toolwall mcp: ${target.server.name}: legacy endpoint ${endpoint.pathname} is outside the server's path; stream closed`,
          );
          res.destroy();
          return;
        }
        session.legacy = this.#openLegacy(res, target, endpoint, parser, legacyRoute.headers);
        session.id = endpoint.searchParams.get("sessionId") ?? undefined;
        await write(res, replaceEventData(event.raw, path, parser.lineEnding));
        return;
      }
      if (event.unreadable?.rule === "bom") {
        // Some clients strip a BOM that leads a line, others keep it: no reading is safe to relay.
        this.#context.log(`toolwall mcp: ${target.server.name}: event dropped: ${event.unreadable.message}`);
        return;
      }
      if (event.data === undefined || event.data.trim() === "") {
        await write(res, event.raw);
        return;
      }
      const listings = session.legacy?.pending ?? pending;
      let processed: { value: unknown; changed: boolean };
      try {
        processed = await this.#processData(event.data, context, listings, target, session);
      } catch (error) {
        if (!(error instanceof JsonTextError)) throw error;
        this.#context.log(`toolwall mcp: ${target.server.name}: event dropped: ${error.message}`);
        return;
      }
      if (!processed.changed) await write(res, event.raw);
      else if (processed.value !== undefined)
        await write(res, replaceEventData(event.raw, JSON.stringify(processed.value), parser.lineEnding));
    };
    try {
      // The client's TextDecoderStream drops a BOM opening the stream; so does the proxy, or the
      // first event's `data:` line would read as an unknown field and be relayed unjudged.
      const body = withoutLeadingBom(
        decodedBody(response.body, response.headers["content-encoding"] as string | undefined),
      );
      for await (const chunk of body) {
        for (const event of parser.push(chunk as Buffer)) await handleEvent(event);
      }
      for (const event of parser.end()) await handleEvent(event);
    } finally {
      if (session.legacy) this.#legacy.delete(this.#legacyKey(target.server.name, session.legacy.endpoint));
    }
    res.end();
  }

  #openLegacy(
    res: ServerResponse,
    target: McpTarget,
    endpoint: URL,
    parser: SseParser,
    headers: Record<string, string | string[]>,
  ): LegacySession {
    const { accept: _accept, ...postHeaders } = headers;
    const legacy: LegacySession = {
      target,
      endpoint,
      headers: postHeaders,
      pending: pendingListings(),
      send: (message) => {
        if (!res.destroyed)
          res.write(formatEvent({ event: "message", data: JSON.stringify(message) }, parser.lineEnding));
      },
    };
    this.#legacy.set(this.#legacyKey(target.server.name, endpoint), legacy);
    return legacy;
  }

  async #get(req: IncomingMessage, res: ServerResponse, route: RouteContext, target: McpTarget) {
    const headers = upstreamHeaders(req);
    const response = await this.#request({
      url: target.url,
      method: "GET",
      headers,
      signal: route.signal,
    });
    if (contentType(response.headers) !== "text/event-stream") {
      res.writeHead(response.statusCode, forwardableResponseHeaders(response.headers));
      for await (const chunk of response.body) await write(res, chunk as Buffer);
      res.end();
      return;
    }
    const mcpSession = header(req, "mcp-session-id");
    const context: McpContext = {
      server: target.server.name,
      requestId: route.requestId,
      ...(mcpSession ? { mcpSession } : {}),
    };
    if (mcpSession) this.#rememberSession(target, mcpSession, headers);
    // A legacy session keeps the GET's headers (credentials) for its re-checks.
    const pending = mcpSession ? this.#pendingFor(target, mcpSession) : pendingListings();
    await this.#relayStream(res, response, context, target, pending, [], { prefix: route.prefix, headers });
  }

  /** `tools/list_changed`: list the server's tools again now, so pins and facts follow the change. */
  #recheck(
    context: McpContext,
    target: McpTarget,
    session: { id: string | undefined; legacy: LegacySession | undefined },
  ): void {
    const key = `${target.server.name.toLowerCase()}\0${session.id ?? ""}`;
    if (this.#rechecking.has(key)) return;
    if (session.legacy) {
      this.#sendRecheck(session.legacy, undefined);
      return;
    }
    const headers = session.id ? this.#sessionHeaders.get(key) : undefined;
    if (session.id && !headers) return;
    this.#rechecking.add(key);
    this.#relist(context, target, headers ?? {})
      .catch((error: Error) =>
        this.#context.log(
          `toolwall mcp: ${target.server.name}: re-check after list_changed failed: ${error.message}`,
        ),
      )
      .finally(() => this.#rechecking.delete(key));
  }

  #sendRecheck(legacy: LegacySession, cursor: string | undefined): void {
    const id = `toolwall-recheck-${++this.#recheckSeq}`;
    const params = cursor === undefined ? undefined : { cursor };
    legacy.pending.set(idKey(id), { method: "tools/list", params, internal: true });
    const body = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", ...(params ? { params } : {}) });
    this.#request({
      url: legacy.endpoint,
      method: "POST",
      headers: { ...legacy.headers, "content-type": "application/json" },
      body: Buffer.from(body),
      signal: AbortSignal.timeout(30_000),
    })
      .then((response) => response.body.dump())
      .catch((error: Error) =>
        this.#context.log(`toolwall mcp: ${legacy.target.server.name}: re-check failed: ${error.message}`),
      );
  }

  async #relist(context: McpContext, target: McpTarget, headers: Record<string, string | string[]>) {
    let cursor: string | undefined;
    for (let page = 0; page < maxRecheckPages; page++) {
      const id = `toolwall-recheck-${++this.#recheckSeq}`;
      const params = cursor === undefined ? undefined : { cursor };
      const response = await this.#request({
        url: target.url,
        method: "POST",
        headers: {
          ...headers,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: Buffer.from(
          JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", ...(params ? { params } : {}) }),
        ),
        signal: AbortSignal.timeout(30_000),
      });
      const answer = await readAnswer(response, id);
      if (!answer || !isObject(answer.result)) return;
      const result = await this.gate.filterResult(context, "tools/list", params, answer.result);
      const next = isObject(result) ? result.nextCursor : undefined;
      if (typeof next !== "string") return;
      cursor = next;
    }
  }
}

/** The response with `id` in a JSON or SSE answer to a POST. */
async function readAnswer(
  response: Dispatcher.ResponseData,
  id: string,
): Promise<JsonRpcResponse | undefined> {
  const body = await readLimited(response.body, maxJsonResponseBytes, "re-check answer");
  if (response.statusCode >= 300) return undefined;
  const find = (value: unknown): JsonRpcResponse | undefined => {
    const items = Array.isArray(value) ? value : [value];
    return items.find((item) => isObject(item) && idKey(item.id) === idKey(id)) as
      | JsonRpcResponse
      | undefined;
  };
  if (contentType(response.headers) === "text/event-stream") {
    const parser = new SseParser();
    for (const event of [...parser.push(body), ...parser.end()]) {
      if (event.data === undefined) continue;
      try {
        const found = find(parseJson(event.data, "re-check answer"));
        if (found) return found;
      } catch {}
    }
    return undefined;
  }
  try {
    return find(parseJson(body.toString("utf8"), "re-check answer"));
  } catch {
    return undefined;
  }
}
