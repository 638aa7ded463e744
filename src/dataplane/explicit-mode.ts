/**
 * Explicit forward-proxy mode of `toolwall proxy` (HTTPS_PROXY / HTTP_PROXY on a laptop), on the
 * base-URL listener: a CONNECT is classified by its name before any tunnel (403 when denied), then
 * the socket is served by the transparent listener's own flow with the resolved address as the
 * destination (SNI must repeat the CONNECT name; inspected hosts are TLS-terminated with a leaf of
 * the local CA and go through the pipeline). Absolute-form `http://` requests are classified per
 * request and served by the pipeline's request handler.
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isIP, type Socket } from "node:net";
import { hostname } from "node:os";
import type { Duplex } from "node:stream";
import { rootCertificates } from "node:tls";
import { InputError } from "../kernel/errors.ts";
import type { OriginalDestination } from "../net/original-dst.ts";
import { Resolver } from "../net/resolver.ts";
import type { ProxyServer, RouteHandler } from "../net/server.ts";
import { Upstream } from "../net/upstream.ts";
import type { PolicyDocument } from "../policy/types.ts";
import { connections } from "../telemetry/metrics.ts";
import { CertificateAuthority } from "../tls/ca.ts";
import { type TrustFiles, writeTrustFiles } from "../tls/trust-files.ts";
import { EgressPolicy } from "./egress.ts";
import { parseAuthority } from "./explicit.ts";
import { httpInspectHandler } from "./forward.ts";
import { TransparentListener } from "./listener.ts";
import { pipelineRequestHandler } from "./pipeline.ts";

export interface ExplicitModeOptions {
  ca: CertificateAuthority;
  resolver: Resolver;
  /** The loaded policies: their egress sections classify, their providers and servers are inspected. */
  documents: () => readonly PolicyDocument[];
  /** The MCP dialect's route handler, for declared servers reached through the proxy. */
  mcp?: RouteHandler;
  peekTimeoutMs?: number;
}

export interface ExplicitMode {
  /** Waits for open tunnels up to `timeoutMs`, then cuts the rest. */
  close(timeoutMs: number): Promise<void>;
}

function plainAnswer(status: number, reason: string, rule?: string) {
  const body = `${status === 403 ? "Blocked by Toolwall egress policy" : "Toolwall"}: ${reason}\n`;
  const headers: Record<string, string | number> = {
    "content-type": "text/plain",
    "content-length": Buffer.byteLength(body),
    ...(rule ? { "x-toolwall-rule": rule } : {}),
  };
  return { body, headers };
}

export function enableExplicitMode(proxy: ProxyServer, options: ExplicitModeOptions): ExplicitMode {
  const { context } = proxy;
  let egress: { documents: readonly PolicyDocument[]; policy: EgressPolicy } | undefined;
  const egressPolicy = () => {
    const documents = options.documents();
    if (egress?.documents !== documents) {
      const forEgress = documents.map((d) => ({
        metadata: { name: d.name, namespace: d.namespace },
        spec: d.spec,
      }));
      egress = { documents, policy: new EgressPolicy(forEgress) };
    }
    return egress.policy;
  };
  const requests = pipelineRequestHandler({
    context,
    policies: options.documents,
    ...(options.mcp ? { mcp: options.mcp } : {}),
  });
  const listener = new TransparentListener({
    egress: egressPolicy,
    ca: options.ca,
    resolver: options.resolver,
    inspect: httpInspectHandler(requests),
    audit: (event) => context.audit.emit({ ...event }),
    identity: { namespace: context.identity.namespace, pod: context.identity.pod },
    connections,
    ...(options.peekTimeoutMs ? { peekTimeoutMs: options.peekTimeoutMs } : {}),
  });
  /** CONNECT sockets leave the HTTP server's bookkeeping: closing must end them explicitly. */
  const tunnels = new Set<Socket>();

  /** Where a name:port is dialled (first resolved address) and the egress verdict for it. */
  const classify = async (name: string, port: number, protocol: "http" | "unknown") => {
    const address = (await options.resolver.resolve(name).catch(() => [] as string[]))[0];
    const destination: OriginalDestination | undefined =
      address === undefined ? undefined : { family: isIP(address) === 6 ? 6 : 4, address, port };
    const decision = egressPolicy().classify({ address: address ?? "", port, name, protocol });
    return { destination, decision };
  };

  const onConnect = async (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    const refuse = (status: number, text: string, reason: string, rule?: string) => {
      const answer = plainAnswer(status, reason, rule);
      const headers = Object.entries(answer.headers).map(([k, v]) => `${k}: ${v}\r\n`);
      socket.end(`HTTP/1.1 ${status} ${text}\r\n${headers.join("")}connection: close\r\n\r\n${answer.body}`);
    };
    const target = parseAuthority(req.url ?? "");
    if (!target) return refuse(400, "Bad Request", `CONNECT expects host:port, got '${req.url}'`);
    const name = target.host.replace(/\.$/, "");
    const { destination, decision } = await classify(name, target.port, "unknown");
    if (decision.verdict === "deny") {
      listener.recordDecision(socket, destination, name, "unknown", decision);
      return refuse(403, "Forbidden", decision.reason, decision.rule);
    }
    if (!destination) return refuse(502, "Bad Gateway", `cannot resolve ${name}`);
    tunnels.add(socket);
    socket.once("close", () => tunnels.delete(socket));
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    socket.pause();
    if (head.length > 0) socket.unshift(head);
    await listener.serveConnection(socket, destination, name);
  };

  proxy.server.on("connect", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    onConnect(req, socket as Socket, head).catch(() => socket.destroy());
  });

  proxy.handleAbsoluteForm(async (req: IncomingMessage, res: ServerResponse) => {
    const refuse = (status: number, reason: string, rule?: string) => {
      const answer = plainAnswer(status, reason, rule);
      res.writeHead(status, answer.headers);
      res.end(answer.body);
    };
    const target = URL.canParse(req.url ?? "") ? new URL(req.url as string) : undefined;
    if (target?.protocol !== "http:" || !target.hostname) {
      return refuse(400, `expected an absolute http:// URL (https goes through CONNECT), got '${req.url}'`);
    }
    const name = target.hostname.replace(/^\[|\]$/g, "").toLowerCase();
    const port = target.port ? Number(target.port) : 80;
    const classified = await classify(name, port, "http");
    const { destination } = classified;
    const decision =
      destination && classified.decision.verdict === "tunnel"
        ? await listener.checkNotInspectedAlias(name, destination, classified.decision)
        : classified.decision;
    listener.recordDecision(req.socket, destination, name, "http", decision);
    if (decision.verdict === "deny") return refuse(403, decision.reason, decision.rule);
    if (!destination) return refuse(502, `cannot resolve ${name}`);
    req.url = `${target.pathname}${target.search}`;
    await requests(req, res, {
      socket: req.socket,
      serverName: name,
      port,
      originalDestination: destination,
      tls: false,
      alpn: false,
      decision,
    });
  });

  return {
    async close(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (tunnels.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      for (const socket of tunnels) socket.destroy();
      await listener.close();
    },
  };
}

export interface ExplicitModeSetupOptions {
  caDir: string;
  resolve: string[];
  extraCaFiles: string[];
  documents: readonly PolicyDocument[];
  log: (message: string) => void;
}

/**
 * `toolwall proxy --ca-dir`'s pieces for startLocalProxy: the CA kept in the directory (with the
 * trust files beside it), the resolver, and an upstream client trusting `--extra-ca` that dials
 * through the resolver, so inspected hosts go where the egress check said they would.
 */
export async function explicitModeSetup(
  options: ExplicitModeSetupOptions,
): Promise<{ upstream: Upstream; explicit: ExplicitModeOptions; trust: TrustFiles }> {
  let resolver: Resolver;
  try {
    resolver = new Resolver(options.resolve);
  } catch (error) {
    throw new InputError((error as Error).message);
  }
  const extraCa = options.extraCaFiles.map((file) => readFileSync(file, "utf8"));
  const { ca, created } = await CertificateAuthority.persistent(options.caDir, {
    commonName: `Toolwall local CA (${hostname()})`,
  });
  const trust = writeTrustFiles(options.caDir, ca.certificatePem);
  options.log(
    `toolwall proxy: explicit mode; ${created ? "created" : "loaded"} the CA in ${options.caDir} — trust ${trust.caFile} (NODE_EXTRA_CA_CERTS) or ${trust.bundleFile} (SSL_CERT_FILE, curl --cacert)`,
  );
  const upstream = new Upstream({
    connect: { ca: [...rootCertificates, ...extraCa], lookup: resolver.lookupFunction() as never },
  });
  const documents = options.documents;
  return {
    upstream,
    explicit: {
      ca,
      resolver,
      documents: () => documents,
    },
    trust,
  };
}

/**
 * The environment an agent needs to go through the explicit proxy at `proxyUrl`. Node (fetch, and
 * so every official SDK, and node:http/https) ignores HTTPS_PROXY unless NODE_USE_ENV_PROXY=1 (Node
 * 24): without it the most common agent runtime bypasses Toolwall silently. NODE_EXTRA_CA_CERTS adds
 * the local CA to Node's roots; SSL_CERT_FILE and REQUESTS_CA_BUNDLE (curl, Python) replace the
 * roots, so they get the bundle with the public roots in it.
 */
export function agentEnvironment(proxyUrl: string, trust: TrustFiles): Record<string, string> {
  return {
    HTTPS_PROXY: proxyUrl,
    HTTP_PROXY: proxyUrl,
    NODE_USE_ENV_PROXY: "1",
    NODE_EXTRA_CA_CERTS: trust.caFile,
    SSL_CERT_FILE: trust.bundleFile,
    REQUESTS_CA_BUNDLE: trust.bundleFile,
  };
}
