/** JSON-RPC 2.0 as MCP uses it: one message or (2025-03-26 only) a batch array. */

export type JsonRpcId = string | number | null;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcResponse {
  jsonrpc: "2.0";
  id: JsonRpcId;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export type Classified =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification }
  | { kind: "response"; message: JsonRpcResponse }
  | { kind: "invalid"; message: unknown; problem: string };

export const errorCodes = {
  parse: -32700,
  invalidRequest: -32600,
  blocked: -32001,
  internal: -32603,
} as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function validId(id: unknown): id is string | number {
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

/** What one JSON value is, without trusting any of it. */
export function classify(value: unknown): Classified {
  if (!isObject(value)) return { kind: "invalid", message: value, problem: "not a JSON object" };
  if (value.jsonrpc !== "2.0") return { kind: "invalid", message: value, problem: "jsonrpc must be '2.0'" };
  const hasParams = "params" in value && value.params !== undefined;
  if (hasParams && !isObject(value.params) && !Array.isArray(value.params)) {
    return { kind: "invalid", message: value, problem: "params must be an object or array" };
  }
  if (typeof value.method === "string") {
    if (!("id" in value)) return { kind: "notification", message: value as unknown as JsonRpcNotification };
    if (!validId(value.id))
      return { kind: "invalid", message: value, problem: "id must be a string or a number" };
    return { kind: "request", message: value as unknown as JsonRpcRequest };
  }
  if ("method" in value) return { kind: "invalid", message: value, problem: "method must be a string" };
  if ("result" in value || "error" in value) {
    if (value.id !== null && !validId(value.id))
      return { kind: "invalid", message: value, problem: "id must be a string or a number" };
    return { kind: "response", message: value as unknown as JsonRpcResponse };
  }
  return { kind: "invalid", message: value, problem: "neither a request, a notification nor a response" };
}

/** Deepest nesting of arrays and objects accepted in one JSON text (MCP messages nest a few levels). */
export const maxJsonDepth = 256;

/** Thrown for JSON text Toolwall will not read; the message names the problem or the limit. */
export class JsonTextError extends Error {}

/**
 * Parses one JSON text as the clients read it: a leading byte order mark is dropped (as
 * `Response.json()` and TextDecoder do), nesting deeper than maxJsonDepth is refused before parsing
 * (so no recursion anywhere later can run out of stack).
 */
export function parseJson(text: string, what: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const code = body.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > maxJsonDepth)
        throw new JsonTextError(`${what} nests deeper than the limit of ${maxJsonDepth} levels`);
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new JsonTextError(`${what} is not JSON: ${(error as Error).message}`);
  }
}

export interface ParsedBody {
  batch: boolean;
  messages: Classified[];
}

/** Parses a POST body. Throws with a clear message on text that is not JSON or an empty batch. */
export function parseBody(text: string): ParsedBody {
  const value = parseJson(text, "body");
  if (Array.isArray(value)) {
    if (value.length === 0) throw new Error("empty batch");
    return { batch: true, messages: value.map(classify) };
  }
  return { batch: false, messages: [classify(value)] };
}

export function errorResponse(id: JsonRpcId, code: number, message: string, data?: unknown): JsonRpcResponse {
  return { jsonrpc: "2.0", id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

export function resultResponse(id: JsonRpcId, result: unknown): JsonRpcResponse {
  return { jsonrpc: "2.0", id, result };
}

/**
 * A Map key for an id, matching answers to requests the way clients do: the MCP SDK looks an answer
 * up by `Number(id)`, so `1`, `"1"`, `"01"` and `" 1e0 "` are one id; other ids compare as strings.
 * What any client could take for the answer to a request is treated as that answer.
 */
export function idKey(id: unknown): string {
  const number = typeof id === "object" && id !== null ? Number.NaN : Number(id);
  return Number.isFinite(number) ? `n:${number}` : `s:${String(id)}`;
}
