/**
 * The explicit-proxy front end (`HTTPS_PROXY=http://127.0.0.1:15002`, no iptables), one for
 * `toolwall sidecar --explicit` and `toolwall proxy --ca-dir`. A CONNECT is classified by its name
 * before any tunnel (403 with the rule when denied); an allowed tunnel gets the transparent
 * listener's treatment with the CONNECT name as the name and its resolved address as the destination
 * (SNI must repeat the name; inspected hosts are TLS-terminated and go through the pipeline).
 * Absolute-form `http://` requests are classified per request and served by the pipeline.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isIP, type Socket } from "node:net";
import { splitHostPort } from "../kernel/host-port.ts";
import type { OriginalDestination } from "../net/original-dst.ts";
import type { Resolver } from "../net/resolver.ts";
import type { EgressDecision, EgressPolicy } from "./egress.ts";
import { writeEgressAnswer } from "./egress-answer.ts";
import type { RequestHandler } from "./forward.ts";
import type { TransparentListener } from "./listener.ts";

export interface ExplicitFrontEndOptions {
  listener: TransparentListener;
  resolver: Resolver;
  egress: () => EgressPolicy;
  /** Serves allowed absolute-form requests (the pipeline's request handler). */
  request: RequestHandler;
}

/** `host:port` of a CONNECT request, `[v6]:port` included; undefined when malformed. */
export function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const parts = splitHostPort(authority);
  const name = parts?.host.includes(":") ? /^[0-9a-fA-F:.]+$/ : /^[A-Za-z0-9_.-]+$/;
  if (!parts?.port || !name.test(parts.host)) return undefined;
  return { host: parts.host.toLowerCase(), port: parts.port };
}

export class ExplicitFrontEnd {
  readonly #options: ExplicitFrontEndOptions;
  /** CONNECT sockets leave the HTTP server's bookkeeping: closing must end them explicitly. */
  readonly #tunnels = new Set<Socket>();

  constructor(options: ExplicitFrontEndOptions) {
    this.#options = options;
  }

  /** Where `name:port` is dialled (its first resolved address) and the egress verdict for it. */
  async #classify(name: string, port: number, protocol: "http" | "unknown") {
    const address = (await this.#options.resolver.resolve(name).catch(() => [] as string[]))[0];
    const destination: OriginalDestination | undefined =
      address === undefined ? undefined : { family: isIP(address) === 6 ? 6 : 4, address, port };
    let decision = this.#options.egress().classify({ address: address ?? "", port, name, protocol });
    if (destination && decision.verdict === "tunnel") {
      decision = await this.#options.listener.checkNotInspectedAlias(name, destination, decision);
    }
    const unresolved = !destination && decision.verdict !== "deny";
    if (unresolved) decision = { ...decision, verdict: "deny", reason: `cannot resolve ${name}` };
    return { destination, decision, unresolved };
  }

  /**
   * Audits the verdict on `name` and says how to go on: the destination to serve, or the answer that
   * refuses before any tunnel or request (403 with the rule the policy denied by, 502 when the name
   * does not resolve).
   */
  async #judge(
    socket: Socket,
    name: string,
    port: number,
    protocol: "http" | "unknown",
  ): Promise<
    | { refuse: [status: 403 | 502, reason: string, rule?: string] }
    | { destination: OriginalDestination; decision: EgressDecision }
  > {
    const { destination, decision, unresolved } = await this.#classify(name, port, protocol);
    this.#options.listener.recordDecision(socket, destination, name, protocol, decision);
    if (decision.verdict === "deny" && !unresolved) return { refuse: [403, decision.reason, decision.rule] };
    if (!destination) return { refuse: [502, decision.reason] };
    return { destination, decision };
  }

  async connect(request: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    socket.on("error", () => socket.destroy());
    const target = parseAuthority(request.url ?? "");
    if (!target) return writeEgressAnswer(socket, 400, `CONNECT expects host:port, got '${request.url}'`);
    const name = target.host.replace(/\.$/, "");
    const judged = await this.#judge(socket, name, target.port, "unknown");
    if ("refuse" in judged) return writeEgressAnswer(socket, ...judged.refuse);
    const { destination } = judged;
    this.#tunnels.add(socket);
    socket.once("close", () => this.#tunnels.delete(socket));
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    socket.pause();
    if (head.length > 0) socket.unshift(head);
    await this.#options.listener.serveConnection(socket, destination, name);
  }

  async absoluteForm(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const target = URL.canParse(request.url ?? "") ? new URL(request.url as string) : undefined;
    if (target?.protocol !== "http:" || !target.hostname) {
      return writeEgressAnswer(
        response,
        400,
        `expected an absolute http:// URL (https goes through CONNECT), got '${request.url}'`,
      );
    }
    const name = target.hostname.replace(/^\[|\]$/g, "").toLowerCase();
    const port = target.port ? Number(target.port) : 80;
    const judged = await this.#judge(request.socket, name, port, "http");
    if ("refuse" in judged) return writeEgressAnswer(response, ...judged.refuse);
    const { destination, decision } = judged;
    request.url = `${target.pathname}${target.search}`;
    this.#options.request(request, response, {
      socket: request.socket,
      serverName: name,
      port,
      originalDestination: destination,
      tls: false,
      alpn: false,
      decision,
    });
  }

  /** Waits for open tunnels up to `timeoutMs`, then cuts the rest. */
  async close(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.#tunnels.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const socket of this.#tunnels) socket.destroy();
  }
}

/** The front end on a listener of its own (`toolwall sidecar --explicit ADDR`). */
export class ExplicitProxy {
  readonly #server: Server;
  readonly #frontEnd: ExplicitFrontEnd;
  readonly #host: string;
  readonly #port: number;

  constructor(options: { frontEnd: ExplicitFrontEnd; host: string; port: number }) {
    this.#host = options.host;
    this.#port = options.port;
    this.#frontEnd = options.frontEnd;
    this.#server = createServer((request, response) => {
      this.#frontEnd.absoluteForm(request, response).catch(() => response.destroy());
    });
    this.#server.on("connect", (request: IncomingMessage, socket: Socket, head: Buffer) => {
      this.#frontEnd.connect(request, socket, head).catch(() => socket.destroy());
    });
  }

  listen(): Promise<{ address: string; port: number }> {
    return new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(this.#port, this.#host, () => {
        const address = this.#server.address() as { address: string; port: number };
        resolve({ address: address.address, port: address.port });
      });
    });
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await this.#frontEnd.close(0);
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
