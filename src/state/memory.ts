import type { CallRecord, SessionState, ShadowedTool } from "../analyzer/types.ts";
import { BoundedMap } from "../kernel/bounded-map.ts";
import { compareStreamIds, matchesAuditQuery } from "./audit-query.ts";
import { gcraStep } from "./gcra.ts";
import type {
  AuditQuery,
  CheckAndRecordInput,
  PinResult,
  RateLimitOutcome,
  StampedAuditEvent,
  StateStore,
  StoredAuditEvent,
  ToolProvider,
} from "./types.ts";

export interface MemoryStoreOptions {
  /** Rate-limit buckets, windows and session registries each hold at most this many keys. */
  maxKeys?: number;
  maxPins?: number;
  /** Audit events kept per namespace. */
  auditMaxLen?: number;
  maxAuditNamespaces?: number;
  /** How long a session's tool-provider registry lives after its last change. */
  sessionTtlMs?: number;
  now?: () => number;
}

interface AuditStream {
  entries: StoredAuditEvent[];
  lastMs: number;
  lastSeq: number;
}

/** One process's state: local mode, tests, and the fallback while Redis is unreachable. */
export class MemoryStore implements StateStore {
  readonly #now: () => number;
  readonly #sessionTtlMs: number;
  readonly #auditMaxLen: number;
  readonly #rate: BoundedMap<string, number>;
  readonly #windows: BoundedMap<string, CallRecord[]>;
  readonly #providers: BoundedMap<string, Map<string, string>>;
  readonly #shadows: BoundedMap<string, Map<string, ShadowedTool>>;
  readonly #pins: BoundedMap<string, string>;
  /** namespace → lower-case server → lower-case tool names. */
  readonly #serverTools: BoundedMap<string, Map<string, string[]>>;
  readonly #audit: BoundedMap<string, AuditStream>;
  readonly #verdicts: BoundedMap<string, string>;

  constructor(options: MemoryStoreOptions = {}) {
    const maxKeys = options.maxKeys ?? 100_000;
    this.#now = options.now ?? Date.now;
    this.#sessionTtlMs = options.sessionTtlMs ?? 24 * 3600_000;
    this.#auditMaxLen = options.auditMaxLen ?? 10_000;
    this.#rate = new BoundedMap(maxKeys);
    this.#windows = new BoundedMap(maxKeys);
    this.#providers = new BoundedMap(maxKeys);
    this.#shadows = new BoundedMap(maxKeys);
    this.#pins = new BoundedMap(options.maxPins ?? 100_000);
    this.#serverTools = new BoundedMap(maxKeys);
    this.#audit = new BoundedMap(options.maxAuditNamespaces ?? 1_000);
    this.#verdicts = new BoundedMap(options.maxPins ?? 100_000);
  }

  async checkAndRecord(input: CheckAndRecordInput): Promise<RateLimitOutcome> {
    const now = this.#now();
    const outcome = this.#spend(input, now);
    const call: CallRecord = outcome.blocked ? { ...input.call, action: "deny" } : input.call;
    this.#append(input, call, now);
    return outcome;
  }

  #spend(input: CheckAndRecordInput, now: number): RateLimitOutcome {
    const steps = input.charges.map((charge) => {
      const key = `${input.namespace}\0${charge.key}`;
      return { charge, key, step: gcraStep(this.#rate.get(key, now), now, charge.perMinute, charge.burst) };
    });
    const exceeded = steps
      .filter(({ step }) => !step.allowed)
      .map(({ charge, step }) => ({
        key: charge.key,
        name: charge.name,
        enforce: charge.enforce,
        retryAfterMs: step.retryAfterMs,
      }));
    const blocked = exceeded.some((e) => e.enforce);
    if (!blocked) {
      for (const { key, step } of steps) if (step.allowed) this.#rate.set(key, step.tat, step.tat);
    }
    return { exceeded, blocked };
  }

  #append(input: CheckAndRecordInput, call: CallRecord, now: number): void {
    if (input.windowRetentionMs <= 0) return;
    const key = `${input.namespace}\0${input.session}`;
    const cutoff = now - input.windowRetentionMs;
    const window = (this.#windows.get(key, now) ?? []).filter((r) => r.at >= cutoff);
    window.push(call);
    if (window.length > input.maxWindowEntries) window.splice(0, window.length - input.maxWindowEntries);
    this.#windows.set(key, window, now + input.windowRetentionMs);
  }

  async loadSession(namespace: string, session: string, sinceMs: number): Promise<SessionState> {
    const now = this.#now();
    const key = `${namespace}\0${session}`;
    const window = (this.#windows.get(key, now) ?? []).filter((r) => r.at >= sinceMs);
    const shadows = [...(this.#shadows.get(key, now)?.values() ?? [])];
    return { window: window.map((r) => ({ ...r })), shadows };
  }

  async noteToolProviders(
    namespace: string,
    session: string,
    providers: ToolProvider[],
  ): Promise<ShadowedTool[]> {
    const now = this.#now();
    const key = `${namespace}\0${session}`;
    const known = this.#providers.get(key, now) ?? new Map<string, string>();
    const shadows = this.#shadows.get(key, now) ?? new Map<string, ShadowedTool>();
    for (const { tool, server } of providers) {
      const name = tool.toLowerCase();
      const original = known.get(name);
      if (original === undefined) known.set(name, server);
      else if (original !== server)
        shadows.set(name, { tool: name, originalServer: original, currentServer: server });
    }
    this.#providers.set(key, known, now + this.#sessionTtlMs);
    this.#shadows.set(key, shadows, now + this.#sessionTtlMs);
    return [...shadows.values()];
  }

  async recordServerTools(namespace: string, server: string, tools: readonly string[]): Promise<void> {
    const now = this.#now();
    const listings = this.#serverTools.get(namespace, now) ?? new Map<string, string[]>();
    listings.set(
      server.toLowerCase(),
      tools.map((tool) => tool.toLowerCase()),
    );
    this.#serverTools.set(namespace, listings, now + this.#sessionTtlMs);
  }

  async serverTools(namespace: string): Promise<Record<string, string[]>> {
    const listings = this.#serverTools.get(namespace, this.#now());
    return Object.fromEntries([...(listings ?? [])].map(([server, tools]) => [server, [...tools]]));
  }

  async pinIfAbsent(namespace: string, pins: { key: string; sha256: string }[]): Promise<PinResult[]> {
    const now = this.#now();
    return pins.map(({ key, sha256 }) => {
      const storeKey = `${namespace}\0${key}`;
      const pinned = this.#pins.get(storeKey, now);
      if (pinned !== undefined) return { key, pinned, created: false };
      this.#pins.set(storeKey, sha256, Number.POSITIVE_INFINITY);
      return { key, pinned: sha256, created: true };
    });
  }

  async getVerdicts(keys: string[]): Promise<(string | undefined)[]> {
    const now = this.#now();
    return keys.map((key) => this.#verdicts.get(`v\0${key}`, now));
  }

  async claimVerdict(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.#now();
    if (this.#verdicts.get(`c\0${key}`, now) !== undefined) return false;
    this.#verdicts.set(`c\0${key}`, owner, now + ttlMs);
    return true;
  }

  async putVerdict(key: string, verdict: string, ttlMs: number): Promise<void> {
    this.#verdicts.set(`v\0${key}`, verdict, this.#now() + ttlMs);
  }

  /** Overwrites pins with what the shared store holds, so a fallback knows the pins seen before. */
  rememberPins(namespace: string, pins: readonly { key: string; pinned: string }[]): void {
    for (const { key, pinned } of pins)
      this.#pins.set(`${namespace}\0${key}`, pinned, Number.POSITIVE_INFINITY);
  }

  async getPins(namespace: string): Promise<Record<string, string>> {
    const prefix = `${namespace}\0`;
    const result: Record<string, string> = {};
    for (const [key, sha] of this.#pins.entries(this.#now())) {
      if (key.startsWith(prefix)) result[key.slice(prefix.length)] = sha;
    }
    return result;
  }

  appendAudit(namespace: string, event: StampedAuditEvent): void {
    const now = this.#now();
    const stream = this.#audit.get(namespace, now) ?? { entries: [], lastMs: 0, lastSeq: 0 };
    if (now > stream.lastMs) {
      stream.lastMs = now;
      stream.lastSeq = 0;
    } else stream.lastSeq += 1;
    stream.entries.push({ id: `${stream.lastMs}-${stream.lastSeq}`, event: { ...event, namespace } });
    if (stream.entries.length > this.#auditMaxLen)
      stream.entries.splice(0, stream.entries.length - this.#auditMaxLen);
    this.#audit.set(namespace, stream, Number.POSITIVE_INFINITY);
  }

  async readAudit(query: AuditQuery): Promise<StoredAuditEvent[]> {
    const now = this.#now();
    const streams =
      query.namespace !== undefined
        ? [this.#audit.get(query.namespace, now)].filter((s) => s !== undefined)
        : [...this.#audit.entries(now)].map(([, s]) => s);
    const matches: StoredAuditEvent[] = [];
    for (const stream of streams) {
      for (const entry of stream.entries) {
        if (query.after !== undefined && compareStreamIds(entry.id, query.after) <= 0) continue;
        if (query.since !== undefined && compareStreamIds(entry.id, `${query.since}-0`) < 0) continue;
        if (matchesAuditQuery(entry.event, query)) matches.push(entry);
      }
    }
    return matches.sort((a, b) => compareStreamIds(b.id, a.id)).slice(0, query.limit);
  }

  /** Keys held per kind, to show the bounds hold. */
  stats(): { rateKeys: number; windows: number; sessions: number; pins: number; auditNamespaces: number } {
    return {
      rateKeys: this.#rate.size,
      windows: this.#windows.size,
      sessions: this.#providers.size,
      pins: this.#pins.size,
      auditNamespaces: this.#audit.size,
    };
  }

  async flush(): Promise<void> {}

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
