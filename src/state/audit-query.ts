import type { AuditQuery, StampedAuditEvent } from "./types.ts";

export const maxAuditQueryLimit = 10_000;

/** Field filters of an audit query (namespace, time and cursor are applied by the stores). */
export function matchesAuditQuery(event: StampedAuditEvent, query: AuditQuery): boolean {
  if (query.type && query.type.length > 0 && !query.type.includes(event.type)) return false;
  if (query.server !== undefined && !sameText(event["server"], query.server)) return false;
  if (query.tool !== undefined && !sameText(event["tool"], query.tool)) return false;
  if (query.action !== undefined && !sameText(event["action"], query.action)) return false;
  return true;
}

function sameText(value: unknown, wanted: string): boolean {
  return typeof value === "string" && value.toLowerCase() === wanted.toLowerCase();
}

/** Redis stream ids are `<ms>-<seq>`; this orders them numerically. */
export function compareStreamIds(a: string, b: string): number {
  const [aMs, aSeq] = splitStreamId(a);
  const [bMs, bSeq] = splitStreamId(b);
  return aMs !== bMs ? aMs - bMs : aSeq - bSeq;
}

function splitStreamId(id: string): [number, number] {
  const dash = id.indexOf("-");
  if (dash < 0) return [Number(id), 0];
  return [Number(id.slice(0, dash)), Number(id.slice(dash + 1))];
}

export function isStreamId(text: string): boolean {
  return /^\d{1,16}(-\d{1,16})?$/.test(text);
}
