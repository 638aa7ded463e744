import type { ServerResponse } from "node:http";
import type { RouteContext } from "../../net/server.ts";
import { decodedBody, forwardableResponseHeaders } from "../../net/upstream.ts";
import type { McpContext } from "./gate.ts";
import { contentType, maxJsonResponseBytes, readLimited, relayUnchanged, sendJson } from "./http.ts";
import { type JsonRpcResponse, JsonTextError } from "./jsonrpc.ts";
import { forwardJudged, processData, type RouteCore, relayStream, type UpstreamAnswer } from "./relay.ts";
import { McpRouteError, type McpTarget } from "./routing.ts";
import type { PendingListing } from "./sessions.ts";

/**
 * The Streamable HTTP transport's answer to a judged POST: Toolwall's answers alone when nothing was
 * let through, else the server's answer (JSON or SSE) with its listings filtered and Toolwall's
 * answers merged in (a JSON array, or SSE events with ours first).
 */
export async function answerStreamablePost(
  core: RouteCore,
  res: ServerResponse,
  route: RouteContext,
  target: McpTarget,
  context: McpContext,
  pending: Map<string, PendingListing>,
  headers: Record<string, string | string[]>,
  answers: JsonRpcResponse[],
  forwarded: unknown[],
  batch: boolean,
): Promise<void> {
  if (forwarded.length === 0) {
    if (answers.length === 0) {
      // Only notifications, all dropped: what the server would have said to a notification.
      res.writeHead(202).end();
      return;
    }
    sendJson(res, 200, batch ? answers : answers[0]);
    return;
  }
  const response = await forwardJudged(core, route, target, headers, forwarded, batch);
  const type = contentType(response.headers);
  const answer: UpstreamAnswer = { core, res, response, context, target, pending, answers };
  if (type === "text/event-stream") {
    await relayStream(answer, undefined);
    return;
  }
  if (type === "application/json" && response.statusCode < 300) {
    await relayJson(answer, batch);
    return;
  }
  if (answers.length > 0 && response.statusCode < 300) {
    await response.body.dump();
    sendJson(res, 200, batch ? answers : answers[0]);
    return;
  }
  await relayUnchanged(res, response);
}

async function relayJson(answer: UpstreamAnswer, batch: boolean) {
  const { core, res, response, context, target, pending, answers } = answer;
  const body = await readLimited(
    decodedBody(response.body, response.headers["content-encoding"] as string | undefined),
    maxJsonResponseBytes,
    "upstream JSON answer",
  );
  const headers = forwardableResponseHeaders(response.headers, ["content-length", "content-encoding"]);
  let processed: { value: unknown; changed: boolean };
  try {
    processed = await processData(core, body.toString("utf8"), context, pending, target, {
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
