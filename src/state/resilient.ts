import type { SessionState, ShadowedTool } from "../analyzer/types.ts";
import { MemoryStore } from "./memory.ts";
import type { StateMetrics } from "./metrics.ts";
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

/** `spec.onStateUnavailable`. */
export type StateUnavailableMode = "Local" | "Deny" | "Allow";

/** Returned by `attempt` when the primary store did not answer in time (or is known to be down). */
export const stateUnavailable: unique symbol = Symbol("state unavailable");

export interface ResilientStoreOptions {
  local?: MemoryStore;
  /** Longest a caller waits on the primary store. */
  timeoutMs?: number;
  /** While unavailable, how often the primary is pinged to detect recovery. */
  probeIntervalMs?: number;
  metrics?: StateMetrics;
  /** One line per transition (unavailable, recovered); stderr by default. */
  log?: (line: string) => void;
}

/**
 * Bounds every call to the primary store by a timeout. After a failure the primary is considered
 * unavailable: calls stop waiting on it at all (they get `stateUnavailable` at once) and a background
 * ping brings it back. The StateStore methods fall back to the in-process store (Local mode); callers
 * that need Deny or Allow use `attempt` and decide themselves.
 */
export class ResilientStore implements StateStore {
  readonly primary: StateStore;
  readonly local: MemoryStore;
  readonly timeoutMs: number;
  readonly #probeIntervalMs: number;
  readonly #metrics: StateMetrics | undefined;
  readonly #log: (line: string) => void;
  #available = true;
  #unavailableSince = 0;
  #probe: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(primary: StateStore, options: ResilientStoreOptions = {}) {
    this.primary = primary;
    this.local = options.local ?? new MemoryStore();
    this.timeoutMs = options.timeoutMs ?? 50;
    this.#probeIntervalMs = options.probeIntervalMs ?? 500;
    this.#metrics = options.metrics;
    this.#log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.#metrics?.fallbackActive.set(0);
  }

  get available(): boolean {
    return this.#available;
  }

  /**
   * At start: waits up to `maxMs` for the primary to answer. Not reachable by then: the store starts
   * unavailable (one log line) and the background probe brings it in later.
   */
  async waitUntilReachable(maxMs: number): Promise<boolean> {
    const deadline = Date.now() + maxMs;
    let lastError = new Error("no answer");
    while (Date.now() < deadline) {
      try {
        await this.#withTimeout(this.primary.ping(), Math.min(this.timeoutMs * 4, deadline - Date.now()));
        return true;
      } catch (error) {
        lastError = error as Error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    this.#failed("connect", lastError);
    return false;
  }

  /** Runs `operation` on the primary within the timeout, or answers `stateUnavailable`. */
  async attempt<T>(
    operation: string,
    run: (store: StateStore) => Promise<T>,
  ): Promise<T | typeof stateUnavailable> {
    if (!this.#available) return stateUnavailable;
    try {
      return await this.#withTimeout(run(this.primary), this.timeoutMs);
    } catch (error) {
      this.#failed(operation, error as Error);
      return stateUnavailable;
    }
  }

  async #withTimeout<T>(operation: Promise<T>, ms: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        operation,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  #failed(operation: string, error: Error): void {
    this.#metrics?.storeErrors.inc({ operation });
    if (!this.#available || this.#closed) return;
    this.#available = false;
    this.#unavailableSince = Date.now();
    this.#metrics?.fallbackActive.set(1);
    this.#log(
      `toolwall: state store unavailable (${operation}: ${error.message}); serving per onStateUnavailable until it answers again`,
    );
    this.#probe = setInterval(() => void this.#probeOnce(), this.#probeIntervalMs);
    this.#probe.unref();
  }

  async #probeOnce(): Promise<void> {
    try {
      await this.#withTimeout(this.primary.ping(), this.timeoutMs * 4);
    } catch {
      return;
    }
    if (this.#available || this.#closed) return;
    clearInterval(this.#probe);
    this.#probe = undefined;
    this.#available = true;
    this.#metrics?.fallbackActive.set(0);
    this.#log(
      `toolwall: state store reachable again after ${((Date.now() - this.#unavailableSince) / 1000).toFixed(1)}s`,
    );
    void this.primary.flush().catch(() => {});
  }

  async #orLocal<T>(operation: string, run: (store: StateStore) => Promise<T>): Promise<T> {
    const result = await this.attempt(operation, run);
    return result === stateUnavailable ? run(this.local) : result;
  }

  checkAndRecord(input: CheckAndRecordInput): Promise<RateLimitOutcome> {
    return this.#orLocal("checkAndRecord", (s) => s.checkAndRecord(input));
  }

  loadSession(namespace: string, session: string, sinceMs: number): Promise<SessionState> {
    return this.#orLocal("loadSession", (s) => s.loadSession(namespace, session, sinceMs));
  }

  noteToolProviders(namespace: string, session: string, providers: ToolProvider[]): Promise<ShadowedTool[]> {
    return this.#orLocal("noteToolProviders", (s) => s.noteToolProviders(namespace, session, providers));
  }

  recordServerTools(namespace: string, server: string, tools: readonly string[]): Promise<void> {
    return this.#orLocal("recordServerTools", (s) => s.recordServerTools(namespace, server, tools));
  }

  serverTools(namespace: string): Promise<Record<string, string[]>> {
    return this.#orLocal("serverTools", (s) => s.serverTools(namespace));
  }

  /**
   * Pins answered by the primary are remembered locally: while it is away, a definition this process
   * saw pinned is still compared against its pin; only names never seen are trusted on first use.
   */
  async pinIfAbsent(namespace: string, pins: { key: string; sha256: string }[]): Promise<PinResult[]> {
    const result = await this.attempt("pinIfAbsent", (s) => s.pinIfAbsent(namespace, pins));
    if (result === stateUnavailable) return this.local.pinIfAbsent(namespace, pins);
    if (this.local !== this.primary) this.local.rememberPins(namespace, result);
    return result;
  }

  getVerdicts(keys: string[]): Promise<(string | undefined)[]> {
    return this.#orLocal("getVerdicts", (s) => s.getVerdicts(keys));
  }

  /** While the primary is away each process may ask the judge itself (its own budget still holds). */
  claimVerdict(key: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.#orLocal("claimVerdict", (s) => s.claimVerdict(key, owner, ttlMs));
  }

  putVerdict(key: string, verdict: string, ttlMs: number): Promise<void> {
    return this.#orLocal("putVerdict", (s) => s.putVerdict(key, verdict, ttlMs));
  }

  getPins(namespace: string): Promise<Record<string, string>> {
    return this.#orLocal("getPins", (s) => s.getPins(namespace));
  }

  /** Queued on the primary, which writes in batches and keeps a bounded backlog while it is down. */
  appendAudit(namespace: string, event: StampedAuditEvent): void {
    this.primary.appendAudit(namespace, event);
  }

  readAudit(query: AuditQuery): Promise<StoredAuditEvent[]> {
    return this.#orLocal("readAudit", (s) => s.readAudit(query));
  }

  async flush(): Promise<void> {
    const result = await this.attempt("audit", (s) => s.flush());
    if (result === stateUnavailable) throw new Error("state store unavailable: audit events stay queued");
  }

  async ping(): Promise<void> {
    await this.primary.ping();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#probe);
    await this.primary.close();
  }
}
