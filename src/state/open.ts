import type { Registry } from "prom-client";
import { StateGuard } from "./guard.ts";
import { MemoryStore, type MemoryStoreOptions } from "./memory.ts";
import { stateMetrics } from "./metrics.ts";
import { ResilientStore } from "./resilient.ts";

export interface OpenStateOptions {
  /** redis://, redis+sentinel:// or redis+cluster:// URL; omitted: one process's memory only. */
  redisUrl?: string;
  /** Longest a decision waits on Redis (default 50 ms). */
  timeoutMs?: number;
  /** Bounds of the in-process store (the whole state without Redis, the fallback with it). */
  memory?: MemoryStoreOptions;
  /** While Redis is unreachable, how often it is pinged (default 500 ms). */
  probeIntervalMs?: number;
  keyPrefix?: string;
  auditMaxLen?: number;
  /** Audit events held while Redis is away; the oldest beyond it are dropped and counted. */
  auditQueueMax?: number;
  /** Pod sessions whose windows are mirrored in process. */
  maxSessions?: number;
  registry?: Registry;
  log?: (line: string) => void;
}

/**
 * The data plane's state: Redis behind a timeout with an in-process fallback, or memory alone.
 * ioredis (~20 MB of RSS) is loaded only when a Redis URL is given.
 */
export async function openState(options: OpenStateOptions = {}): Promise<StateGuard> {
  const metrics = stateMetrics(options.registry);
  const local = new MemoryStore(options.memory);
  const timeoutMs = options.timeoutMs ?? 50;
  let primary: ConstructorParameters<typeof ResilientStore>[0] = local;
  if (options.redisUrl) {
    const { connectRedis, RedisStore } = await import("./redis.ts");
    primary = new RedisStore(
      connectRedis(options.redisUrl, { commandTimeoutMs: Math.max(timeoutMs * 4, 200) }),
      {
        ...(options.keyPrefix !== undefined ? { keyPrefix: options.keyPrefix } : {}),
        ...(options.auditMaxLen !== undefined ? { auditMaxLen: options.auditMaxLen } : {}),
        ...(options.auditQueueMax !== undefined ? { auditQueueMax: options.auditQueueMax } : {}),
        onAuditDropped: (count) => metrics.auditDropped.inc(count),
        onAuditWriteError: () => metrics.storeErrors.inc({ operation: "audit" }),
      },
    );
  }
  const store = new ResilientStore(primary, {
    local,
    timeoutMs,
    metrics,
    ...(options.probeIntervalMs !== undefined ? { probeIntervalMs: options.probeIntervalMs } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  return new StateGuard({
    store,
    metrics,
    ...(options.maxSessions !== undefined ? { maxSessions: options.maxSessions } : {}),
  });
}
