/**
 * The transparent listener: every outbound TCP connection of the pod lands here (iptables REDIRECT).
 * It reads the original destination, peeks the TLS ClientHello or HTTP request head for a name,
 * classifies the connection by egress policy, and then denies it, tunnels the untouched bytes to the
 * original destination (only when the name really resolves there), or terminates TLS with a leaf of
 * the pod CA and hands the decrypted stream to the inspection handler.
 */
import { connect, createServer, isIP, type Server, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import {
  createSecureContext,
  createServer as createTlsServer,
  type SecureContext,
  type TLSSocket,
  type Server as TlsServer,
} from "node:tls";
import type { Counter } from "prom-client";
import { PROXY_PORT } from "../kernel/mesh.ts";
import { parseClientHello } from "../net/client-hello.ts";
import { parseHttpHead } from "../net/http-head.ts";
import {
  type OriginalDestination,
  originalDestination as readOriginalDestination,
} from "../net/original-dst.ts";
import { canonicalHost, type Resolver, sameAddress } from "../net/resolver.ts";
import type { AuditSink } from "../telemetry/audit.ts";
import type { CertificateAuthority, Leaf } from "../tls/ca.ts";
import { formatDestination, type NetworkConnectionEvent, type PodIdentity } from "./audit.ts";
import type { ConnectionFacts, EgressDecision, EgressPolicy } from "./egress.ts";
import { writeEgressAnswer } from "./egress-answer.ts";

export interface InspectedConnection {
  /**
   * Decrypted (TLS terminated) or plain HTTP stream, the peeked bytes still unread. The handler
   * attaches its reader before it returns: a plain HTTP stream flows from then on.
   */
  socket: Duplex;
  serverName: string;
  port: number;
  originalDestination: OriginalDestination;
  tls: boolean;
  /** Negotiated ALPN protocol (`h2`, `http/1.1`) or false. */
  alpn: string | false;
  decision: EgressDecision;
}

export type InspectHandler = (connection: InspectedConnection) => void;

export interface TransparentListenerOptions {
  host?: string;
  port?: number;
  /** Read on every connection, so a new policy bundle applies to the next connection. */
  egress: () => EgressPolicy;
  ca: CertificateAuthority;
  resolver: Resolver;
  inspect: InspectHandler;
  audit: AuditSink;
  identity: PodIdentity;
  connections?: Counter<"verdict">;
  /** How long to wait for the client's first bytes; server-first protocols get classified without a name. */
  peekTimeoutMs?: number;
  upstreamConnectTimeoutMs?: number;
  /** Where the connection was headed; SO_ORIGINAL_DST unless a test on loopback supplies it. */
  originalDestination?: (socket: Socket) => OriginalDestination;
}

interface Peeked {
  bytes: Buffer;
  protocol: ConnectionFacts["protocol"];
  name: string | undefined;
  /** Why bytes that begin like a TLS handshake could not be read as a ClientHello. */
  malformedTls?: string;
}

const MAX_PEEK = 64 * 1024 + 64;

function connectionKey(socket: { remoteAddress?: string; remotePort?: number }): string {
  return `${socket.remoteAddress}|${socket.remotePort}`;
}

/** Collects the client's first bytes until a ClientHello or request head is whole (or clearly absent). */
function peek(socket: Socket, timeoutMs: number): Promise<Peeked> {
  return new Promise((resolve, reject) => {
    let bytes: Buffer = Buffer.alloc(0);
    const finish = (result: Omit<Peeked, "bytes">) => {
      clearTimeout(timer);
      socket.removeListener("data", onData);
      socket.removeListener("end", onEnd);
      socket.removeListener("error", onError);
      socket.pause();
      resolve({ bytes, ...result });
    };
    const examine = (ended: boolean) => {
      const hello = parseClientHello(bytes);
      if (hello.kind === "tls") return finish({ protocol: "tls", name: hello.serverName });
      const head = parseHttpHead(bytes);
      if (head.kind === "http") return finish({ protocol: "http", name: head.host });
      const undecided = hello.kind === "need-more" || head.kind === "need-more";
      if (!undecided || ended || bytes.length >= MAX_PEEK) {
        const looksLikeTls = bytes[0] === 22 && bytes[1] === 3;
        return finish({
          protocol: looksLikeTls ? "tls" : "unknown",
          name: undefined,
          ...(looksLikeTls && hello.kind === "not-tls" ? { malformedTls: hello.reason } : {}),
        });
      }
    };
    const onData = (chunk: Buffer) => {
      bytes = bytes.length === 0 ? chunk : Buffer.concat([bytes, chunk]);
      examine(false);
    };
    const onEnd = () => examine(true);
    const onError = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    const timer = setTimeout(() => examine(true), timeoutMs);
    socket.on("data", onData);
    socket.on("end", onEnd);
    socket.on("error", onError);
  });
}

export class TransparentListener {
  private readonly options: TransparentListenerOptions;
  private readonly server: Server;
  private readonly contexts = new WeakMap<Leaf, SecureContext>();
  private readonly sockets = new Set<Socket>();
  /**
   * TLS is terminated by an in-process tls.Server fed the raw sockets (HTTP/2 over a hand-made
   * server TLSSocket stalls); what the listener learned travels by the connection's client address.
   */
  private readonly terminator: TlsServer;
  private readonly pendingTls = new Map<
    string,
    { serverName: string; destination: OriginalDestination; decision: EgressDecision }
  >();

  constructor(options: TransparentListenerOptions) {
    this.options = options;
    this.terminator = createTlsServer(
      {
        ALPNProtocols: ["h2", "http/1.1"],
        SNICallback: (name, callback) => {
          this.contextFor(name).then(
            (context) => callback(null, context),
            (error: Error) => callback(error),
          );
        },
      },
      (secure) => this.onTerminated(secure),
    );
    this.terminator.on("tlsClientError", (_error, secure) => secure.destroy());
    this.server = createServer({ allowHalfOpen: true, pauseOnConnect: true, noDelay: true }, (socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
      this.handle(socket).catch(() => socket.destroy());
    });
  }

  listen(): Promise<{ address: string; port: number }> {
    const { host = "::", port = PROXY_PORT } = this.options;
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen({ host, port, ipv6Only: false }, () => {
        const address = this.server.address() as { address: string; port: number };
        resolve({ address: address.address, port: address.port });
      });
    });
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(socket: Socket): Promise<void> {
    socket.on("error", () => socket.destroy());
    let destination: OriginalDestination;
    try {
      destination = (this.options.originalDestination ?? readOriginalDestination)(socket);
    } catch {
      // Reached the listener directly (not redirected): there is nowhere legitimate to send it.
      this.record(
        socket,
        undefined,
        { bytes: Buffer.alloc(0), protocol: "unknown", name: undefined },
        {
          verdict: "deny",
          reason: "connection was not redirected (no original destination)",
          rule: "builtin#no-original-destination",
          mode: "Enforce",
          category: "invalid",
        },
      );
      socket.destroy();
      return;
    }
    await this.serveConnection(socket, destination);
  }

  /**
   * Peeks, classifies and serves a connection headed for `destination`. `requestedName` is the
   * name an explicit-proxy client asked for (CONNECT host); the SNI or Host, when sent, must agree.
   */
  async serveConnection(
    socket: Socket,
    destination: OriginalDestination,
    requestedName?: string,
  ): Promise<void> {
    socket.resume();
    const peeked = await peek(socket, this.options.peekTimeoutMs ?? 1000);
    if (requestedName !== undefined && peeked.name !== undefined && peeked.name !== requestedName) {
      const mismatch: EgressDecision = {
        verdict: "deny",
        reason: `SNI/Host ${peeked.name} differs from the requested ${requestedName}`,
        rule: "builtin#name-address-mismatch",
        mode: "Enforce",
        category: "invalid",
      };
      this.record(socket, destination, peeked, mismatch);
      return this.deny(socket, peeked, mismatch);
    }
    if (peeked.malformedTls !== undefined) {
      // A real client never sends one; a crafted one would otherwise pass as a name-less tunnel.
      const malformed: EgressDecision = {
        verdict: "deny",
        reason: `malformed TLS ClientHello (${peeked.malformedTls})`,
        rule: "builtin#malformed-client-hello",
        mode: "Enforce",
        category: "invalid",
      };
      this.record(socket, destination, peeked, malformed);
      return this.deny(socket, peeked, malformed);
    }
    peeked.name ??= requestedName;
    const facts: ConnectionFacts = {
      address: destination.address,
      port: destination.port,
      name: peeked.name,
      protocol: peeked.protocol,
    };
    let decision = this.options.egress().classify(facts);
    if (decision.verdict === "tunnel" && peeked.name !== undefined) {
      decision = await this.checkNameMatchesAddress(peeked.name, destination, decision);
    }
    if (decision.verdict === "tunnel" && peeked.protocol !== "unknown") {
      decision = await this.checkNotInspectedAlias(peeked.name, destination, decision);
    }
    if (decision.verdict === "inspect" && (peeked.protocol === "unknown" || peeked.name === undefined)) {
      decision = { ...decision, verdict: "deny", reason: "inspected destination did not speak TLS or HTTP" };
    }
    this.record(socket, destination, peeked, decision);
    if (decision.verdict === "deny") return this.deny(socket, peeked, decision);
    if (decision.verdict === "inspect") return this.terminate(socket, destination, peeked, decision);
    this.tunnel(socket, destination, peeked);
  }

  /** No SNI spoofing: a name may only open a tunnel to an address that name resolves to. */
  private async checkNameMatchesAddress(
    name: string,
    destination: OriginalDestination,
    decision: EgressDecision,
  ): Promise<EgressDecision> {
    let addresses: string[] = [];
    try {
      addresses = await this.options.resolver.resolve(name);
    } catch {
      addresses = [];
    }
    if (addresses.some((a) => sameAddress(a, destination.address))) return decision;
    return {
      ...decision,
      verdict: "deny",
      reason: `${name} does not resolve to ${destination.address} (SNI/Host does not match the destination)`,
      rule: "builtin#name-address-mismatch",
      mode: "Enforce",
      category: "invalid",
    };
  }

  /**
   * A connection addressed by bare address (no name, or an IP literal) that goes where a declared
   * inspected host resolves is that host reached under another name: refused, or it would pass
   * unjudged. Names are compared as written; only addresses need resolution. Only for TLS and HTTP:
   * what speaks neither cannot carry what inspection reads.
   */
  async checkNotInspectedAlias(
    name: string | undefined,
    destination: OriginalDestination,
    decision: EgressDecision,
  ): Promise<EgressDecision> {
    if (name !== undefined && isIP(canonicalHost(name)) === 0 && canonicalHost(name) !== "localhost")
      return decision;
    for (const declared of this.options.egress().declaredInspectedHosts()) {
      if (declared.port !== undefined && declared.port !== destination.port) continue;
      const addresses = await this.options.resolver.resolve(declared.host).catch(() => [] as string[]);
      if (!addresses.some((address) => sameAddress(address, destination.address))) continue;
      return {
        ...decision,
        verdict: "deny",
        reason: `${name ?? destination.address} is the inspected host ${declared.host} under another name; use ${declared.host}`,
        rule: "builtin#inspected-host-alias",
        mode: "Enforce",
        category: "invalid",
      };
    }
    return decision;
  }

  /** Audits a decision taken elsewhere (the explicit proxy's absolute-form requests). */
  recordDecision(
    socket: Socket,
    destination: OriginalDestination | undefined,
    name: string | undefined,
    protocol: ConnectionFacts["protocol"],
    decision: EgressDecision,
  ): void {
    this.record(socket, destination, { bytes: Buffer.alloc(0), protocol, name }, decision);
  }

  private record(
    socket: Socket,
    destination: OriginalDestination | undefined,
    peeked: Peeked,
    decision: EgressDecision,
  ): void {
    const event: NetworkConnectionEvent = {
      type: "network_connection",
      timestamp: new Date().toISOString(),
      namespace: this.options.identity.namespace,
      pod: this.options.identity.pod,
      requestId: `${socket.remotePort ?? 0}-${Date.now().toString(36)}`,
      action: decision.verdict === "deny" || decision.wouldDeny ? "deny" : "allow",
      reason: decision.reason,
      rule: decision.rule,
      mode: decision.mode,
      verdict: decision.verdict,
      category: decision.category,
      host: peeked.name ?? null,
      destination: destination ? formatDestination(destination.address, destination.port) : "unknown",
      protocol: peeked.protocol,
      ...(decision.server ? { server: decision.server } : {}),
    };
    this.options.audit.emit(event);
    this.options.connections?.inc({ verdict: decision.verdict });
  }

  private deny(socket: Socket, peeked: Peeked, decision: EgressDecision): void {
    if (peeked.protocol === "http") {
      writeEgressAnswer(socket, 403, decision.reason, decision.rule);
    } else {
      socket.destroy();
    }
  }

  private tunnel(socket: Socket, destination: OriginalDestination, peeked: Peeked): void {
    const upstream = connect({
      host: destination.address,
      port: destination.port,
      allowHalfOpen: true,
      noDelay: true,
    });
    upstream.setTimeout(this.options.upstreamConnectTimeoutMs ?? 10_000, () => upstream.destroy());
    upstream.once("connect", () => upstream.setTimeout(0));
    const closeBoth = () => {
      socket.destroy();
      upstream.destroy();
    };
    upstream.on("error", closeBoth);
    socket.on("error", closeBoth);
    upstream.on("close", () => socket.destroy());
    socket.on("close", () => upstream.destroy());
    if (peeked.bytes.length > 0) upstream.write(peeked.bytes);
    socket.pipe(upstream);
    upstream.pipe(socket);
  }

  private async contextFor(name: string): Promise<SecureContext> {
    const leaf = await this.options.ca.leafFor(name);
    let context = this.contexts.get(leaf);
    if (!context) {
      context = createSecureContext({ cert: leaf.certificatePem, key: leaf.keyPem });
      this.contexts.set(leaf, context);
    }
    return context;
  }

  private onTerminated(secure: TLSSocket): void {
    const pending = this.pendingTls.get(connectionKey(secure));
    secure.on("error", () => secure.destroy());
    if (!pending || secure.servername !== pending.serverName) {
      secure.destroy();
      return;
    }
    this.options.inspect({
      socket: secure,
      serverName: pending.serverName,
      port: pending.destination.port,
      originalDestination: pending.destination,
      tls: true,
      alpn: secure.alpnProtocol ?? false,
      decision: pending.decision,
    });
  }

  private terminate(
    socket: Socket,
    destination: OriginalDestination,
    peeked: Peeked,
    decision: EgressDecision,
  ): void {
    const serverName = peeked.name as string;
    socket.unshift(peeked.bytes);
    if (peeked.protocol === "http") {
      this.options.inspect({
        socket,
        serverName,
        port: destination.port,
        originalDestination: destination,
        tls: false,
        alpn: false,
        decision,
      });
      // The peek paused the socket with the request head buffered in it, and the HTTP server reads
      // buffered bytes only through 'data' events, which a paused socket never emits (adding the
      // listener does not resume it). Later bytes bypass the buffer when that server consumes the
      // handle, so without this a plain-HTTP inspected host hung (transparent, or CONNECT) or had
      // a late body parsed as a new request. The handler attached its reader synchronously above.
      socket.resume();
      return;
    }
    const key = connectionKey(socket);
    this.pendingTls.set(key, { serverName, destination, decision });
    socket.once("close", () => this.pendingTls.delete(key));
    this.terminator.emit("connection", socket);
  }
}
