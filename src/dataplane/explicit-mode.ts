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
import type { Socket } from "node:net";
import { hostname } from "node:os";
import type { Duplex } from "node:stream";
import { rootCertificates } from "node:tls";
import { InputError } from "../kernel/errors.ts";
import { Resolver } from "../net/resolver.ts";
import type { ProxyServer, RouteHandler } from "../net/server.ts";
import { Upstream } from "../net/upstream.ts";
import { CertificateAuthority } from "../tls/ca.ts";
import { type TrustFiles, writeTrustFiles } from "../tls/trust-files.ts";
import { assembleDataPlane } from "./assemble.ts";

export interface ExplicitModeOptions {
  ca: CertificateAuthority;
  resolver: Resolver;
  /** The MCP dialect's route handler, for declared servers reached through the proxy. */
  mcp?: RouteHandler;
  peekTimeoutMs?: number;
}

export interface ExplicitMode {
  /** Waits for open tunnels up to `timeoutMs`, then cuts the rest. */
  close(timeoutMs: number): Promise<void>;
}

export function enableExplicitMode(proxy: ProxyServer, options: ExplicitModeOptions): ExplicitMode {
  const { listener, frontEnd } = assembleDataPlane({
    context: proxy.context,
    ca: options.ca,
    resolver: options.resolver,
    ...(options.mcp ? { mcp: options.mcp } : {}),
    ...(options.peekTimeoutMs ? { peekTimeoutMs: options.peekTimeoutMs } : {}),
  });
  proxy.server.on("connect", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    frontEnd.connect(req, socket as Socket, head).catch(() => socket.destroy());
  });
  proxy.handleAbsoluteForm((req: IncomingMessage, res: ServerResponse) => frontEnd.absoluteForm(req, res));
  return {
    async close(timeoutMs) {
      await frontEnd.close(timeoutMs);
      await listener.close();
    },
  };
}

export interface ExplicitModeSetupOptions {
  caDir: string;
  resolve: string[];
  extraCaFiles: string[];
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
  return {
    upstream,
    explicit: {
      ca,
      resolver,
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
