import type { IncomingMessage, ServerResponse } from "node:http";
import type { Dispatcher } from "undici";
import { forwardableRequestHeaders, forwardableResponseHeaders } from "../../net/upstream.ts";
import { McpRouteError } from "./routing.ts";

/** The HTTP plumbing the MCP transports share: limits, header reading, bounded bodies, writes. */

export const maxRequestBytes = 8 * 1024 * 1024;
export const maxJsonResponseBytes = 64 * 1024 * 1024;

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function contentType(headers: Record<string, string | string[] | undefined>): string {
  const value = headers["content-type"];
  const text = (Array.isArray(value) ? value[0] : value) ?? "";
  return text.split(";")[0]!.trim().toLowerCase();
}

export async function readLimited(body: AsyncIterable<Buffer>, limit: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) throw new McpRouteError(413, `${what} is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
) {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

export function write(res: ServerResponse, bytes: Buffer): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  if (res.write(bytes)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** The upstream answer relayed as it is: status, end-to-end headers, body. */
export async function relayUnchanged(res: ServerResponse, response: Dispatcher.ResponseData): Promise<void> {
  res.writeHead(response.statusCode, forwardableResponseHeaders(response.headers));
  for await (const chunk of response.body) await write(res, chunk as Buffer);
  res.end();
}

export function upstreamHeaders(req: IncomingMessage): Record<string, string | string[]> {
  // What goes upstream is a re-serialisation, never the client's bytes: the client's encoding of
  // its body does not describe it. The proxy reads every answer: no compression upstream of it.
  const headers = forwardableRequestHeaders(req.headers, [
    "content-length",
    "content-encoding",
    "accept-encoding",
  ]);
  headers["accept-encoding"] = "identity";
  return headers;
}
