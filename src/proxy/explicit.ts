/**
 * Explicit forward-proxy mode of `toolwall proxy` (HTTPS_PROXY / HTTP_PROXY on a laptop), on the
 * base-URL listener: CONNECT tunnels and absolute-form HTTP requests get the sidecar's interception
 * — egress classification, TLS termination with a leaf of the local CA, the policy pipeline — by
 * handing the tunnel to the transparent listener's own flow with the resolved address as the
 * destination.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isIP, type Socket } from "node:net";
import { hostname } from "node:os";
import type { Duplex } from "node:stream";
import { rootCertificates } from "node:tls";
import { UsageError } from "../cli/args.ts";
import type { PolicyDocument } from "../policy/types.ts";
import { connections } from "../telemetry/metrics.ts";
import { CertificateAuthority } from "../tls/ca.ts";
import { writeTrustFiles } from "../tls/trust-files.ts";
import { formatDestination } from "../transparent/audit.ts";
import { type EgressDecision, EgressPolicy } from "../transparent/egress.ts";
import { TransparentListener } from "../transparent/listener.ts";
import { pipelineHandler, pipelineRequestHandler } from "../transparent/pipeline.ts";
import { Resolver } from "../transparent/resolver.ts";
import type { ProxyServer, RouteHandler } from "./server.ts";
import { Upstream } from "./upstream.ts";

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
  close(): Promise<void>;
}

/** `host:port` or `[v6]:port` of a CONNECT request, name lower-cased; undefined when malformed. */
export function parseConnectTarget(target: string): { name: string; port: number } | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9_.-]+)):(\d{1,5})$/.exec(target);
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65535) return undefined;
  const name = (match[1] ?? (match[2] as string)).toLowerCase().replace(/\.$/, "");
  return name ? { name, port } : undefined;
}

function refusal(status: number, reason: string, rule?: string): { head: string; body: string } {
  const body = `${status === 403 ? "Blocked by Toolwall egress policy" : "Toolwall"}: ${reason}\n`;
  const ruleHeader = rule ? `x-toolwall-rule: ${rule}\r\n` : "";
  return {
    head: `content-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${ruleHeader}`,
    body,
  };
}

export function enableExplicitMode(proxy: ProxyServer, options: ExplicitModeOptions): ExplicitMode {
  const { context } = proxy;
  const identity = { namespace: context.identity.namespace, pod: context.identity.pod };
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
  const pipeline = { context, policies: options.documents, ...(options.mcp ? { mcp: options.mcp } : {}) };
  const listener = new TransparentListener({
    egress: egressPolicy,
    ca: options.ca,
    resolver: options.resolver,
    inspect: pipelineHandler(pipeline),
    audit: (event) => context.audit.emit({ ...event }),
    identity,
    connections,
    ...(options.peekTimeoutMs ? { peekTimeoutMs: options.peekTimeoutMs } : {}),
  });
  const perRequest = pipelineRequestHandler(pipeline);

  /** The address the name resolves to (the one dialled) and the egress verdict for it. */
  const classify = async (name: string, port: number, protocol: "tls" | "http" | "unknown") => {
    let address: string | undefined;
    try {
      address = (await options.resolver.resolve(name))[0];
    } catch {
      address = undefined;
    }
    const decision = egressPolicy().classify({ address: address ?? "", port, name, protocol });
    return { address, decision };
  };

  const record = (
    decision: EgressDecision,
    name: string,
    address: string | undefined,
    port: number,
    protocol: "tls" | "http" | "unknown",
  ) => {
    context.audit.emit({
      type: "network_connection",
      timestamp: new Date().toISOString(),
      ...identity,
      requestId: randomUUID(),
      action: decision.verdict === "deny" || decision.wouldDeny ? "deny" : "allow",
      reason: decision.reason,
      rule: decision.rule,
      mode: decision.mode,
      verdict: decision.verdict,
      category: decision.category,
      host: name,
      destination: address ? formatDestination(address, port) : "unknown",
      protocol,
    });
    connections.inc({ verdict: decision.verdict });
  };

  const onConnect = async (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    const refuse = (status: number, text: string, reason: string, rule?: string) => {
      const answer = refusal(status, reason, rule);
      socket.end(`HTTP/1.1 ${status} ${text}\r\n${answer.head}connection: close\r\n\r\n${answer.body}`);
    };
    const target = parseConnectTarget(req.url ?? "");
    if (!target) return refuse(400, "Bad Request", `CONNECT expects host:port, got '${req.url}'`);
    const { address, decision } = await classify(target.name, target.port, "unknown");
    if (decision.verdict === "deny") {
      record(decision, target.name, address, target.port, "unknown");
      return refuse(403, "Forbidden", decision.reason, decision.rule);
    }
    if (address === undefined) return refuse(502, "Bad Gateway", `cannot resolve ${target.name}`);
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) socket.unshift(head);
    const family = isIP(address) === 6 ? 6 : 4;
    listener.accept(socket, { family, address, port: target.port }, target.name);
  };

  proxy.server.on("connect", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    onConnect(req, socket as Socket, head).catch(() => socket.destroy());
  });

  proxy.handleAbsoluteForm(async (req: IncomingMessage, res: ServerResponse) => {
    const refuse = (status: number, reason: string, rule?: string) => {
      const answer = refusal(status, reason, rule);
      res.writeHead(status, {
        "content-type": "text/plain",
        "content-length": Buffer.byteLength(answer.body),
        ...(rule ? { "x-toolwall-rule": rule } : {}),
      });
      res.end(answer.body);
    };
    const target = URL.canParse(req.url ?? "") ? new URL(req.url as string) : undefined;
    if (target?.protocol !== "http:" || !target.hostname) {
      return refuse(400, `expected an absolute http:// URL (https goes through CONNECT), got '${req.url}'`);
    }
    const name = target.hostname.replace(/^\[|\]$/g, "").toLowerCase();
    const port = target.port ? Number(target.port) : 80;
    const { address, decision } = await classify(name, port, "http");
    record(decision, name, address, port, "http");
    if (decision.verdict === "deny") return refuse(403, decision.reason, decision.rule);
    if (address === undefined) return refuse(502, `cannot resolve ${name}`);
    req.url = `${target.pathname}${target.search}`;
    await perRequest(req, res, {
      socket: req.socket,
      serverName: name,
      port,
      originalDestination: { family: isIP(address) === 6 ? 6 : 4, address, port },
      tls: false,
      alpn: false,
      decision,
    });
  });

  return { close: () => listener.close() };
}

export interface ExplicitModeSetupOptions {
  caDir: string;
  resolve: string[];
  extraCaFiles: string[];
  documents: readonly PolicyDocument[];
  mcp?: RouteHandler;
  log: (message: string) => void;
}

/**
 * `toolwall proxy --ca-dir`'s pieces for startLocalProxy: the CA kept in the directory (with the
 * trust files beside it), the resolver, and an upstream client trusting `--extra-ca` that dials
 * through the resolver, so inspected hosts go where the egress check said they would.
 */
export async function explicitModeSetup(
  options: ExplicitModeSetupOptions,
): Promise<{ upstream: Upstream; explicit: ExplicitModeOptions }> {
  let resolver: Resolver;
  try {
    resolver = new Resolver(options.resolve);
  } catch (error) {
    throw new UsageError((error as Error).message);
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
      ...(options.mcp ? { mcp: options.mcp } : {}),
    },
  };
}
