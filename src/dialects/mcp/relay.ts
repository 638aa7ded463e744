import type { ServerResponse } from "node:http";
import type { Dispatcher } from "undici";
import { formatEvent, type SseEvent, SseParser, withoutLeadingBom } from "../../codecs/sse.ts";
import type { ProxyContext, RouteContext } from "../../net/server.ts";
import { decodedBody, forwardableResponseHeaders, type UpstreamRequest } from "../../net/upstream.ts";
import type { McpContext, McpGate } from "./gate.ts";
import { isObject, maxJsonResponseBytes, write } from "./http.ts";
import { idKey, type JsonRpcResponse, JsonTextError, parseJson } from "./jsonrpc.ts";
import type { Rechecker } from "./recheck.ts";
import type { McpTarget } from "./routing.ts";
import type { McpSessions, PendingListing, SessionRef } from "./sessions.ts";
import { replaceEventData } from "./sse.ts";

/** What the transports share: the proxy core, the gate, the sessions, the re-check, the upstream. */
export interface RouteCore {
  context: ProxyContext;
  gate: McpGate;
  sessions: McpSessions;
  rechecker: Rechecker;
  /** An upstream request without a body timeout; a redirect is an McpRouteError, never relayed. */
  request(request: UpstreamRequest): Promise<Dispatcher.ResponseData>;
}

/**
 * What was judged, sent upstream as a POST: the serialisation of the judged messages, never the
 * client's bytes, so no parser differential (duplicate keys, invalid UTF-8) can make the server
 * read another call.
 */
export function forwardJudged(
  core: RouteCore,
  route: RouteContext,
  target: McpTarget,
  headers: Record<string, string | string[]>,
  forwarded: unknown[],
  batch: boolean,
): Promise<Dispatcher.ResponseData> {
  return core.request({
    url: target.url,
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: Buffer.from(JSON.stringify(batch ? forwarded : forwarded[0])),
    signal: route.signal,
  });
}

/** One server message on its way to the client: listings filtered, list_changed re-checked. */
async function processMessage(
  core: RouteCore,
  value: unknown,
  context: McpContext,
  pending: Map<string, PendingListing>,
  target: McpTarget,
  session: SessionRef,
): Promise<{ value: unknown; changed: boolean; drop: boolean }> {
  if (!isObject(value)) return { value, changed: false, drop: false };
  if (value.method === "notifications/tools/list_changed" && !("id" in value)) {
    core.rechecker.listChanged(context, target, session);
    return { value, changed: false, drop: false };
  }
  if (!("result" in value) || !("id" in value)) return { value, changed: false, drop: false };
  const key = idKey(value.id as string | number);
  const listing = pending.get(key);
  if (!listing) return { value, changed: false, drop: false };
  if (listing.internal) pending.delete(key);
  else listing.answered = true;
  const result = await core.gate.filterResult(context, listing.method, listing.params, value.result);
  if (listing.internal) {
    const cursor = isObject(result) ? result.nextCursor : undefined;
    if (typeof cursor === "string" && session.legacy) core.rechecker.sendLegacy(session.legacy, cursor);
    return { value, changed: false, drop: true };
  }
  // Always re-serialised: the client receives the listing that was judged, not the upstream's bytes.
  return { value: result === value.result ? value : { ...value, result }, changed: true, drop: false };
}

/**
 * The messages of one JSON text, processed; `value` undefined when every message was swallowed.
 * Throws JsonTextError for text that is not JSON: it is never relayed unread.
 */
export async function processData(
  core: RouteCore,
  data: string,
  context: McpContext,
  pending: Map<string, PendingListing>,
  target: McpTarget,
  session: SessionRef,
): Promise<{ value: unknown; changed: boolean }> {
  const value = parseJson(data, "upstream message");
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    let changed = false;
    for (const item of value) {
      const processed = await processMessage(core, item, context, pending, target, session);
      changed ||= processed.changed || processed.drop;
      if (!processed.drop) out.push(processed.value);
    }
    return { value: out.length === 0 ? undefined : out, changed };
  }
  const processed = await processMessage(core, value, context, pending, target, session);
  if (processed.drop) return { value: undefined, changed: true };
  return { value: processed.value, changed: processed.changed };
}

/**
 * An upstream answer on its way to the client: what judges it (the route, the request's MCP context,
 * the target server, the listings awaiting an answer) and Toolwall's own answers for denied requests.
 */
export interface UpstreamAnswer {
  core: RouteCore;
  res: ServerResponse;
  response: Dispatcher.ResponseData;
  context: McpContext;
  target: McpTarget;
  pending: Map<string, PendingListing>;
  /** Toolwall's answers to the denied requests of the same POST, sent first. */
  answers: JsonRpcResponse[];
}

/**
 * A legacy `endpoint` event on a GET stream (legacy-sse.ts): it writes what the client gets, and
 * records the session it opens in `session`.
 */
export type EndpointHandler = (event: SseEvent, parser: SseParser, session: SessionRef) => Promise<void>;

/**
 * An SSE answer or stream, event by event: only events that carry a listing answer are rewritten.
 * `answers` (Toolwall's own, for denied requests) go first.
 */
export async function relayStream(answer: UpstreamAnswer, onEndpoint: EndpointHandler | undefined) {
  const { core, res, response, context, target, pending, answers } = answer;
  const headers = forwardableResponseHeaders(response.headers, ["content-length", "content-encoding"]);
  res.writeHead(response.statusCode, headers);
  res.flushHeaders();
  // Bounded like a JSON answer: an event that never ends must not grow the proxy without limit.
  const parser = new SseParser({ maxEventBytes: maxJsonResponseBytes });
  const session: SessionRef = { id: context.mcpSession, legacy: undefined };
  const queue: Buffer[] = answers.map((answer) =>
    formatEvent({ event: "message", data: JSON.stringify(answer) }, "\n"),
  );
  for (const bytes of queue) await write(res, bytes);
  const handleEvent = async (event: SseEvent) => {
    if (event.event === "endpoint" && onEndpoint && event.data !== undefined) {
      await onEndpoint(event, parser, session);
      return;
    }
    if (event.unreadable?.rule === "bom") {
      // Some clients strip a BOM that leads a line, others keep it: no reading is safe to relay.
      core.context.log(`toolwall mcp: ${target.server.name}: event dropped: ${event.unreadable.message}`);
      return;
    }
    if (event.data === undefined || event.data.trim() === "") {
      await write(res, event.raw);
      return;
    }
    const listings = session.legacy?.pending ?? pending;
    let processed: { value: unknown; changed: boolean };
    try {
      processed = await processData(core, event.data, context, listings, target, session);
    } catch (error) {
      if (!(error instanceof JsonTextError)) throw error;
      core.context.log(`toolwall mcp: ${target.server.name}: event dropped: ${error.message}`);
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
    if (session.legacy) core.sessions.closeLegacy(session.legacy);
  }
  res.end();
}
