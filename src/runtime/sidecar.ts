/**
 * `toolwall sidecar`: the per-pod CA, the trust files for the app containers, the transparent
 * listener on PROXY_PORT (kernel/mesh.ts) with the proxy pipeline behind it, and the admin server.
 */
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import type { Writable } from "node:stream";
import { rootCertificates } from "node:tls";
import type { OpenedPolicySource } from "../bundle/source.ts";
import { assembleDataPlane } from "../dataplane/assemble.ts";
import { ExplicitProxy } from "../dataplane/explicit.ts";
import type { TransparentListenerOptions } from "../dataplane/listener.ts";
import type { LlmRouteOptions } from "../dataplane/llm-route.ts";

import { openProxyState } from "../dataplane/proxy-state.ts";
import { mcpRoute } from "../dialects/mcp/route.ts";
import { PROXY_PORT } from "../kernel/mesh.ts";
import { Resolver } from "../net/resolver.ts";
import { createProxyContext } from "../net/server.ts";
import { Upstream } from "../net/upstream.ts";
import { type AuditSink, JsonLineAuditSink } from "../telemetry/audit.ts";
import { CertificateAuthority } from "../tls/ca.ts";
import { writeTrustFiles } from "../tls/trust-files.ts";
import { createAdminServer } from "./admin.ts";

export interface SidecarOptions {
  /** Bounds on LLM responses (`--llm-limit`); defaults from src/codecs/framing.ts. */
  llm?: LlmRouteOptions;
  /** Opens the controller's bundle (BundleClient) or policy files; consulted per connection and per call. */
  policySource: (audit: AuditSink) => Promise<OpenedPolicySource>;
  /** The transparent listener; undefined: explicit mode only (a laptop, no iptables). */
  listen: { host: string; port: number } | undefined;
  /** Where a redirected connection was going (default SO_ORIGINAL_DST); tests on loopback, where nothing is redirected, say it. */
  originalDestination?: TransparentListenerOptions["originalDestination"];
  /** The explicit (HTTPS_PROXY) listener, off when undefined. */
  explicit?: { host: string; port: number } | undefined;
  /** Where audit JSON lines go (default stdout). */
  auditOut?: Writable;
  admin: { host: string; port: number } | undefined;
  caDir: string;
  extraCaFiles: string[];
  resolve: string[];
  namespace: string;
  pod: string;
  /** Shared state (redis://, redis+sentinel://, redis+cluster://); omitted: this process's memory. */
  redisUrl?: string | undefined;
  log?: (line: string) => void;
}

export interface Sidecar {
  address: { address: string; port: number } | undefined;
  explicitAddress: { address: string; port: number } | undefined;
  adminAddress: AddressInfo | undefined;
  ca: CertificateAuthority;
  close(): Promise<void>;
}

export async function startSidecar(options: SidecarOptions): Promise<Sidecar> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const extraCa = options.extraCaFiles.map((file) => readFileSync(file, "utf8"));
  const resolver = new Resolver(options.resolve);
  const ca = await CertificateAuthority.create({
    commonName: `Toolwall pod CA ${options.namespace}/${options.pod}`,
  });
  const trust = writeTrustFiles(options.caDir, ca.certificatePem);
  const audit = new JsonLineAuditSink(options.auditOut ?? process.stdout, {
    namespace: options.namespace,
    pod: options.pod,
  });
  const source = await options.policySource(audit);
  const upstream = new Upstream({
    connect: { ca: [...rootCertificates, ...extraCa], lookup: resolver.lookupFunction() as never },
  });
  // The session is the pod, not this process: cross-server windows and limits kept in Redis carry
  // over a sidecar restart.
  const identity = { namespace: options.namespace, pod: options.pod, session: options.pod };
  const shared = await openProxyState({
    identity,
    audit,
    log,
    ...(options.redisUrl ? { redisUrl: options.redisUrl } : {}),
  });
  const context = createProxyContext({
    policies: () => source.current(),
    audit,
    registry: shared.registry,
    stateful: shared.stateful,
    findings: shared.store,
    upstream,
    identity,
    log,
  });
  const { listener, frontEnd } = assembleDataPlane({
    context,
    ca,
    resolver,
    mcp: mcpRoute({ store: shared.store }).handler,
    ...(options.llm ? { llm: options.llm } : {}),
    listen: { host: options.listen?.host ?? "::", port: options.listen?.port ?? PROXY_PORT },
    ...(options.originalDestination ? { originalDestination: options.originalDestination } : {}),
    // Issuing a leaf costs milliseconds: do it when a policy set arrives, for every name known to be
    // inspected, not on the agent's first connection.
    onCompiled: (egress) => {
      for (const name of egress.literalInspectedNames()) ca.leafFor(name).catch(() => undefined);
    },
  });
  const address = options.listen ? await listener.listen() : undefined;
  const explicit = options.explicit ? new ExplicitProxy({ ...options.explicit, frontEnd }) : undefined;
  const explicitAddress = await explicit?.listen();
  let closing = false;
  const admin = options.admin
    ? createAdminServer(() => !closing && source.ready(), [], { remoteMetricsAndProbesOnly: true })
    : undefined;
  const close = async () => {
    closing = true;
    await source.stop();
    await explicit?.close();
    await listener.close();
    await upstream.close();
    await shared.close();
    await admin?.close();
    audit.flush();
  };
  let adminAddress: AddressInfo | undefined;
  if (admin && options.admin) {
    const where = `${options.admin.host}:${options.admin.port}`;
    try {
      await admin.listen({ host: options.admin.host, port: options.admin.port });
    } catch (error) {
      // Serving without health checks or metrics would hide the sidecar from the kubelet.
      await close();
      throw new Error(
        `cannot bind the admin port ${where}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    adminAddress = admin.server.address() as AddressInfo;
  }
  log(
    `toolwall sidecar: ${source.ready() ? "ready" : "started (waiting for the policy bundle)"} listen=${address ? `${address.address}:${address.port}` : "off"} explicit=${explicitAddress ? `${explicitAddress.address}:${explicitAddress.port}` : "off"} admin=${adminAddress ? `${adminAddress.address}:${adminAddress.port}` : "off"} policies=${source.current().policies.length} ca=${trust.caFile} bundle=${trust.bundleFile}`,
  );
  source
    .whenReady()
    .then(() =>
      log(`toolwall sidecar: ready (policy bundle loaded, ${source.current().policies.length} policies)`),
    );
  return {
    address,
    explicitAddress,
    adminAddress,
    ca,
    close,
  };
}

/** The webhook sets TOOLWALL_POD_*; POD_* is the common downward-API spelling. */
export function defaultPodIdentity(): { namespace: string; pod: string } {
  const env = process.env;
  return {
    namespace: env.TOOLWALL_POD_NAMESPACE ?? env.POD_NAMESPACE ?? "default",
    pod: env.TOOLWALL_POD_NAME ?? env.POD_NAME ?? hostname(),
  };
}
