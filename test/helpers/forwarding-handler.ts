/**
 * A bare forwarding inspect handler for the listener's own tests: each request of an inspected
 * connection goes to the upstream by name (the test's resolver), with no policy pipeline behind it.
 */
import { request as httpRequest, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import { rootCertificates } from "node:tls";
import { httpInspectHandler } from "../../src/dataplane/forward.ts";
import type { InspectHandler } from "../../src/dataplane/listener.ts";
import type { Resolver } from "../../src/net/resolver.ts";
import { forwardableRequestHeaders, forwardableResponseHeaders } from "../../src/net/upstream.ts";

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
          ...forwardableRequestHeaders(request.headers as IncomingHttpHeaders),
          host:
            connection.port === defaultPort
              ? connection.serverName
              : `${connection.serverName}:${connection.port}`,
        },
        lookup: lookup as never,
        ca: connection.tls ? ca : undefined,
      },
      (answer) => {
        (response as ServerResponse).writeHead(
          answer.statusCode ?? 502,
          forwardableResponseHeaders(answer.headers),
        );
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
