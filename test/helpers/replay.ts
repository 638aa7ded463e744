import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

/**
 * A local stand-in for a provider that replays recorded-shape fixtures (tests, benchmarks): the
 * request names the fixture in `x-fixture: <dialect>/<file>` and may ask for the bytes to be written
 * in pieces cut at `x-cut: 3,17,…` (one write per piece, a turn of the event loop between them) and
 * for SSE line endings turned into CRLF (`x-crlf: 1`), with `x-delay-ms` between pieces, under the
 * content-type `x-content-type` (default: the fixture's own).
 */

const fixturesDir = fileURLToPath(new URL("../dialects/fixtures/", import.meta.url));
const cache = new Map<string, Buffer>();

export function fixtureBytes(name: string): Buffer {
  let bytes = cache.get(name);
  if (!bytes) {
    if (!/^[a-z-]+\/[a-z0-9.-]+$/.test(name)) throw new Error(`bad fixture name '${name}'`);
    const [dialect, file] = name.split("/") as [string, string];
    bytes = readFileSync(`${fixturesDir}${dialect}/${file}`);
    cache.set(name, bytes);
  }
  return bytes;
}

export function toCrlf(bytes: Buffer): Buffer {
  return Buffer.from(bytes.toString("utf8").replace(/\r?\n/g, "\r\n"));
}

/** Splits bytes at the given offsets (sorted, deduplicated, out-of-range ignored). */
export function cutAt(bytes: Buffer, offsets: readonly number[]): Buffer[] {
  const points = [...new Set(offsets)].filter((o) => o > 0 && o < bytes.length).sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(bytes.subarray(start, point));
    start = point;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface ReplayServer {
  url: string;
  server: Server;
  requests: RecordedRequest[];
  /** Responses the client (the proxy) abandoned before they were complete. */
  abandoned: number;
  close(): Promise<void>;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function replay(req: IncomingMessage, res: ServerResponse, requests: RecordedRequest[]): Promise<void> {
  const delay = Number(header(req, "x-delay-ms") ?? 0);
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  requests.push({
    method: req.method ?? "",
    url: req.url ?? "",
    headers: req.headers,
    body: Buffer.concat(chunks).toString("utf8"),
  });
  if (requests.length > 50) requests.shift();
  const name = header(req, "x-fixture");
  if (!name) {
    res.writeHead(400, { "content-type": "application/json" });
    res.end('{"error":{"message":"x-fixture header missing"}}');
    return;
  }
  let bytes = fixtureBytes(name);
  const sse = name.endsWith(".sse");
  if (sse && header(req, "x-crlf") === "1") bytes = toCrlf(bytes);
  const type =
    header(req, "x-content-type") ?? (sse ? "text/event-stream; charset=utf-8" : "application/json");
  res.writeHead(200, { "content-type": type });
  const cuts = (header(req, "x-cut") ?? "")
    .split(",")
    .filter(Boolean)
    .map((n) => Number.parseInt(n, 10));
  for (const piece of cutAt(bytes, cuts)) {
    if (res.destroyed) return;
    res.write(piece);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    else if (cuts.length > 0) await new Promise((resolve) => setImmediate(resolve));
  }
  res.end();
}

export async function startReplayServer(): Promise<ReplayServer> {
  const requests: RecordedRequest[] = [];
  const state = { abandoned: 0 };
  const server = createServer((req, res) => {
    res.on("close", () => {
      if (!res.writableFinished) state.abandoned++;
    });
    replay(req, res, requests).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: error.message } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    requests,
    get abandoned() {
      return state.abandoned;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
