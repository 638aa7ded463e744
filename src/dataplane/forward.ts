/**
 * Serves a decrypted (or plain) inspected connection as HTTP/1.1 or HTTP/2, by ALPN, and hands each
 * request to the data plane's request handler.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer as createHttpServer } from "node:http";
import {
  createServer as createHttp2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
} from "node:http2";
import type { InspectedConnection, InspectHandler } from "./listener.ts";

export type RequestHandler = (
  request: IncomingMessage | Http2ServerRequest,
  response: ServerResponse | Http2ServerResponse,
  connection: InspectedConnection,
) => void;

/** Serves an inspected connection as HTTP/1.1 or HTTP/2 and calls `handler` per request. */
export function httpInspectHandler(handler: RequestHandler): InspectHandler {
  return (connection) => {
    if (connection.alpn === "h2") {
      const server = createHttp2Server((request, response) => handler(request, response, connection));
      server.emit("connection", connection.socket);
    } else {
      const server = createHttpServer((request, response) => handler(request, response, connection));
      server.emit("connection", connection.socket);
    }
  };
}
