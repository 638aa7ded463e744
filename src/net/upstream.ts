import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  brotliDecompressSync,
  createBrotliDecompress,
  createGunzip,
  createInflate,
  gunzipSync,
  inflateSync,
  type ZlibOptions,
} from "node:zlib";
import { Agent, type Dispatcher } from "undici";
import { ResponseRefused } from "../engine/refusal.ts";

/**
 * Headers that describe one hop, never forwarded (RFC 9110 §7.6.1; `http2-settings`, RFC 7540 §3.2.1),
 * plus `host`, set per upstream. The one list: every relay filters headers through the two functions below.
 */
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
  "http2-settings",
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

/** Neither hop-by-hop, nor named by `Connection`, nor an HTTP/2 pseudo-header (`:path`…). */
function endToEnd(name: string, named: ReadonlySet<string>): boolean {
  return !hopByHop.has(name) && !named.has(name) && !name.startsWith(":");
}

/** The end-to-end headers of a request, as undici takes them (API keys included; they are never logged). */
export function forwardableRequestHeaders(
  headers: IncomingHttpHeaders,
  drop: readonly string[] = [],
): Record<string, string | string[]> {
  const named = connectionTokens(headers);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || !endToEnd(name, named) || drop.includes(name)) continue;
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
    if (value === undefined || !endToEnd(name, named) || drop.includes(name)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * Drops an upstream answer's body unread. undici reports a destroyed body with an "error" event,
 * which must have a listener: unheard, it would be an uncaught exception.
 */
export function discardBody(body: Readable): void {
  body.on("error", () => {});
  body.destroy();
}

/** A status whose Location a fetch client follows on its own (304 is a cache answer, not a redirect). */
export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400 && status !== 304;
}

/**
 * Redirects are not relayed: the client would follow the Location around the proxy (an absolute one)
 * or onto a path no dialect judges (a relative one).
 */
export function redirectRefused(status: number): ResponseRefused {
  return new ResponseRefused(
    `the upstream answered with a redirect (${status}), which is not followed`,
    "redirect",
  );
}

export interface UpstreamRequest {
  url: URL;
  method: string;
  headers: Record<string, string | string[]>;
  body?: Buffer | NodeJS.ReadableStream | null;
  signal: AbortSignal;
  /** Overrides the agent's body timeout (0: none, for streams that may stay quiet for long). */
  bodyTimeout?: number;
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
      ...(request.bodyTimeout !== undefined ? { bodyTimeout: request.bodyTimeout } : {}),
    });
  }

  /**
   * Relays a request untouched (routes without a dialect, MCP calls the MCP dialect lets through):
   * body streamed up, answer streamed down.
   */
  async relay(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    signal: AbortSignal,
    options: { refuseRedirects?: boolean } = {},
  ): Promise<void> {
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const response = await this.request({
      url,
      method: req.method ?? "GET",
      headers: forwardableRequestHeaders(req.headers),
      body: hasBody ? req : null,
      signal,
    });
    if (options.refuseRedirects && isRedirect(response.statusCode)) {
      discardBody(response.body);
      throw redirectRefused(response.statusCode);
    }
    res.writeHead(response.statusCode, forwardableResponseHeaders(response.headers));
    await pipeline(response.body, res);
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** The content codings of a body, outermost last; refuses what cannot be read unambiguously. */
function contentCodings(encoding: string | string[] | undefined): string[] {
  if (Array.isArray(encoding)) {
    throw new ResponseRefused("the upstream sent Content-Encoding more than once", "content encoding");
  }
  const codings = (encoding ?? "")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== "identity");
  if (codings.length > 1) {
    throw new ResponseRefused(
      `stacked content encodings are not supported (${codings.join(", ")})`,
      "content encoding",
    );
  }
  return codings;
}

const codings: Record<string, { stream(): Transform; sync(bytes: Buffer, options: ZlibOptions): Buffer }> = {
  gzip: { stream: createGunzip, sync: gunzipSync },
  "x-gzip": { stream: createGunzip, sync: gunzipSync },
  deflate: { stream: createInflate, sync: inflateSync },
  br: { stream: createBrotliDecompress, sync: brotliDecompressSync },
};

function codingNamed(coding: string) {
  const found = Object.hasOwn(codings, coding) ? codings[coding] : undefined;
  if (!found) {
    throw new ResponseRefused(
      `unsupported content encoding ${JSON.stringify(coding.slice(0, 40))}`,
      "content encoding",
    );
  }
  return found;
}

/**
 * A decoded view of a response body whose content-encoding the upstream applied despite `identity`,
 * cut off with a ResponseRefused once more than `maxBytes` came out (a decompression bomb is stopped by
 * what it expands to, not by what it weighs).
 */
export function decodedBody(
  body: Readable,
  encoding: string | string[] | undefined,
  maxBytes = Number.POSITIVE_INFINITY,
): AsyncIterable<Buffer> {
  // Checked now, so a bad encoding is refused before any header goes to the client.
  const [coding] = contentCodings(encoding);
  return boundedDecode(
    body,
    coding === undefined ? undefined : codingNamed(coding).stream(),
    maxBytes,
    coding,
  );
}

async function* boundedDecode(
  body: Readable,
  decoder: Transform | undefined,
  maxBytes: number,
  coding: string | undefined,
): AsyncIterable<Buffer> {
  let source: AsyncIterable<Buffer> = body;
  let bodyFailed = false;
  if (decoder) {
    body.pipe(decoder);
    body.on("error", (error) => {
      bodyFailed = true;
      decoder.destroy(error);
    });
    source = decoder;
  }
  let size = 0;
  try {
    for await (const chunk of source) {
      size += chunk.length;
      if (size > maxBytes) {
        throw new ResponseRefused(
          `the response is larger than the limit of ${maxBytes} bytes`,
          "response size",
        );
      }
      yield chunk;
    }
  } catch (error) {
    if (error instanceof ResponseRefused || decoder === undefined || bodyFailed) throw error;
    throw new ResponseRefused(`the response body is not valid ${coding}`, "content encoding");
  } finally {
    decoder?.destroy();
    if (!body.readableEnded) discardBody(body);
  }
}

/** A request body as the client encoded it, decoded (bounded) so it can be judged and re-serialised. */
export function decodedRequestBody(
  raw: Buffer,
  encoding: string | string[] | undefined,
  maxBytes: number,
): Buffer {
  const [coding] = contentCodings(encoding);
  if (coding === undefined) return raw;
  const { sync } = codingNamed(coding);
  try {
    return sync(raw, { maxOutputLength: maxBytes });
  } catch {
    throw new ResponseRefused(
      `the request body is not valid ${coding} within ${maxBytes} bytes`,
      "content encoding",
    );
  }
}
