import type { Emit, StreamRewriter, Turn } from "./dialect.ts";
import { isObject, type JsonObject } from "./json-values.ts";

/**
 * A response the proxy does not fully understand where it could carry a tool call: refused, never
 * relayed unread. Dialect parsers throw it with a reason that names the problem (shown to the
 * client, written to the audit trail); the response is cut there.
 */
export class ResponseRefused extends Error {
  override name = "ResponseRefused";
  /** The rule or bound that refused it (audit `rule`, metric label); framing.ts names its own. */
  readonly rule: string;

  constructor(reason: string, rule = "dialect") {
    super(reason);
    this.rule = rule;
  }
}

/** Throws the refusal; reads as a statement at the point where a response breaks the rules. */
export function refuse(reason: string): never {
  throw new ResponseRefused(reason);
}

/** The client-facing text of a refusal. */
export function refusalMessage(reason: string): string {
  return `Toolwall refused the model's response: ${reason}`;
}

/**
 * Wraps a dialect's stream rewriter so a refusal cuts the stream: what was judged so far has gone out,
 * the dialect's error event (which the official SDK raises as an API error) follows, the turn records
 * the refusal, and every later byte from upstream is dropped.
 */
export function refusing(
  inner: StreamRewriter,
  turn: Turn,
  emit: Emit,
  errorEvent: (message: string) => Buffer,
): StreamRewriter {
  let refused = false;
  const guard = async (step: () => Promise<void> | void): Promise<void> => {
    if (refused) return;
    try {
      await step();
    } catch (error) {
      if (!(error instanceof ResponseRefused)) throw error;
      refused = true;
      turn.refuse(error.message);
      emit(errorEvent(refusalMessage(error.message)));
    }
  };
  return {
    push: (chunk) => guard(() => inner.push(chunk)),
    end: () => guard(() => inner.end()),
  };
}

/**
 * An SSE event's data read strictly: a JSON object whose string `type` is one of `known` and equals the
 * `event:` name (the SDKs dispatch on `data.type`, the proxy must not read the name instead).
 */
export function parseEventData(
  event: { raw: Buffer; event: string | undefined; data: string | undefined },
  known: ReadonlySet<string>,
): { data: JsonObject; type: string } {
  if (eventFieldCount(event.raw) > 1) refuse(`event '${printable(event.event)}' names itself more than once`);
  let data: unknown;
  try {
    data = JSON.parse(event.data ?? "");
  } catch {
    refuse(`event '${printable(event.event)}' whose data is not JSON`);
  }
  if (!isObject(data)) refuse(`event '${printable(event.event)}' whose data is not a JSON object`);
  const type = data.type;
  if (typeof type !== "string") refuse(`event '${printable(event.event)}' without a string data.type`);
  if (event.event !== type) {
    refuse(`event name '${printable(event.event)}' disagrees with data.type '${printable(type)}'`);
  }
  if (!known.has(type)) refuse(`unknown event type '${printable(type)}'`);
  return { data, type };
}

/** Lines of an event that start with `event` (clients disagree on which of several wins). */
function eventFieldCount(raw: Buffer): number {
  let count = raw.subarray(0, 5).toString("latin1") === "event" ? 1 : 0;
  for (const newline of ["\nevent", "\revent"]) {
    for (let at = raw.indexOf(newline); at >= 0; at = raw.indexOf(newline, at + 1)) count++;
  }
  return count;
}

/** An index field that must hold a non-negative integral JSON number. */
export function indexAt(data: JsonObject, key: string, where: string): number {
  const value = data[key];
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    const shown = JSON.stringify(value)?.slice(0, 80) ?? "missing";
    refuse(`${where}: ${key} ${shown} is not a non-negative integer`);
  }
  return value;
}

/** A value from traffic shown in an error: control characters escaped, length capped. */
export function printable(value: string | undefined): string {
  if (value === undefined) return "(none)";
  const escaped = JSON.stringify(value).slice(1, -1);
  return escaped.length > 80 ? `${escaped.slice(0, 80)}…` : escaped;
}

/** The error body of the OpenAI APIs (Chat and Responses), which the SDK raises as an APIError. */
export function openaiError(message: string): JsonObject {
  return { error: { message, type: "toolwall_refused", param: null, code: "response_refused" } };
}
