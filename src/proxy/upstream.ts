import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { Agent, type Dispatcher } from "undici";

/** Headers that describe one hop, never forwarded (RFC 9110 §7.6.1), plus `host`, set per upstream. */
const hopByHop = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
]);

function connectionTokens(headers: IncomingHttpHeaders | Record<string, unknown>): Set<string> {
  const value = headers.connection;
  const text = Array.isArray(value) ? value.join(",") : typeof value === "string" ? value : "";
  return new Set(
    text
      .split(",")
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** The end-to-end headers of a request, as undici takes them (API keys included; they are never logged). */
export function forwardableRequestHeaders(
  headers: IncomingHttpHeaders,
  drop: readonly string[] = [],
): Record<string, string | string[]> {
  const named = connectionTokens(headers);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || hopByHop.has(name) || named.has(name) || drop.includes(name)) continue;
    out[name] = value;
  }
  return out;
}

/** The end-to-end headers of an upstream response, for `res.writeHead`. */
export function forwardableResponseHeaders(
  headers: Record<string, string | string[] | undefined>,
  drop: readonly string[] = [],
): OutgoingHttpHeaders {
  const named = connectionTokens(headers);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || hopByHop.has(name) || named.has(name) || drop.includes(name)) continue;
    out[name] = value;
  }
  return out;
}

export interface UpstreamRequest {
  url: URL;
  method: string;
  headers: Record<string, string | string[]>;
  body?: Buffer | NodeJS.ReadableStream | null;
  signal: AbortSignal;
}

/**
 * One pooled undici Agent for every upstream (connections kept alive per origin). Streams both ways:
 * the request body may be the client's request stream, the response body is read as it arrives.
 */
export class Upstream {
  readonly agent: Agent;

  constructor(options: Agent.Options = {}) {
    this.agent = new Agent({
      keepAliveTimeout: 30_000,
      pipelining: 1,
      headersTimeout: 300_000,
      bodyTimeout: 300_000,
      ...options,
    });
  }

  request(request: UpstreamRequest): Promise<Dispatcher.ResponseData> {
    return this.agent.request({
      origin: request.url.origin,
      path: request.url.pathname + request.url.search,
      method: request.method as Dispatcher.HttpMethod,
      headers: request.headers,
      body: (request.body ?? null) as Dispatcher.DispatchOptions["body"],
      signal: request.signal,
    });
  }

  /**
   * Relays a request untouched (routes without a dialect, MCP calls the MCP dialect lets through):
   * body streamed up, answer streamed down.
   */
  async relay(req: IncomingMessage, res: ServerResponse, url: URL, signal: AbortSignal): Promise<void> {
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const response = await this.request({
      url,
      method: req.method ?? "GET",
      headers: forwardableRequestHeaders(req.headers),
      body: hasBody ? req : null,
      signal,
    });
    res.writeHead(response.statusCode, forwardableResponseHeaders(response.headers));
    await pipeline(response.body, res);
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** A decoded view of a response body whose content-encoding the upstream applied despite `identity`. */
export function decodedBody(
  body: AsyncIterable<Buffer> & NodeJS.ReadableStream,
  encoding: string | undefined,
): AsyncIterable<Buffer> {
  const codings = (encoding ?? "")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== "identity");
  if (codings.length === 0) return body;
  if (codings.length > 1) throw new Error(`unsupported content-encoding '${encoding}'`);
  const coding = codings[0];
  const decoder =
    coding === "gzip" || coding === "x-gzip"
      ? createGunzip()
      : coding === "deflate"
        ? createInflate()
        : coding === "br"
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) throw new Error(`unsupported content-encoding '${encoding}'`);
  body.pipe(decoder);
  body.on("error", (error) => decoder.destroy(error));
  return decoder;
}
