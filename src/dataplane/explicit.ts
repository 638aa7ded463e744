/**
 * Explicit mode (`HTTPS_PROXY=http://127.0.0.1:15002` on a laptop, no iptables): CONNECT tunnels
 * get the transparent listener's treatment with the requested host as the name and its resolved
 * address as the destination; absolute-form `http://` requests are classified per request and
 * served by the pipeline. The same egress policy, audit events and TLS interception apply.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isIP, type Socket } from "node:net";
import type { OriginalDestination } from "../net/original-dst.ts";
import type { Resolver } from "../net/resolver.ts";
import type { EgressPolicy } from "./egress.ts";
import type { RequestHandler } from "./forward.ts";
import type { TransparentListener } from "./listener.ts";

export interface ExplicitProxyOptions {
  host: string;
  port: number;
  listener: TransparentListener;
  resolver: Resolver;
  egress: () => EgressPolicy;
  /** Serves allowed absolute-form requests (the pipeline's request handler). */
  request: RequestHandler;
}

/** `host:port` of a CONNECT request, `[v6]:port` included; undefined when malformed. */
export function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9_.-]+)):(\d{1,5})$/.exec(authority);
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65535) return undefined;
  return { host: (match[1] ?? match[2] ?? "").toLowerCase(), port };
}

export class ExplicitProxy {
  private readonly options: ExplicitProxyOptions;
  private readonly server: Server;
  /** CONNECT tunnels leave the HTTP server's bookkeeping: closing must end them explicitly. */
  private readonly sockets = new Set<Socket>();

  constructor(options: ExplicitProxyOptions) {
    this.options = options;
    this.server = createServer((request, response) => {
      this.onRequest(request, response).catch(() => response.destroy());
    });
    this.server.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
    this.server.on("connect", (request: IncomingMessage, socket: Socket, head: Buffer) => {
      this.onConnect(request, socket, head).catch(() => socket.destroy());
    });
  }

  listen(): Promise<{ address: string; port: number }> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.options.port, this.options.host, () => {
        const address = this.server.address() as { address: string; port: number };
        resolve({ address: address.address, port: address.port });
      });
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async destinationOf(host: string, port: number): Promise<OriginalDestination | undefined> {
    const addresses = await this.options.resolver.resolve(host).catch(() => [] as string[]);
    const address = addresses[0];
    if (address === undefined) return undefined;
    return { family: isIP(address) === 6 ? 6 : 4, address, port };
  }

  private async onConnect(request: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    socket.on("error", () => socket.destroy());
    const target = parseAuthority(request.url ?? "");
    const destination = target && (await this.destinationOf(target.host, target.port));
    if (!target || !destination) {
      socket.end("HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
      return;
    }
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    socket.pause();
    if (head.length > 0) socket.unshift(head);
    await this.options.listener.serveConnection(socket, destination, target.host);
  }

  private async onRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(request.url ?? "");
    } catch {
      url = new URL("invalid:");
    }
    if (url.protocol !== "http:") {
      response.writeHead(400, { "content-type": "text/plain" });
      response.end("Toolwall explicit proxy: use CONNECT for https, or an absolute http:// URL\n");
      return;
    }
    const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
    const port = url.port ? Number(url.port) : 80;
    const destination = await this.destinationOf(host, port);
    const classified = this.options
      .egress()
      .classify({ address: destination?.address ?? "", port, name: host, protocol: "http" });
    const decision =
      destination && classified.verdict === "tunnel"
        ? await this.options.listener.checkNotInspectedAlias(host, destination, classified)
        : classified;
    const denied = decision.verdict === "deny" || destination === undefined;
    const recorded =
      destination === undefined && decision.verdict !== "deny"
        ? { ...decision, verdict: "deny" as const, reason: `cannot resolve ${host}` }
        : decision;
    this.options.listener.recordDecision(request.socket, destination, host, "http", recorded);
    if (denied) {
      const body = `Blocked by Toolwall egress policy: ${recorded.reason}\n`;
      response.writeHead(403, { "content-type": "text/plain", "x-toolwall-rule": recorded.rule });
      response.end(body);
      return;
    }
    request.url = `${url.pathname}${url.search}`;
    this.options.request(request, response, {
      socket: request.socket,
      serverName: host,
      port,
      originalDestination: destination,
      tls: false,
      alpn: false,
      decision,
    });
  }
}
