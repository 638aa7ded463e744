import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { defaultLlmLimits, type LlmLimits, readJson } from "../codecs/framing.ts";
import { JsonArrayCanonicaliser } from "../codecs/json-array.ts";
import { formatEvent, SseCanonicaliser } from "../codecs/sse.ts";
import type { LlmDialect, StreamRewriter, Turn } from "../engine/dialect.ts";
import { ResponseRefused, refusalMessage } from "../engine/refusal.ts";
import type { ProxyContext, RouteContext, RouteHandler } from "../net/server.ts";
import {
  decodedBody,
  decodedRequestBody,
  discardBody,
  forwardableRequestHeaders,
  forwardableResponseHeaders,
  isRedirect,
  redirectRefused,
} from "../net/upstream.ts";
import type { Severity } from "../policy/types.ts";
import type { AuditEvent } from "../telemetry/audit.ts";
import { responsesRefused, upstreamDuration } from "../telemetry/metrics.ts";

const maxRequestBytes = 64 * 1024 * 1024;

/** A client request the route will not forward (too large, undecodable): answered with its status. */
class RequestRejected extends Error {
  readonly status: 400 | 413;

  constructor(status: 400 | 413, message: string) {
    super(message);
    this.status = status;
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxRequestBytes) {
      throw new RequestRejected(413, `the request body is larger than the limit of ${maxRequestBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** The client's request body, decoded from its Content-Encoding (bounded) so it can be judged. */
async function readRequest(req: IncomingMessage): Promise<Buffer> {
  const raw = await readBody(req);
  try {
    return decodedRequestBody(raw, req.headers["content-encoding"], maxRequestBytes);
  } catch (error) {
    if (error instanceof ResponseRefused) throw new RequestRejected(400, error.message);
    throw error;
  }
}

/**
 * The request body as an object, read like the response side (one BOM dropped, nesting bounded);
 * undefined when it is not a JSON object (the upstream will refuse it; nothing to judge).
 */
function parseObject(bytes: Buffer, maxDepth: number): Record<string, unknown> | undefined {
  if (bytes.length === 0) return undefined;
  let value: unknown;
  try {
    value = readJson(bytes.toString("utf8"), maxDepth, "the request body");
  } catch (error) {
    if (error instanceof ResponseRefused && error.rule === "json depth") {
      throw new RequestRejected(400, error.message);
    }
    return undefined;
  }
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

interface PreparedTurn {
  turn: Turn;
  body: Buffer;
  changed: boolean;
  /** The request asked for a streamed answer (`stream: true`). */
  streaming: boolean;
}

/** Request side: hosted MCP connectors, stripped tools, inspection, tool results; builds the turn. */
async function prepareTurn(
  context: ProxyContext,
  dialect: LlmDialect,
  route: RouteContext,
  url: URL,
  raw: Buffer,
  maxJsonDepth: number,
): Promise<PreparedTurn> {
  const policies = context.policies();
  const { registry, audit, identity } = context;
  const common = {
    namespace: identity.namespace,
    pod: identity.pod,
    session: identity.session,
    requestId: route.requestId,
    dialect: dialect.name,
  };
  const body = parseObject(raw, maxJsonDepth);
  let changed = false;
  let streaming = false;
  let offered = new Set<string>();
  const findings = new Map<string, Severity>();
  if (body) {
    const enforcing = policies.policies.filter((p) => p.spec.mode === "Enforce");
    const connectors = dialect.request.hostedMcp(body);
    if (connectors.length > 0) {
      const denying = policies.policies.find((p) => p.spec.llm.hostedMcp === "Deny");
      const enforced = denying !== undefined && enforcing.includes(denying);
      if (enforced) {
        dialect.request.removeHostedMcp(body);
        changed = true;
      }
      for (const connector of connectors) {
        audit.emit({
          type: "hosted_mcp_connector",
          ...common,
          server: connector.label,
          url: connector.url,
          action: denying ? "deny" : "allow",
          reason: denying ? "provider-side MCP connectors are denied (llm.hostedMcp)" : "hostedMcp allowed",
          rule: denying ? `${denying.id}#llm.hostedMcp` : "",
          mode: denying ? denying.spec.mode : "Enforce",
        });
      }
    }
    const stripSet = policies.stripping;
    if (stripSet.policies.length > 0) {
      const removed = dialect.request.removeTools(
        body,
        (name) => stripSet.preview({ tool: name }, registry) === "deny",
      );
      if (removed.length > 0) {
        changed = true;
        context.log(`toolwall proxy: ${route.requestId}: stripped denied tools ${removed.join(", ")}`);
      }
    }
    const info = dialect.request.inspect(body, url);
    streaming = info.streaming;
    offered = new Set(info.tools.map((tool) => tool.name.toLowerCase()));
    if (context.inspector && info.tools.length > 0) {
      const found = await context.inspector.inspect(info.tools, {
        dialect: dialect.name,
        requestId: route.requestId,
      });
      for (const [name, severity] of found) findings.set(name.toLowerCase(), severity);
    }
    for (const result of info.toolResults) {
      audit.emit({
        type: "tool_result_returned",
        ...common,
        tool: result.name ?? "",
        callId: result.callId,
        output: result.output,
      });
    }
  }
  const requiresDeclared = policies.policies.some(
    (p) => p.spec.mode === "Enforce" && p.spec.llm.requireDeclaredTools,
  );
  const turn: Turn = {
    dialect: dialect.name,
    requestId: route.requestId,
    offeredTools: offered,
    preview(name) {
      const preview = policies.preview({ tool: name }, registry);
      if (preview !== "deny" && requiresDeclared && !offered.has(name.toLowerCase())) return "deny";
      return preview;
    },
    decide(name, args, options = {}) {
      const severity = findings.get(name.toLowerCase());
      return context.decide(
        {
          dialect: dialect.name,
          requestId: route.requestId,
          name,
          arguments: args,
          facts: { offeredTools: offered, ...(severity ? { findingSeverity: severity } : {}) },
          ...(options.detail ? { detail: options.detail } : {}),
          ...(options.argumentsUnreadable ? { argumentsUnreadable: true } : {}),
        },
        { deferRecord: options.deferRecord ?? false },
      );
    },
    refuse(reason) {
      recordRefusal(context, route.requestId, dialect.name, new ResponseRefused(reason));
    },
  };
  return { turn, body: changed && body ? Buffer.from(JSON.stringify(body)) : raw, changed, streaming };
}

/**
 * Headers describing the upstream's bytes, which the client never receives as such: the proxy sends
 * its own canonical re-serialisation and describes that instead.
 */
const representationHeaders = [
  "content-length",
  "content-encoding",
  "content-type",
  "content-md5",
  "content-digest",
  "repr-digest",
  "digest",
  "content-range",
  "etag",
];

export interface LlmRouteOptions {
  /** Bounds for every dialect; `byDialect` overrides them per dialect name. */
  limits?: Partial<LlmLimits>;
  byDialect?: Readonly<Record<string, Partial<LlmLimits>>>;
}

type Framing = "json" | "sse" | "json-array";

/**
 * How the client will read the answer, decided the way the official SDKs decide it: a request that
 * asked for a stream is read as an event stream whatever the content type says (Gemini's
 * streamGenerateContent without alt=sse as a JSON array), any other as one JSON document (Gemini's
 * SDK calls response.json() whatever the type; Anthropic's and OpenAI's read JSON for any type that
 * includes application/json, and plain text — no tool call — otherwise). A client that did not ask
 * for a stream but gets one labelled plainly `text/event-stream` is answered with the canonical
 * stream: no JSON reader accepts that, so the one reading is the event-stream one.
 */
function framingOf(
  path: string,
  search: string,
  streaming: boolean,
  type: string | string[] | undefined,
): Framing {
  if (path.includes(":streamGenerateContent")) return /[?&]alt=sse(&|$)/.test(search) ? "sse" : "json-array";
  if (streaming) return "sse";
  const media = typeof type === "string" ? type.split(";")[0]!.trim().toLowerCase() : "";
  return media === "text/event-stream" ? "sse" : "json";
}

const canonicalContentType: Record<Framing, string> = {
  json: "application/json",
  sse: "text/event-stream; charset=utf-8",
  "json-array": "application/json",
};

interface Canonicaliser {
  push(chunk: Buffer): Buffer[];
  end(): Buffer[];
}

async function pumpStream(
  res: ServerResponse,
  source: AsyncIterable<Buffer>,
  canonicaliser: Canonicaliser,
  makeRewriter: (emit: (bytes: Buffer) => void) => StreamRewriter,
  maxHeldBytes: number,
): Promise<void> {
  let out: Buffer[] = [];
  let emitted = 0;
  const rewriter = makeRewriter((bytes) => {
    out.push(bytes);
    emitted += bytes.length;
  });
  /** Bytes fed to the dialect and not (yet) given back: what it holds while a call waits. */
  let held = 0;
  /** The canonical events of one upstream chunk go to the dialect together (one push, not one per event). */
  const feed = async (pieces: Buffer[]) => {
    if (pieces.length === 0) return;
    const canonical = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
    emitted = 0;
    await rewriter.push(canonical);
    held = Math.max(0, held + canonical.length - emitted);
    if (held > maxHeldBytes) {
      throw new ResponseRefused(
        `a tool call held for its decision is larger than the limit of ${maxHeldBytes} bytes`,
        "held size",
      );
    }
  };
  const flush = async () => {
    if (out.length === 0) return;
    const bytes = out.length === 1 ? out[0]! : Buffer.concat(out);
    out = [];
    if (!res.write(bytes) && !res.destroyed) await once(res, "drain");
  };
  let failure: unknown;
  try {
    for await (const chunk of source) {
      await feed(canonicaliser.push(chunk));
      await flush();
    }
  } catch (error) {
    if (error instanceof ResponseRefused) throw error;
    failure = error;
  }
  if (res.destroyed) return;
  // Whatever the upstream left unfinished (a tool block cut short) is decided on what arrived.
  await feed(canonicaliser.end());
  await rewriter.end();
  await flush();
  if (failure) res.destroy(failure as Error);
  else res.end();
}

/** The refusal as an event the dialect's SDK raises inside a stream (the dialect's own error body). */
function streamError(dialect: LlmDialect, message: string): Buffer {
  const data = JSON.stringify(dialect.response.refusalBody(message));
  // Gemini's reader ignores an event that does not start with `data:`; the others need the name.
  return formatEvent(dialect.name === "gemini" ? { data } : { event: "error", data }, "\n");
}

/** A refused response in the audit trail, the metrics and the log. */
function recordRefusal(
  context: ProxyContext,
  requestId: string,
  dialect: string,
  error: ResponseRefused,
): void {
  responsesRefused.inc({ dialect, rule: error.rule });
  const event: AuditEvent = {
    type: "llm_response_refused",
    namespace: context.identity.namespace,
    pod: context.identity.pod,
    session: context.identity.session,
    requestId,
    dialect,
    action: "deny",
    reason: error.message,
    rule: error.rule,
    mode: "Enforce",
  };
  context.audit.emit(event);
  context.log(`toolwall proxy: ${requestId}: response refused: ${error.message}`);
}

/** Answers a refusal found by the route (framing, bounds, redirects): the client gets an error, never the bytes. */
function refuse(
  context: ProxyContext,
  route: RouteContext,
  res: ServerResponse,
  dialect: LlmDialect | undefined,
  stream: Canonicaliser | undefined,
  error: ResponseRefused,
): void {
  const name = dialect?.name ?? "none";
  const message = refusalMessage(error.message);
  recordRefusal(context, route.requestId, name, error);
  if (res.headersSent) {
    if (res.destroyed || !dialect) res.destroy();
    else if (stream instanceof SseCanonicaliser) res.end(streamError(dialect, message));
    else if (stream instanceof JsonArrayCanonicaliser)
      res.end(stream.closingError(dialect.response.refusalBody(message)));
    else res.destroy();
    return;
  }
  const body = JSON.stringify(
    dialect?.response.refusalBody(message) ?? { error: { type: "toolwall_refused", message } },
  );
  res.writeHead(502, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    // The answer will not change on a retry; the Anthropic and OpenAI SDKs honour this.
    "x-should-retry": "false",
  });
  res.end(body);
}

/**
 * Read routes whose answers carry model output (tool calls included) that no dialect judges. They are
 * refused before anything goes upstream: relayed, a denied call would reach the agent unread.
 * Anthropic's Message Batches are refused as a whole because the SDK fetches a batch's results from
 * the `results_url` the upstream names in the batch object, which may be any path (or host).
 */
const unjudgedCallRoutes: readonly { dialect: string; path: RegExp; what: string; anyMethod?: true }[] = [
  { dialect: "anthropic-messages", path: /\/messages\/batches(\/|$)/, what: "Message Batches" },
  {
    dialect: "openai-chat",
    path: /\/chat\/completions\/[^/]+\/messages$/,
    what: "stored completion messages",
  },
  { dialect: "openai-responses", path: /\/responses\/[^/]+\/input_items$/, what: "response input items" },
  {
    dialect: "openai-responses",
    path: /\/conversations\/[^/]+\/items(\/[^/]+)?$/,
    what: "conversation items",
  },
  { dialect: "gemini", path: /\/batches\/[^/]+$/, what: "batch jobs (inlined responses)" },
  // Assistants: runs answer with required_action.submit_tool_outputs.tool_calls, streamed or not.
  { dialect: "openai-chat", path: /\/threads(\/|$)/, what: "Assistants threads and runs", anyMethod: true },
];

function unjudgedCallRoute(
  dialects: readonly LlmDialect[],
  method: string,
  path: string,
): string | undefined {
  const names = new Set(dialects.map((d) => d.name));
  return unjudgedCallRoutes.find(
    (route) => (method === "GET" || route.anyMethod) && names.has(route.dialect) && route.path.test(path),
  )?.what;
}

/**
 * The route for one LLM provider: requests a dialect understands are judged on both sides, all other
 * paths (model lists, files, token counting…) are relayed untouched — except redirects, which are
 * never relayed. A judged answer reaches the client only as the proxy re-serialised it.
 */
export function llmRoute(
  upstreamBase: URL,
  dialects: readonly LlmDialect[],
  options: LlmRouteOptions = {},
): RouteHandler {
  const basePath = upstreamBase.pathname.replace(/\/$/, "");
  const limitsOf = (dialect: string): LlmLimits => ({
    ...defaultLlmLimits,
    ...options.limits,
    ...options.byDialect?.[dialect],
  });
  return async (req, res, route) => {
    const { context } = route;
    const url = new URL(upstreamBase.origin + basePath + route.path + route.search);
    const method = req.method ?? "GET";
    const dialect = dialects.find((d) => d.handles(method, route.path));
    let stream: SseCanonicaliser | JsonArrayCanonicaliser | undefined;
    try {
      if (!dialect) {
        const unjudged = unjudgedCallRoute(dialects, method, route.path);
        if (unjudged !== undefined) {
          req.resume();
          // Refused before anything goes upstream: the answer could only be relayed unread.
          throw new ResponseRefused(
            `${unjudged} carry model output with tool calls that Toolwall does not judge`,
            "unjudged route",
          );
        }
        await context.upstream.relay(req, res, url, route.signal, { refuseRedirects: true });
        return;
      }
      const limits = limitsOf(dialect.name);
      const body = await readRequest(req);
      const prepared = await prepareTurn(context, dialect, route, url, body, limits.maxJsonDepth);
      const headers = forwardableRequestHeaders(req.headers, [
        "content-length",
        "accept-encoding",
        "content-encoding",
      ]);
      headers["accept-encoding"] = "identity";
      const started = performance.now();
      const response = await context.upstream.request({
        url,
        method,
        headers,
        body: prepared.body,
        signal: route.signal,
      });
      upstreamDuration.observe({ dialect: dialect.name }, (performance.now() - started) / 1000);
      if (isRedirect(response.statusCode)) {
        discardBody(response.body);
        throw redirectRefused(response.statusCode);
      }
      if (response.statusCode < 200 || response.statusCode >= 300) {
        // Every SDK throws on these and reads no message from them.
        res.writeHead(response.statusCode, forwardableResponseHeaders(response.headers));
        await pipeline(response.body, res);
        return;
      }
      const framing = framingOf(
        route.path,
        route.search,
        prepared.streaming,
        response.headers["content-type"],
      );
      const decoded = decodedBody(
        response.body,
        response.headers["content-encoding"],
        limits.maxResponseBytes,
      );
      const responseHeaders = forwardableResponseHeaders(response.headers, representationHeaders);
      responseHeaders["content-type"] = canonicalContentType[framing];
      if (framing !== "json") {
        stream = framing === "sse" ? new SseCanonicaliser(limits) : new JsonArrayCanonicaliser(limits);
        res.writeHead(response.statusCode, responseHeaders);
        res.flushHeaders();
        await pumpStream(
          res,
          decoded,
          stream,
          (emit) => dialect.response.streamRewriter(prepared.turn, emit, framing),
          limits.maxHeldBytes,
        );
        return;
      }
      const bytes = await readJsonBody(decoded, Math.min(limits.maxEventBytes, limits.maxResponseBytes));
      let out = bytes;
      if (bytes.length > 0) {
        const parsed = readJson(bytes.toString("utf8"), limits.maxJsonDepth, "the response body");
        const rewritten = await dialect.response.rewriteJson(parsed, prepared.turn);
        out = Buffer.from(JSON.stringify(rewritten ?? parsed));
      }
      responseHeaders["content-length"] = out.length;
      res.writeHead(response.statusCode, responseHeaders);
      res.end(out);
    } catch (error) {
      if (error instanceof RequestRejected && !res.headersSent) {
        const body = JSON.stringify({
          error: { type: "toolwall_request_rejected", message: `toolwall: ${error.message}` },
        });
        res.writeHead(error.status, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        });
        res.end(body);
        return;
      }
      if (!(error instanceof ResponseRefused)) throw error;
      refuse(context, route, res, dialect, stream, error);
    }
  };
}

async function readJsonBody(source: AsyncIterable<Buffer>, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    size += chunk.length;
    if (size > maxBytes) {
      throw new ResponseRefused(
        `the response body is larger than the limit of ${maxBytes} bytes`,
        "event size",
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}
