/**
 * The inspection handler used until the policy pipeline is plugged in: serves the decrypted stream
 * as HTTP/1.1 or HTTP/2 (by ALPN) and forwards each request to the upstream by name, with
 * Toolwall's own resolution and upstream TLS verified against the public roots plus `--extra-ca`.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingHttpHeaders,
} from "node:http";
import {
  createServer as createHttp2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
} from "node:http2";
import { request as httpsRequest } from "node:https";
import { rootCertificates } from "node:tls";
import type { Resolver } from "../net/resolver.ts";
import type { InspectedConnection, InspectHandler } from "./listener.ts";

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "host",
  "http2-settings",
]);

export function forwardableHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name.startsWith(":") || HOP_BY_HOP.has(name)) continue;
    result[name] = value;
  }
  return result;
}

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

export interface ForwardingOptions {
  resolver: Resolver;
  /** Extra upstream roots (PEM), added to the public roots. */
  extraCa?: string[];
}

export function forwardingHandler(options: ForwardingOptions): InspectHandler {
  const ca = [...rootCertificates, ...(options.extraCa ?? [])];
  const lookup = options.resolver.lookupFunction();
  return httpInspectHandler((request, response, connection) => {
    const send = connection.tls ? httpsRequest : httpRequest;
    const defaultPort = connection.tls ? 443 : 80;
    const upstream = send(
      {
        host: connection.serverName,
        port: connection.port,
        servername: connection.tls ? connection.serverName : undefined,
        method: request.method,
        path: request.url,
        headers: {
          ...forwardableHeaders(request.headers),
          host:
            connection.port === defaultPort
              ? connection.serverName
              : `${connection.serverName}:${connection.port}`,
        },
        lookup: lookup as never,
        ca: connection.tls ? ca : undefined,
      },
      (answer) => {
        (response as ServerResponse).writeHead(answer.statusCode ?? 502, forwardableHeaders(answer.headers));
        answer.pipe(response as ServerResponse);
      },
    );
    upstream.on("error", (error) => {
      if (!response.headersSent) {
        (response as ServerResponse).writeHead(502, { "content-type": "text/plain" });
        response.end(`Toolwall could not reach ${connection.serverName}: ${error.message}\n`);
      } else {
        response.destroy();
      }
    });
    request.pipe(upstream);
  });
}
