/**
 * `toolwall sidecar`: the per-pod CA, the trust files for the app containers, the transparent
 * listener on [::]:15001 with the proxy pipeline behind it, and the admin server.
 */
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { rootCertificates } from "node:tls";
import type { OpenedPolicySource } from "../bundle/sidecar-source.ts";
import { mcpRoute } from "../dialects/mcp/route.ts";
import type { PolicySet } from "../policy/evaluate.ts";
import type { PolicyDocument } from "../policy/types.ts";
import { createAdminServer } from "../proxy/admin.ts";
import { MemoryToolRegistry } from "../proxy/registry.ts";
import { createProxyContext } from "../proxy/server.ts";
import { Upstream } from "../proxy/upstream.ts";
import { MemoryStore } from "../state/memory.ts";
import { type AuditSink, JsonLineAuditSink } from "../telemetry/audit.ts";
import { connections } from "../telemetry/metrics.ts";
import { CertificateAuthority } from "../tls/ca.ts";
import { writeTrustFiles } from "../tls/trust-files.ts";
import { EgressPolicy } from "./egress.ts";
import { TransparentListener } from "./listener.ts";
import { pipelineHandler } from "./pipeline.ts";
import { Resolver } from "./resolver.ts";

export interface SidecarOptions {
  /** Opens the controller's bundle (BundleClient) or policy files; consulted per connection and per call. */
  policySource: (audit: AuditSink) => Promise<OpenedPolicySource>;
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
  const audit = new JsonLineAuditSink(process.stdout, { namespace: options.namespace, pod: options.pod });
  const policySource = await options.policySource(audit);
  // Everything derived from the policies in force is rebuilt when the source hands out a new set
  // (a new bundle, or the deny-all set once the bundle expired).
  let inForce: { set: PolicySet; documents: PolicyDocument[]; egress: EgressPolicy } | undefined;
  const policiesInForce = () => {
    const set = policySource.current();
    if (inForce?.set !== set) {
      const documents = set.policies.map((p) => p.doc);
      const egress = new EgressPolicy(
        documents.map((d) => ({ metadata: { name: d.name, namespace: d.namespace }, spec: d.spec })),
      );
      inForce = { set, documents, egress };
    }
    return inForce;
  };
  const extraCa = options.extraCaFiles.map((file) => readFileSync(file, "utf8"));
  const resolver = new Resolver(options.resolve);
  const ca = await CertificateAuthority.create({
    commonName: `Toolwall pod CA ${options.namespace}/${options.pod}`,
  });
  const trust = writeTrustFiles(options.caDir, ca.certificatePem);
  const upstream = new Upstream({
    connect: { ca: [...rootCertificates, ...extraCa], lookup: resolver.lookupFunction() as never },
  });
  const context = createProxyContext({
    policies: () => policiesInForce().set,
    audit,
    registry: new MemoryToolRegistry(),
    upstream,
    identity: { namespace: options.namespace, pod: options.pod, session: `${options.pod}:${process.pid}` },
    log,
  });
  const listener = new TransparentListener({
    host: options.listen.host,
    port: options.listen.port,
    egress: () => policiesInForce().egress,
    ca,
    resolver,
    inspect: pipelineHandler({
      context,
      policies: () => policiesInForce().documents,
      mcp: mcpRoute({ store: new MemoryStore() }).handler,
    }),
    audit: (event) => audit.emit({ ...event }),
    identity: { namespace: options.namespace, pod: options.pod },
    connections,
  });
  const address = await listener.listen();
  let ready = true;
  const admin = options.admin ? createAdminServer(() => ready && policySource.ready()) : undefined;
  let adminAddress: AddressInfo | undefined;
  if (admin && options.admin) {
    await admin.listen({ host: options.admin.host, port: options.admin.port });
    adminAddress = admin.server.address() as AddressInfo;
  }
  log(
    `toolwall sidecar: ready listen=${address.address}:${address.port} policies=${policiesInForce().documents.length} ca=${trust.caFile} bundle=${trust.bundleFile}`,
  );
  return {
    address,
    adminAddress,
    ca,
    async close() {
      ready = false;
      await policySource.stop();
      await listener.close();
      await upstream.close();
      await admin?.close();
      audit.flush();
    },
  };
}

export function defaultPodIdentity(): { namespace: string; pod: string } {
  const env = process.env;
  return {
    namespace: env.TOOLWALL_POD_NAMESPACE ?? env.POD_NAMESPACE ?? "default",
    pod: env.TOOLWALL_POD_NAME ?? env.POD_NAME ?? hostname(),
  };
}
