import type { Registry } from "prom-client";
import type { SessionIdentity, StatefulCheck } from "../engine/decide.ts";
import { SessionToolRegistry } from "../registry/registry.ts";
import { auditStreamListener } from "../state/audit-stream.ts";
import type { StateGuard } from "../state/guard.ts";
import { openState } from "../state/open.ts";
import { SharedSessionRegistry, StateGuardCheck } from "../state/proxy-check.ts";
import type { AuditEvent, AuditSink } from "../telemetry/audit.ts";

export interface ProxyStateOptions {
  /** redis://, redis+sentinel://, redis+cluster://; omitted: this process's memory. */
  redisUrl?: string;
  identity: SessionIdentity;
  /** Where audit events go; with Redis, a sink that can be subscribed to also feeds the shared stream. */
  audit: AuditSink & { subscribe?(listener: (event: AuditEvent) => void): void };
  log: (line: string) => void;
  /** How long start-up waits for Redis before serving from the fallback (default 2 s). */
  connectWaitMs?: number;
  timeoutMs?: number;
  registry?: Registry;
}

/** What a proxy (local or sidecar) plugs in to use shared state. */
export interface ProxyState {
  guard: StateGuard;
  /** `stateful` of createProxyContext / startLocalProxy. */
  stateful: StatefulCheck;
  /** `registry` of createProxyContext / startLocalProxy: records tool providers and shadows. */
  registry: SharedSessionRegistry;
  /** `store` of mcpRoute (tool pins across pods). */
  store: StateGuard["store"];
  close(): Promise<void>;
}

export async function openProxyState(options: ProxyStateOptions): Promise<ProxyState> {
  const guard = await openState({
    log: options.log,
    ...(options.redisUrl !== undefined ? { redisUrl: options.redisUrl } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.registry !== undefined ? { registry: options.registry } : {}),
  });
  if (options.redisUrl !== undefined) {
    await guard.store.waitUntilReachable(options.connectWaitMs ?? 2000);
    options.audit.subscribe?.(auditStreamListener(guard, options.identity.namespace));
  }
  return {
    guard,
    stateful: new StateGuardCheck(guard, options.audit),
    registry: new SharedSessionRegistry(new SessionToolRegistry(), guard, options.identity, options.log),
    store: guard.store,
    close: () => guard.close(),
  };
}
