/**
 * `toolwall sidecar`: the per-pod CA, the trust files for the app containers, the transparent
 * listener on [::]:15001 with the proxy pipeline behind it, and the admin server.
 */
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { rootCertificates } from "node:tls";
import { mcpRoute } from "../dialects/mcp/route.ts";
import { PolicySet } from "../policy/evaluate.ts";
import { loadPolicyFiles } from "../policy/load.ts";
import type { PolicyDocument } from "../policy/types.ts";
import { createAdminServer } from "../proxy/admin.ts";
import { MemoryToolRegistry } from "../proxy/registry.ts";
import { createProxyContext } from "../proxy/server.ts";
import { Upstream } from "../proxy/upstream.ts";
import { MemoryStore } from "../state/memory.ts";
import { JsonLineAuditSink } from "../telemetry/audit.ts";
import { connections } from "../telemetry/metrics.ts";
import { CertificateAuthority } from "../tls/ca.ts";
import { writeTrustFiles } from "../tls/trust-files.ts";
import { EgressPolicy } from "./egress.ts";
import { TransparentListener } from "./listener.ts";
import { pipelineHandler } from "./pipeline.ts";
import { Resolver } from "./resolver.ts";

export interface SidecarOptions {
  policyFiles: string[];
  listen: { host: string; port: number };
  admin: { host: string; port: number } | undefined;
  caDir: string;
  extraCaFiles: string[];
  resolve: string[];
  namespace: string;
  pod: string;
  log?: (line: string) => void;
}

export interface Sidecar {
  address: { address: string; port: number };
  adminAddress: AddressInfo | undefined;
  ca: CertificateAuthority;
  close(): Promise<void>;
}

/** `[::]:15001`, `127.0.0.1:15020`, `:8080` → host and port. */
export function parseHostPort(text: string, defaultHost: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  if (!match || port > 65535) throw new Error(`expected HOST:PORT or [IPv6]:PORT, got '${text}'`);
  return { host: match[1] ?? (match[2] || defaultHost), port };
}

export async function startSidecar(options: SidecarOptions): Promise<Sidecar> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const documents: PolicyDocument[] = loadPolicyFiles(options.policyFiles);
  // Policy files are the local stand-in for the controller's bundle: every policy in them applies.
  const forPod = documents;
  const policySet = PolicySet.fromDocuments(forPod);
  const egress = new EgressPolicy(
    forPod.map((d) => ({ metadata: { name: d.name, namespace: d.namespace }, spec: d.spec })),
  );
  const extraCa = options.extraCaFiles.map((file) => readFileSync(file, "utf8"));
  const resolver = new Resolver(options.resolve);
  const ca = await CertificateAuthority.create({
    commonName: `Toolwall pod CA ${options.namespace}/${options.pod}`,
  });
  const trust = writeTrustFiles(options.caDir, ca.certificatePem);
  const audit = new JsonLineAuditSink(process.stdout, { namespace: options.namespace, pod: options.pod });
  const upstream = new Upstream({
    connect: { ca: [...rootCertificates, ...extraCa], lookup: resolver.lookupFunction() as never },
  });
  const context = createProxyContext({
    policies: () => policySet,
    audit,
    registry: new MemoryToolRegistry(),
    upstream,
    identity: { namespace: options.namespace, pod: options.pod, session: `${options.pod}:${process.pid}` },
    log,
  });
  const listener = new TransparentListener({
    host: options.listen.host,
    port: options.listen.port,
    egress: () => egress,
    ca,
    resolver,
    inspect: pipelineHandler({
      context,
      policies: () => forPod,
      mcp: mcpRoute({ store: new MemoryStore() }).handler,
    }),
    audit: (event) => audit.emit({ ...event }),
    identity: { namespace: options.namespace, pod: options.pod },
    connections,
  });
  const address = await listener.listen();
  let ready = true;
  const admin = options.admin ? createAdminServer(() => ready) : undefined;
  let adminAddress: AddressInfo | undefined;
  if (admin && options.admin) {
    await admin.listen({ host: options.admin.host, port: options.admin.port });
    adminAddress = admin.server.address() as AddressInfo;
  }
  log(
    `toolwall sidecar: ready listen=${address.address}:${address.port} policies=${forPod.length} ca=${trust.caFile} bundle=${trust.bundleFile}`,
  );
  return {
    address,
    adminAddress,
    ca,
    async close() {
      ready = false;
      await listener.close();
      await upstream.close();
      await admin?.close();
      audit.flush();
    },
  };
}

export function defaultPodIdentity(): { namespace: string; pod: string } {
  return { namespace: process.env.POD_NAMESPACE ?? "default", pod: process.env.POD_NAME ?? hostname() };
}
