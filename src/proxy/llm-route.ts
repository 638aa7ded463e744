import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { PolicySet } from "../policy/evaluate.ts";
import type { Severity } from "../policy/types.ts";
import { responsesRefused, upstreamDuration } from "../telemetry/metrics.ts";
import type { LlmDialect, StreamRewriter, Turn } from "./dialect.ts";
import { ResponseRefused, refusalMessage } from "./refusal.ts";
import type { ProxyContext, RouteContext, RouteHandler } from "./server.ts";
import { decodedBody, forwardableRequestHeaders, forwardableResponseHeaders } from "./upstream.ts";

const maxRequestBytes = 64 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxRequestBytes) throw new Error(`request body over ${maxRequestBytes} bytes`);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** Policies that ask for denied tools to be stripped, per policy set (compiled once per set). */
const stripSets = new WeakMap<PolicySet, PolicySet>();
function stripSetOf(policies: PolicySet): PolicySet {
  let set = stripSets.get(policies);
  if (!set) {
    set = new PolicySet(policies.policies.filter((p) => p.spec.llm.stripDeniedTools));
    stripSets.set(policies, set);
  }
  return set;
}

function parseObject(bytes: Buffer): Record<string, unknown> | undefined {
  if (bytes.length === 0) return undefined;
  try {
    const value = JSON.parse(bytes.toString("utf8")) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
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
  const body = parseObject(raw);
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
    const stripSet = stripSetOf(policies);
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
      responsesRefused.inc({ dialect: dialect.name });
      audit.emit({ type: "llm_response_refused", ...common, action: "deny", reason, mode: "Enforce" });
      context.log(`toolwall proxy: ${route.requestId}: response refused: ${reason}`);
    },
  };
  return { turn, body: changed && body ? Buffer.from(JSON.stringify(body)) : raw, changed, streaming };
}

function contentType(headers: Record<string, string | string[] | undefined>): string {
  const value = headers["content-type"];
  return (Array.isArray(value) ? value[0] : value)?.toLowerCase() ?? "";
}

async function pumpStream(
  res: ServerResponse,
  source: AsyncIterable<Buffer>,
  makeRewriter: (emit: (bytes: Buffer) => void) => StreamRewriter,
): Promise<void> {
  let out: Buffer[] = [];
  const rewriter = makeRewriter((bytes) => out.push(bytes));
  const flush = async () => {
    if (out.length === 0) return;
    const bytes = out.length === 1 ? out[0]! : Buffer.concat(out);
    out = [];
    if (!res.write(bytes) && !res.destroyed) await once(res, "drain");
  };
  let failure: unknown;
  try {
    for await (const chunk of source) {
      await rewriter.push(chunk);
      await flush();
    }
  } catch (error) {
    failure = error;
  }
  if (res.destroyed) return;
  // Whatever the upstream left unfinished (a tool block cut short) is decided on what arrived.
  await rewriter.end();
  await flush();
  if (failure) res.destroy(failure as Error);
  else res.end();
}

/**
 * The route for one LLM provider: requests a dialect understands are judged on both sides, all other
 * paths (model lists, files, token counting…) are relayed untouched.
 */
export function llmRoute(upstreamBase: URL, dialects: readonly LlmDialect[]): RouteHandler {
  const basePath = upstreamBase.pathname.replace(/\/$/, "");
  return async (req, res, route) => {
    const { context } = route;
    const url = new URL(upstreamBase.origin + basePath + route.path + route.search);
    const method = req.method ?? "GET";
    const dialect = dialects.find((d) => d.handles(method, route.path));
    if (!dialect) {
      await context.upstream.relay(req, res, url, route.signal);
      return;
    }
    const raw = await readBody(req);
    const prepared = await prepareTurn(context, dialect, route, url, raw);
    const headers = forwardableRequestHeaders(req.headers, ["content-length", "accept-encoding"]);
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
    const type = contentType(response.headers);
    if (response.statusCode < 200 || response.statusCode >= 300) {
      res.writeHead(response.statusCode, forwardableResponseHeaders(response.headers));
      for await (const chunk of response.body) {
        if (!res.write(chunk)) await once(res, "drain");
      }
      res.end();
      return;
    }
    // The framing comes from what the request asked for, not only from the content-type: a client
    // SDK parses a stream it asked for whatever the header says, so every 2xx answer is judged.
    const geminiStream = route.path.includes(":streamGenerateContent");
    const sse =
      type.startsWith("text/event-stream") ||
      (geminiStream ? /[?&]alt=sse(&|$)/.test(route.search) : prepared.streaming);
    const body = decodedBody(response.body, response.headers["content-encoding"] as string | undefined);
    const responseHeaders = forwardableResponseHeaders(response.headers, [
      "content-length",
      "content-encoding",
    ]);
    if (sse || geminiStream) {
      res.writeHead(response.statusCode, responseHeaders);
      res.flushHeaders();
      await pumpStream(res, body, (emit) =>
        dialect.response.streamRewriter(prepared.turn, emit, sse ? "sse" : "json-array"),
      );
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk);
    let bytes = Buffer.concat(chunks);
    const parsed = parseObject(bytes);
    if (parsed) {
      try {
        const rewritten = await dialect.response.rewriteJson(parsed, prepared.turn);
        if (rewritten !== undefined) bytes = Buffer.from(JSON.stringify(rewritten));
      } catch (error) {
        if (!(error instanceof ResponseRefused)) throw error;
        prepared.turn.refuse(error.message);
        const refusal = Buffer.from(
          JSON.stringify(dialect.response.refusalBody(refusalMessage(error.message))),
        );
        responseHeaders["content-type"] = "application/json";
        // The SDKs retry a 5xx unless told not to: the same answer would be refused again.
        responseHeaders["x-should-retry"] = "false";
        responseHeaders["content-length"] = refusal.length;
        res.writeHead(502, responseHeaders);
        res.end(refusal);
        return;
      }
    } else if (bytes.length > 0) {
      // Not JSON: judge it as the event stream it may be (never pass unread bytes to the client).
      const out: Buffer[] = [];
      const rewriter = dialect.response.streamRewriter(prepared.turn, (b) => out.push(b), "sse");
      await rewriter.push(bytes);
      await rewriter.end();
      bytes = Buffer.concat(out);
    }
    responseHeaders["content-length"] = bytes.length;
    res.writeHead(response.statusCode, responseHeaders);
    res.end(bytes);
  };
}
