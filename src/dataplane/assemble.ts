/**
 * The data plane, assembled once for every runtime (`toolwall sidecar`, `toolwall proxy --ca-dir`):
 * the egress classification and the routes compiled once per policy set, the request pipeline, the
 * transparent listener that serves redirected (or tunnelled) connections, and the explicit-proxy
 * front end (CONNECT and absolute-form requests) on top of it.
 */
import type { LlmRouteOptions } from "../dataplane/llm-route.ts";
import type { Resolver } from "../net/resolver.ts";
import type { ProxyContext, RouteHandler } from "../net/server.ts";
import type { PolicySet } from "../policy/evaluate.ts";
import { connections } from "../telemetry/metrics.ts";
import type { CertificateAuthority } from "../tls/ca.ts";
import { EgressPolicy } from "./egress.ts";
import { ExplicitFrontEnd } from "./explicit.ts";
import { httpInspectHandler, type RequestHandler } from "./forward.ts";
import { TransparentListener, type TransparentListenerOptions } from "./listener.ts";
import { pipelineRequestHandler, RouteTable } from "./pipeline.ts";

export interface DataPlaneOptions {
  /** The policies in force (context.policies()), audit, identity, upstream. */
  context: ProxyContext;
  ca: CertificateAuthority;
  resolver: Resolver;
  /** The MCP dialect's route handler, for declared servers. */
  mcp?: RouteHandler;
  llm?: LlmRouteOptions;
  /** Where the transparent listener listens, when it is started (`listener.listen()`). */
  listen?: { host: string; port: number };
  peekTimeoutMs?: number;
  /** Where a redirected connection was going (default SO_ORIGINAL_DST). */
  originalDestination?: TransparentListenerOptions["originalDestination"];
  /** Told of each policy set once it is compiled (the sidecar issues the inspected names' leaves). */
  onCompiled?: (egress: EgressPolicy) => void;
}

export interface DataPlane {
  listener: TransparentListener;
  frontEnd: ExplicitFrontEnd;
  requests: RequestHandler;
  egress: () => EgressPolicy;
}

export function assembleDataPlane(options: DataPlaneOptions): DataPlane {
  const { context } = options;
  let compiled: { set: PolicySet; egress: EgressPolicy; routes: RouteTable } | undefined;
  const current = () => {
    const set = context.policies();
    if (compiled?.set !== set) {
      const documents = set.policies.map((policy) => policy.doc);
      compiled = { set, egress: new EgressPolicy(documents), routes: new RouteTable(documents) };
      options.onCompiled?.(compiled.egress);
    }
    return compiled;
  };
  const egress = () => current().egress;
  const requests = pipelineRequestHandler({
    context,
    routes: () => current().routes,
    egress,
    ...(options.mcp ? { mcp: options.mcp } : {}),
    ...(options.llm ? { llm: options.llm } : {}),
  });
  const listener = new TransparentListener({
    ...(options.listen ?? {}),
    egress,
    ca: options.ca,
    resolver: options.resolver,
    inspect: httpInspectHandler(requests),
    audit: context.audit,
    identity: { namespace: context.identity.namespace, pod: context.identity.pod },
    connections,
    ...(options.peekTimeoutMs ? { peekTimeoutMs: options.peekTimeoutMs } : {}),
    ...(options.originalDestination ? { originalDestination: options.originalDestination } : {}),
  });
  const frontEnd = new ExplicitFrontEnd({ listener, resolver: options.resolver, egress, request: requests });
  egress();
  return { listener, frontEnd, requests, egress };
}
