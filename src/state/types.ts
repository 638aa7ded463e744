/**
 * The state the data plane shares between pods and keeps across sidecar restarts. One interface, two
 * implementations (Redis, memory); `ResilientStore` wraps a primary with timeouts and a local fallback.
 *
 * Every method is one round trip to the backing store. Per tool call the proxy makes exactly one:
 * `checkAndRecord`. The cross-server rules are evaluated in process over a mirror of the session
 * window (loaded once per session with `loadSession`), so the round trip only has to spend rate-limit
 * tokens and append the call.
 */

import type { CallRecord, SessionState, ShadowedTool } from "../analyzer/types.ts";
import type { VerdictStore } from "../inspect/judge.ts";
import type { AuditEvent as TelemetryAuditEvent } from "../telemetry/audit.ts";

export interface RateLimitCharge {
  /** Store key suffix: the limit's identity plus its scope (pod or namespace). */
  key: string;
  /** Name shown in the deny reason and the metric label. */
  name: string;
  perMinute: number;
  burst: number;
  /** false: an Audit-mode policy's limit, counted and reported but never blocking. */
  enforce: boolean;
}

export interface CheckAndRecordInput {
  namespace: string;
  session: string;
  /** The call to append to the window; `action` is the verdict before rate limits. */
  call: CallRecord;
  /** Limits to spend a token from; only when the verdict so far is allow, otherwise pass []. */
  charges: RateLimitCharge[];
  /** How far back the window must reach; older entries are trimmed. 0 keeps no window. */
  windowRetentionMs: number;
  /** Upper bound on entries kept in one window. */
  maxWindowEntries: number;
}

export interface RateLimitOutcome {
  /** Limits that were over; enforced ones blocked the call. Empty when all conformed. */
  exceeded: { key: string; name: string; enforce: boolean; retryAfterMs: number }[];
  /** true when an enforced limit was over: no token was spent anywhere and the call is denied. */
  blocked: boolean;
}

export interface PinResult {
  key: string;
  /** The definition hash pinned for the namespace (the first writer's). */
  pinned: string;
  /** true when this call wrote the pin. */
  created: boolean;
}

export interface ToolProvider {
  tool: string;
  server: string;
}

/** An audit event (telemetry/audit.ts's one AuditEvent) as the store keeps it: stamped when written. */
export type StampedAuditEvent = TelemetryAuditEvent & { timestamp: string };

export interface StoredAuditEvent {
  /** Stream entry id, usable as a cursor (`after`). */
  id: string;
  event: StampedAuditEvent;
}

export interface AuditQuery {
  /** Omitted: every namespace that has a stream. */
  namespace?: string;
  type?: string[];
  server?: string;
  tool?: string;
  action?: string;
  /** Milliseconds since the epoch; older events are not returned. */
  since?: number;
  /** Only entries strictly after this stream id (for following). */
  after?: string;
  limit: number;
}

export type { VerdictStore };

export interface StateStore extends VerdictStore {
  /** The one round trip of a decision: GCRA over `charges` (all or nothing) and the window append. */
  checkAndRecord(input: CheckAndRecordInput): Promise<RateLimitOutcome>;
  /** The session's window (entries not older than `sinceMs`) and shadowed tools, for the mirror. */
  loadSession(namespace: string, session: string, sinceMs: number): Promise<SessionState>;
  /** Records which server offers each tool in the session; returns tools now shadowed. */
  noteToolProviders(namespace: string, session: string, providers: ToolProvider[]): Promise<ShadowedTool[]>;
  /**
   * Records the complete tool listing a declared MCP server gave: the namespace's shared tool
   * registry, which outlives sidecar restarts and is read by every pod of the namespace.
   */
  recordServerTools(namespace: string, server: string, tools: readonly string[]): Promise<void>;
  /** Every listing recorded in the namespace: lower-case server name → lower-case tool names. */
  serverTools(namespace: string): Promise<Record<string, string[]>>;
  /** First writer wins (HSETNX) per key; returns what is pinned for each. */
  pinIfAbsent(namespace: string, pins: { key: string; sha256: string }[]): Promise<PinResult[]>;
  getPins(namespace: string): Promise<Record<string, string>>;
  /** Fire and forget: queued, written in batches, capped per namespace. */
  appendAudit(namespace: string, event: StampedAuditEvent): void;
  /** Newest first. */
  readAudit(query: AuditQuery): Promise<StoredAuditEvent[]>;
  /** Writes queued audit events now. */
  flush(): Promise<void>;
  /** Cheap liveness check (PING). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
