import { parseDuration } from "../kernel/duration.ts";
import { isStreamId, maxAuditQueryLimit } from "./audit-query.ts";
import type { AuditQuery } from "./types.ts";

export class EventsQueryError extends Error {}

/** The event types that are tool calls (`toolwall calls`). */
export const toolCallEventTypes = ["tool_call_intercepted", "mcp_tool_call_intercepted", "mcp_tool_called"];

const dnsLabel = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * `since`: an RFC 3339 time, milliseconds since the epoch, or a duration back from now ("15m").
 */
export function parseSince(text: string, now: number): number {
  if (/^\d{10,16}$/.test(text)) return Number(text);
  if (/^\d{4}-\d{2}-\d{2}T/.test(text)) {
    const at = Date.parse(text);
    if (Number.isNaN(at)) throw new EventsQueryError(`since: '${text}' is not a valid RFC 3339 time`);
    return at;
  }
  try {
    return now - parseDuration(text);
  } catch {
    throw new EventsQueryError(
      `since: expected an RFC 3339 time, epoch milliseconds or a duration like 15m, got '${text}'`,
    );
  }
}

/** The query string of `GET /v1/events` as an AuditQuery; a bad parameter is an EventsQueryError. */
export function parseEventsQuery(params: Record<string, unknown>, now = Date.now()): AuditQuery {
  const text = (name: string): string | undefined => {
    const value = params[name];
    if (value === undefined || value === "") return undefined;
    if (typeof value !== "string") throw new EventsQueryError(`${name}: give it once`);
    if (value.length > 253) throw new EventsQueryError(`${name}: longer than 253 characters`);
    return value;
  };
  const query: AuditQuery = { limit: 100 };
  const namespace = text("namespace");
  if (namespace !== undefined) {
    if (!dnsLabel.test(namespace))
      throw new EventsQueryError(`namespace: '${namespace}' is not a namespace name`);
    query.namespace = namespace;
  }
  const type = text("type");
  if (type !== undefined) query.type = type.split(",").map((t) => t.trim());
  for (const name of ["server", "tool", "action"] as const) {
    const value = text(name);
    if (value !== undefined) query[name] = value;
  }
  const since = text("since");
  if (since !== undefined) query.since = parseSince(since, now);
  const after = text("after");
  if (after !== undefined) {
    if (!isStreamId(after))
      throw new EventsQueryError(`after: '${after}' is not an event id (like 1700000000000-0)`);
    query.after = after;
  }
  const limit = text("limit");
  if (limit !== undefined) {
    const n = Number(limit);
    if (!Number.isInteger(n) || n < 1 || n > maxAuditQueryLimit) {
      throw new EventsQueryError(
        `limit: expected an integer from 1 to ${maxAuditQueryLimit}, got '${limit}'`,
      );
    }
    query.limit = n;
  }
  return query;
}
