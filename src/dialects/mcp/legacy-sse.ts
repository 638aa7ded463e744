import type { ServerResponse } from "node:http";
import { formatEvent, type SseEvent, type SseParser } from "../../codecs/sse.ts";
import type { RouteContext } from "../../net/server.ts";
import { relayUnchanged, write } from "./http.ts";
import type { JsonRpcResponse } from "./jsonrpc.ts";
import { forwardJudged, type RouteCore } from "./relay.ts";
import { type McpTarget, proxyPathFor } from "./routing.ts";
import { type LegacySession, pendingListings, type SessionRef } from "./sessions.ts";
import { replaceEventData } from "./sse.ts";

/**
 * The legacy HTTP+SSE transport: the GET stream's `endpoint` event is rewritten to the proxy path and
 * opens a session remembered by its endpoint; the session's POSTs are answered 202, their denials
 * written into the session's stream, where the server's answers arrive too.
 */

/**
 * The `endpoint` event of a legacy GET stream: the session is opened and the client told the proxy
 * path of the endpoint; an endpoint outside the server's path closes the stream.
 */
export async function openLegacyEndpoint(
  core: RouteCore,
  res: ServerResponse,
  target: McpTarget,
  legacyRoute: { prefix: string; headers: Record<string, string | string[]> },
  event: SseEvent,
  parser: SseParser,
  session: SessionRef,
): Promise<void> {
  const endpoint = new URL(event.data!, target.url);
  const path = proxyPathFor(legacyRoute.prefix, target.server, endpoint);
  if (path === undefined) {
    core.context.log(
      `toolwall mcp: ${target.server.name}: legacy endpoint ${endpoint.pathname} is outside the server's path; stream closed`,
    );
    res.destroy();
    return;
  }
  // A legacy session keeps the GET's headers (credentials) for its re-checks.
  const { accept: _accept, ...postHeaders } = legacyRoute.headers;
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
  core.sessions.openLegacy(legacy);
  session.legacy = legacy;
  session.id = endpoint.searchParams.get("sessionId") ?? undefined;
  await write(res, replaceEventData(event.raw, path, parser.lineEnding));
}

/**
 * A judged POST of a legacy session: Toolwall's answers go into the session's stream; what was let
 * through is forwarded and the server's acknowledgement relayed (its answers come on the stream).
 */
export async function answerLegacyPost(
  core: RouteCore,
  res: ServerResponse,
  route: RouteContext,
  target: McpTarget,
  legacy: LegacySession,
  headers: Record<string, string | string[]>,
  answers: JsonRpcResponse[],
  forwarded: unknown[],
  batch: boolean,
): Promise<void> {
  for (const answer of answers) legacy.send(answer);
  if (forwarded.length === 0) {
    res.writeHead(202, { "content-type": "text/plain" });
    res.end("Accepted");
    return;
  }
  const response = await forwardJudged(core, route, target, headers, forwarded, batch);
  await relayUnchanged(res, response);
}
