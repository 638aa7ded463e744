import { Counter, Gauge, type Registry, register } from "prom-client";
import { stateStoreErrors } from "../telemetry/metrics.ts";

export interface StateMetrics {
  storeErrors: Counter<"operation">;
  fallbackActive: Gauge;
  rateLimited: Counter<"policy" | "limit">;
  crossServerBlocked: Counter<"rule">;
  auditDropped: Counter;
}

const byRegistry = new WeakMap<Registry, StateMetrics>();

/** The shared-state metrics, registered once per registry (the default one unless given). */
export function stateMetrics(registry: Registry = register): StateMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const metrics: StateMetrics = {
    // The default registry already holds the shared definition (src/telemetry/metrics.ts).
    storeErrors:
      registry === register
        ? stateStoreErrors
        : new Counter({
            name: "toolwall_state_store_errors_total",
            help: "State store operations that failed or timed out, by operation.",
            labelNames: ["operation"],
            registers,
          }),
    fallbackActive: new Gauge({
      name: "toolwall_state_store_fallback_active",
      help: "1 while the state store is unreachable and calls are served per onStateUnavailable.",
      registers,
    }),
    rateLimited: new Counter({
      name: "toolwall_rate_limited_total",
      help: "Tool calls over a spec.rateLimits limit (denied unless the policy is in Audit mode).",
      labelNames: ["policy", "limit"],
      registers,
    }),
    crossServerBlocked: new Counter({
      name: "toolwall_cross_server_blocked_total",
      help: "Tool calls that tripped a spec.crossServer rule.",
      labelNames: ["rule"],
      registers,
    }),
    auditDropped: new Counter({
      name: "toolwall_audit_stream_dropped_total",
      help: "Audit events not written to the state store's stream because its queue was full.",
      registers,
    }),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}
