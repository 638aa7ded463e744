import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { type ExplicitModeOptions, enableExplicitMode } from "../dataplane/explicit-mode.ts";
import { type LlmRouteOptions, llmRoute } from "../dataplane/llm-route.ts";
import type { ProxyState } from "../dataplane/proxy-state.ts";
import type { ProviderRoute } from "../dialects/providers.ts";
import type { SessionIdentity, StatefulCheck } from "../engine/decide.ts";
import type { DefinitionInspector } from "../engine/dialect.ts";
import type { SessionToolRegistry } from "../engine/registry.ts";
import { createProxyContext, ProxyServer, type RouteHandler } from "../net/server.ts";
import { Upstream } from "../net/upstream.ts";
import type { PolicySet } from "../policy/evaluate.ts";
import { SessionToolRegistry as ObservedToolRegistry } from "../registry/registry.ts";
import type { AuditSink } from "../telemetry/audit.ts";
import { createAdminServer } from "./admin.ts";

export interface LocalProxyOptions {
  policies: PolicySet | (() => PolicySet);
  audit: AuditSink;
  providers: readonly ProviderRoute[];
  listen: { host: string; port: number };
  /** Omit for no admin server (tests, benchmarks). */
  admin?: { host: string; port: number };
  /** Mount the MCP dialect at `/mcp/<server>[/…]` (servers from the policies' `spec.servers`). */
  mcp?: boolean;
  /** More routes. */
  routes?: readonly { prefix: string; handler: RouteHandler }[];
  /** Shared state for cross-server rules and rate limits: Redis when a URL is given, else memory. */
  state?: { redisUrl?: string; timeoutMs?: number };
  /** A state check of one's own (tests); `state` builds the standard one. */
  stateful?: StatefulCheck;
  /** The session's tool registry (default: in memory); the shared state wraps one to track shadows. */
  registry?: SessionToolRegistry;
  /** Default: namespace "local", this host, this process. */
  identity?: SessionIdentity;
  inspector?: DefinitionInspector;
  log?: (message: string) => void;
  /** The upstream client (explicit mode's trusts `--extra-ca` and dials through `--resolve`). */
  upstream?: Upstream;
  /** Explicit forward-proxy mode (CONNECT, absolute-form HTTP) on the same listener. */
  explicit?: ExplicitModeOptions;
  /** Bounds on LLM responses (defaults: framing.ts). */
  llm?: LlmRouteOptions;
}

export interface LocalProxy {
  proxy: ProxyServer;
  address: AddressInfo;
  adminAddress: AddressInfo | undefined;
  /** http://host:port of the proxy listener. */
  url: string;
  /** Stops accepting, waits for open streams (up to timeoutMs), closes everything. */
  close(timeoutMs?: number): Promise<void>;
}

/** Who a local proxy is in audit events and shared state. */
export function localIdentity(): SessionIdentity {
  return { namespace: "local", pod: hostname(), session: `${hostname()}:${process.pid}` };
}

function hostOf(address: AddressInfo): string {
  return address.family === "IPv6" ? `[${address.address}]` : address.address;
}

function errorCode(error: Error): string {
  return (error as NodeJS.ErrnoException).code ?? error.message;
}

/** True when every promise settled before `deadline` (ms since the epoch). */
async function settledBy(
  deadline: number,
  work: readonly (Promise<unknown> | undefined)[],
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
  });
  const done = Promise.allSettled(work).then(() => true as const);
  const result = await Promise.race([done, late]);
  clearTimeout(timer);
  return result;
}

/** `toolwall proxy`'s process, also started in-process by tests, the demo and the benchmarks. */
export async function startLocalProxy(options: LocalProxyOptions): Promise<LocalProxy> {
  const upstream = options.upstream ?? new Upstream();
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const identity = options.identity ?? localIdentity();
  let stateful = options.stateful;
  let registry = options.registry;
  let shared: ProxyState | undefined;
  if (!stateful && options.state) {
    const { openProxyState } = await import("../dataplane/proxy-state.ts");
    shared = await openProxyState({
      identity,
      audit: options.audit,
      log,
      ...(options.state.redisUrl ? { redisUrl: options.state.redisUrl } : {}),
      ...(options.state.timeoutMs !== undefined ? { timeoutMs: options.state.timeoutMs } : {}),
    });
    stateful = shared.stateful;
    registry ??= shared.registry;
  }
  const context = createProxyContext({
    policies: options.policies,
    audit: options.audit,
    registry: registry ?? new ObservedToolRegistry(),
    upstream,
    identity,
    ...(options.inspector ? { inspector: options.inspector } : {}),
    ...(shared ? { findings: shared.store } : {}),
    ...(stateful ? { stateful } : {}),
    log,
  });
  const proxy = new ProxyServer(context);
  for (const provider of options.providers) {
    proxy.mount(provider.prefix, llmRoute(provider.upstream, provider.dialects, options.llm));
  }
  let mcpHandler: RouteHandler | undefined;
  if (options.mcp) {
    const { mcpRoute } = await import("../dialects/mcp/route.ts");
    const { MemoryStore } = await import("../state/memory.ts");
    const route = mcpRoute({ store: shared?.store ?? new MemoryStore() });
    proxy.mount(route.prefix, route.handler);
    mcpHandler = route.handler;
  }
  for (const route of options.routes ?? []) proxy.mount(route.prefix, route.handler);
  const explicit = options.explicit
    ? enableExplicitMode(proxy, { ...(mcpHandler ? { mcp: mcpHandler } : {}), ...options.explicit })
    : undefined;
  let ready = false;
  const admin = options.admin ? createAdminServer(() => ready) : undefined;
  const stopAll = async (deadline: number) => {
    ready = false;
    const left = () => Math.max(0, deadline - Date.now());
    // Tunnels keep the listening socket from closing: both wind down within the same time.
    await Promise.all([proxy.drain(left()), explicit?.close(left())]);
    // Upstream streams the drain cut may still be open: their pool is destroyed when the deadline passes.
    const closedInTime = await settledBy(deadline + 1000, [
      upstream.close(),
      admin?.close(),
      shared?.close(),
    ]);
    if (!closedInTime) await upstream.agent.destroy();
  };
  let address: AddressInfo;
  let adminAddress: AddressInfo | undefined;
  try {
    address = await proxy.listen(options.listen.host, options.listen.port).catch((error: Error) => {
      throw new Error(`cannot listen on ${options.listen.host}:${options.listen.port}: ${errorCode(error)}`);
    });
    if (admin && options.admin) {
      const where = `${options.admin.host}:${options.admin.port}`;
      // Serving without health checks or metrics would hide the proxy from its supervisor.
      await admin.listen({ host: options.admin.host, port: options.admin.port }).catch((error: Error) => {
        throw new Error(`cannot bind the admin port ${where}: ${errorCode(error)}`);
      });
      adminAddress = admin.server.address() as AddressInfo;
    }
  } catch (error) {
    await stopAll(Date.now());
    throw error;
  }
  ready = true;
  return {
    proxy,
    address,
    adminAddress,
    url: `http://${hostOf(address)}:${address.port}`,
    close: (timeoutMs = 30_000) => stopAll(Date.now() + timeoutMs),
  };
}
