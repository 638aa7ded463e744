/**
 * A raw LLM upstream for adversarial tests: the test controls every byte of each answer — status
 * line, headers (duplicates, odd casing, any order), body bytes, chunk boundaries, compression and
 * delays between writes. Node's HTTP server only parses the request; the answer is written straight
 * to the socket, which is closed afterwards (each answer says `connection: close` unless the test
 * writes its own head).
 *
 * Stable API (other branches build on it):
 *   const upstream = await startRawUpstream((request) => rawAnswer({ body: "…" }), { tls? });
 *   upstream.url               — http://127.0.0.1:port (https://localhost:port with `tls`: a leaf
 *                                certificate and key in PEM), the base URL to put behind the proxy
 *   upstream.requests          — every request received (method, path, headers, body)
 *   upstream.respond = fn      — change the responder between tests
 *   await upstream.close()
 *
 *   rawAnswer({ status?, reason?, headers?, body?, chunks?, transferEncoding?, gzip? }) → Answer
 *     headers: [name, value][] (order and duplicates kept); default content-type application/json.
 *     body: the entity (string or Buffer); `encoding` ("gzip", "deflate", "br"; `gzip: true` is
 *       encoding "gzip") compresses it and adds its content-encoding header (or set `headers` yourself
 *       and pass an already encoded body).
 *     chunks: cut points (byte offsets in the encoded body) where separate socket writes start;
 *     transferEncoding "chunked" frames the body as HTTP chunks at those cut points, otherwise a
 *       content-length is sent (unless `contentLength: false`, then the body ends with the socket).
 *     delayMs: pause between writes.
 *   An Answer is a list of socket writes ({ bytes, delayMs }); tests may build one by hand.
 */
import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { cutAt } from "../helpers/replay.ts";

export interface RawRequest {
  method: string;
  /** Path and query as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: unknown;
}

export interface Write {
  bytes: Buffer;
  /** Pause before this write. */
  delayMs?: number;
}

export type Answer = Write[];
export type Responder = (request: RawRequest) => Answer | Promise<Answer>;

export interface RawUpstream {
  url: string;
  requests: RawRequest[];
  respond: Responder;
  close(): Promise<void>;
}

export interface RawAnswerOptions {
  status?: number;
  reason?: string;
  /** Header lines in order; duplicates allowed. A content-type is added when none is given. */
  headers?: readonly (readonly [string, string])[];
  body?: string | Buffer;
  gzip?: boolean;
  encoding?: "gzip" | "deflate" | "br";
  /** Byte offsets into the (encoded) body where a new socket write starts. */
  chunks?: readonly number[];
  transferEncoding?: "chunked";
  /** Send no content-length (the body ends when the connection closes). Default: sent. */
  contentLength?: boolean;
  delayMs?: number;
}

const encoders = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync } as const;

/** An answer built from parts; see the file header. */
export function rawAnswer(options: RawAnswerOptions = {}): Answer {
  const status = options.status ?? 200;
  const headers: [string, string][] = (options.headers ?? []).map(([name, value]) => [name, value]);
  if (!headers.some(([name]) => name.toLowerCase() === "content-type")) {
    headers.push(["content-type", "application/json"]);
  }
  let body = Buffer.from(options.body ?? "");
  const encoding = options.encoding ?? (options.gzip ? "gzip" : undefined);
  if (encoding) {
    body = encoders[encoding](body);
    headers.push(["content-encoding", encoding]);
  }
  const pieces = cutAt(body, options.chunks ?? []);
  if (options.transferEncoding === "chunked") headers.push(["transfer-encoding", "chunked"]);
  else if (options.contentLength !== false) headers.push(["content-length", String(body.length)]);
  headers.push(["connection", "close"]);
  const head = `HTTP/1.1 ${status} ${options.reason ?? "OK"}\r\n${headers
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")}\r\n`;
  const delay = options.delayMs ?? 0;
  const writes: Answer = [{ bytes: Buffer.from(head) }];
  for (const piece of pieces) {
    if (piece.length === 0) continue;
    const bytes =
      options.transferEncoding === "chunked"
        ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")])
        : piece;
    writes.push({ bytes, delayMs: delay });
  }
  if (options.transferEncoding === "chunked")
    writes.push({ bytes: Buffer.from("0\r\n\r\n"), delayMs: delay });
  return writes;
}

async function writeAnswer(socket: Socket, answer: Answer): Promise<void> {
  for (const write of answer) {
    if (write.delayMs) await sleep(write.delayMs);
    if (socket.destroyed) return;
    await new Promise<void>((resolve) => socket.write(write.bytes, () => resolve()));
  }
  socket.end();
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

export interface RawUpstreamOptions {
  /** Serve HTTPS on `localhost` with this certificate (issued for "localhost") and key, PEM. */
  tls?: { certificatePem: string; keyPem: string };
}

export async function startRawUpstream(
  respond: Responder,
  options: RawUpstreamOptions = {},
): Promise<RawUpstream> {
  const requests: RawRequest[] = [];
  const upstream: RawUpstream = {
    url: "",
    requests,
    respond,
    close: async () => {},
  };
  const sockets = new Set<Socket>();
  const handle: RequestListener = async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const request: RawRequest = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: req.headers,
      body,
      json: parseJson(body),
    };
    requests.push(request);
    const socket = res.socket as Socket;
    // The answer bypasses Node's response writer entirely.
    res.detachSocket(socket);
    try {
      await writeAnswer(socket, await upstream.respond(request));
    } catch {
      socket.destroy();
    }
  };
  const server: Server = options.tls
    ? createTlsServer({ cert: options.tls.certificatePem, key: options.tls.keyPem }, handle)
    : createServer(handle);
  server.on(options.tls ? "secureConnection" : "connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  upstream.url = options.tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`;
  upstream.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return upstream;
}
