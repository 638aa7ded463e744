import {
  type CrossServerConfig,
  type CrossServerFinding,
  type CrossServerSpec,
  compileCrossServer,
  evaluateCrossServer,
  usesCrossServerRules,
} from "../analyzer/cross-server.ts";
import type { CallRecord, SessionState, ShadowedTool, ToolCategory } from "../analyzer/types.ts";
import type { JudgedKind } from "../engine/decide.ts";
import { BoundedMap } from "../kernel/bounded-map.ts";
import type { MCPPolicySpec } from "../policy/types.ts";
import type { StateMetrics } from "./metrics.ts";
import { type CompiledRateLimit, chargeFor, compileRateLimits, type RateLimitSpec } from "./rate-limits.ts";
import { type ResilientStore, type StateUnavailableMode, stateUnavailable } from "./resilient.ts";
import type { RateLimitCharge, RateLimitOutcome, StampedAuditEvent } from "./types.ts";

/** The stateful parts of one MCPPolicy spec (the CRD's shape), the loader's defaults optional. */
export type StatefulPolicySpec = Partial<Pick<MCPPolicySpec, "mode" | "onStateUnavailable">> & {
  crossServer?: CrossServerSpec;
  rateLimits?: RateLimitSpec[];
};

export interface StatefulPolicy {
  /** `<namespace>/<name>`. */
  ref: string;
  enforce: boolean;
  crossServer: CrossServerConfig;
  rateLimits: CompiledRateLimit[];
  onStateUnavailable: StateUnavailableMode;
}

export function compileStatefulPolicy(ref: string, spec: StatefulPolicySpec): StatefulPolicy {
  return {
    ref,
    enforce: (spec.mode ?? "Enforce") === "Enforce",
    crossServer: compileCrossServer(spec.crossServer),
    rateLimits: compileRateLimits(ref, spec.rateLimits),
    onStateUnavailable: spec.onStateUnavailable ?? "Local",
  };
}

export interface CallContext {
  namespace: string;
  pod: string;
  /** The pod session whose window the call joins (one sidecar process at a time). */
  session: string;
}

export interface GuardedCall {
  /** Undefined for a native tool of the agent (no cross-server rules, rate limits only). */
  server?: string;
  tool: string;
  /** The LLM response that asked for the call: calls of one response are one turn. */
  requestId?: string;
  /**
   * Default "tool". An MCP resource read or prompt get (`tool` is then the URI or prompt name)
   * spends rate limits that cover every tool of its server; it joins no cross-server window.
   */
  kind?: JudgedKind;
}

/** What the pure evaluator decided (server, tool and pin checks), with Audit-mode denials already lifted. */
export interface Verdict {
  action: "allow" | "deny";
  reason?: string;
  rule?: string;
}

export interface CrossServerBlock {
  policy: string;
  rule: CrossServerFinding["rule"];
  severity: CrossServerFinding["severity"];
  reason: string;
  related: CallRecord[];
}

/** A stateful check that fired in an Audit-mode policy: reported, not enforced. */
export interface AuditFinding {
  rule: string;
  reason: string;
  crossServer?: CrossServerBlock;
}

export interface GuardDecision {
  action: "allow" | "deny";
  reason: string;
  rule: string;
  /** Which check decided: the first one that denied, or "none" when the call is allowed. */
  stage: "crossServer" | "policy" | "rateLimit" | "stateUnavailable" | "none";
  /** Set when a cross-server rule blocked: the data of the `mcp_cross_server_blocked` event. */
  crossServer?: CrossServerBlock;
  findings: AuditFinding[];
  retryAfterMs?: number;
  /** The state store could not be reached; onStateUnavailable decided how the stateful checks ran. */
  stateUnavailable: boolean;
}

export interface StateGuardOptions {
  store: ResilientStore;
  metrics?: StateMetrics;
  /** Most entries kept in one session window (store and mirror). */
  maxWindowEntries?: number;
  /** Sessions mirrored in process; the least recently used beyond it are dropped (and reloaded). */
  maxSessions?: number;
  now?: () => number;
}

interface Mirror extends SessionState {
  loadedFromPrimary: boolean;
}

const strictness: Record<StateUnavailableMode, number> = { Allow: 0, Local: 1, Deny: 2 };
const mirrorIdleMs = 3_600_000;

/**
 * The data plane's entry to shared state. Per tool call `decide` runs the cross-server rules in
 * process over a mirror of the session window, takes the evaluator's verdict, and makes one round
 * trip to the store: spend rate-limit tokens (only when everything else allowed) and append the call.
 */
export class StateGuard {
  readonly store: ResilientStore;
  readonly #metrics: StateMetrics | undefined;
  readonly #maxWindowEntries: number;
  readonly #now: () => number;
  readonly #mirrors: BoundedMap<string, Mirror>;
  readonly #loading = new Map<string, Promise<Mirror>>();

  constructor(options: StateGuardOptions) {
    this.store = options.store;
    this.#metrics = options.metrics;
    this.#maxWindowEntries = options.maxWindowEntries ?? 2048;
    this.#now = options.now ?? Date.now;
    this.#mirrors = new BoundedMap(options.maxSessions ?? 1000);
  }

  get mirroredSessions(): number {
    return this.#mirrors.size;
  }

  async decide(
    context: CallContext,
    call: GuardedCall,
    policies: readonly StatefulPolicy[],
    verdict: Verdict,
  ): Promise<GuardDecision> {
    const now = this.#now();
    const requestId = call.requestId ?? "";
    const crossPolicies =
      call.server === undefined || (call.kind ?? "tool") !== "tool"
        ? []
        : policies.filter((p) => usesCrossServerRules(p.crossServer));
    const retentionMs = Math.max(0, ...crossPolicies.map((p) => p.crossServer.retentionMs));
    const findings: AuditFinding[] = [];
    let decision: GuardDecision | undefined;
    let category: ToolCategory = "unknown";
    let mirror: Mirror | undefined;

    if (crossPolicies.length > 0 && call.server !== undefined) {
      mirror = await this.#mirror(context, retentionMs);
      for (const policy of crossPolicies) {
        const policyCategory = policy.crossServer.classify(call.server, call.tool);
        if (policy === crossPolicies[0]) category = policyCategory;
        const finding = evaluateCrossServer(policy.crossServer, mirror, {
          at: now,
          server: call.server,
          tool: call.tool,
          requestId,
          category: policyCategory,
        });
        if (!finding) continue;
        this.#metrics?.crossServerBlocked.inc({ rule: finding.rule });
        const block: CrossServerBlock = { policy: policy.ref, ...finding };
        const rule = `${policy.ref}#crossServer.${finding.rule}`;
        if (!policy.enforce) findings.push({ rule, reason: finding.reason, crossServer: block });
        else if (!decision)
          decision = this.#deny("crossServer", finding.reason, rule, findings, { crossServer: block });
      }
    }
    if (!decision && verdict.action === "deny") {
      decision = this.#deny("policy", verdict.reason ?? "denied by policy", verdict.rule ?? "", findings);
    }

    const limits = decision ? [] : this.#chargesFor(context, call, policies);
    if (limits.length === 0 && retentionMs === 0) return decision ?? this.#allow(verdict, findings, false);

    const record: CallRecord = {
      at: now,
      server: call.server ?? "",
      tool: call.tool,
      requestId,
      category,
      action: decision ? "deny" : "allow",
    };
    // The mirror takes the call before the round trip so that concurrent calls of the session see it.
    if (mirror) this.#appendToMirror(mirror, record, retentionMs, now);

    const input = {
      namespace: context.namespace,
      session: context.session,
      call: record,
      charges: limits.map((l) => l.charge),
      windowRetentionMs: retentionMs,
      maxWindowEntries: this.#maxWindowEntries,
    };
    const stored = await this.store.attempt("checkAndRecord", (s) => s.checkAndRecord(input));
    let outcome: RateLimitOutcome | undefined;
    let unavailable = false;
    if (stored !== stateUnavailable) outcome = stored;
    else {
      unavailable = true;
      const involved = new Set([...crossPolicies.map((p) => p.ref), ...limits.map((l) => l.policy)]);
      const mode = this.#unavailableMode(policies.filter((p) => involved.has(p.ref)));
      if (mode === "Local") outcome = await this.store.local.checkAndRecord(input);
      else if (mode === "Deny" && !decision) {
        record.action = "deny";
        return this.#deny(
          "stateUnavailable",
          "state store unavailable (onStateUnavailable: Deny)",
          limits[0]?.limit.rule ?? `${crossPolicies[0]?.ref ?? ""}#onStateUnavailable`,
          findings,
          { stateUnavailable: true },
        );
      }
    }
    if (decision) return { ...decision, stateUnavailable: unavailable };

    for (const exceeded of outcome?.exceeded ?? []) {
      const limit = limits.find((l) => l.charge.key === exceeded.key)!;
      this.#metrics?.rateLimited.inc({ policy: limit.policy, limit: exceeded.name });
      const reason = `rate limit '${exceeded.name}' exceeded (${limit.limit.perMinute}/min, burst ${limit.limit.burst}); retry in ${Math.ceil(exceeded.retryAfterMs / 1000)}s`;
      if (!exceeded.enforce) findings.push({ rule: limit.limit.rule, reason });
      else if (!decision) {
        decision = this.#deny("rateLimit", reason, limit.limit.rule, findings, {
          retryAfterMs: exceeded.retryAfterMs,
          stateUnavailable: unavailable,
        });
      }
    }
    if (decision) {
      record.action = "deny";
      return decision;
    }
    return this.#allow(verdict, findings, unavailable);
  }

  /**
   * A server's tools/list for the session: remembers the first server of each tool name and returns
   * the tools now shadowed (served by another server), which the shadowTool rule then blocks.
   */
  async noteToolList(
    context: CallContext,
    server: string,
    tools: readonly string[],
  ): Promise<ShadowedTool[]> {
    const shadows = await this.store.noteToolProviders(
      context.namespace,
      context.session,
      tools.map((tool) => ({ tool, server })),
    );
    this.rememberShadows(context, shadows);
    return shadows;
  }

  /** Shadows the process found itself (its tool registry): the rule sees them before the store answers. */
  rememberShadows(context: CallContext, shadows: readonly ShadowedTool[]): void {
    if (shadows.length === 0) return;
    const key = this.#sessionKey(context);
    const now = this.#now();
    const mirror = this.#mirrors.get(key, now);
    if (mirror) mirror.shadows = mergeShadows(mirror.shadows, shadows);
    else
      this.#mirrors.set(
        key,
        { window: [], shadows: [...shadows], loadedFromPrimary: false },
        now + mirrorIdleMs,
      );
  }

  /**
   * First writer pins each tool definition for the namespace; `changed` is true when the namespace
   * already pinned another definition (another pod saw a different one first).
   */
  async pin(
    namespace: string,
    pins: { server: string; tool: string; sha256: string }[],
  ): Promise<
    { server: string; tool: string; sha256: string; pinned: string; created: boolean; changed: boolean }[]
  > {
    const results = await this.store.pinIfAbsent(
      namespace,
      pins.map((p) => ({ key: pinKey(p.server, p.tool), sha256: p.sha256 })),
    );
    return pins.map((p, i) => {
      const result = results[i]!;
      return { ...p, pinned: result.pinned, created: result.created, changed: result.pinned !== p.sha256 };
    });
  }

  /** Fire and forget: the event joins the namespace's capped audit stream. */
  audit(namespace: string, event: StampedAuditEvent): void {
    this.store.appendAudit(namespace, event);
  }

  async close(): Promise<void> {
    await this.store.close();
  }

  #chargesFor(context: CallContext, call: GuardedCall, policies: readonly StatefulPolicy[]) {
    const charges: { policy: string; limit: CompiledRateLimit; charge: RateLimitCharge }[] = [];
    for (const policy of policies) {
      for (const limit of policy.rateLimits) {
        if (limit.matches(call.server, call.tool, call.kind)) {
          charges.push({ policy: policy.ref, limit, charge: chargeFor(limit, context.pod, policy.enforce) });
        }
      }
    }
    return charges;
  }

  /** The strictest onStateUnavailable among the policies whose stateful rules this call involves. */
  #unavailableMode(policies: readonly StatefulPolicy[]): StateUnavailableMode {
    let mode: StateUnavailableMode = "Allow";
    for (const p of policies)
      if (strictness[p.onStateUnavailable] > strictness[mode]) mode = p.onStateUnavailable;
    return mode;
  }

  #sessionKey(context: CallContext): string {
    return `${context.namespace}\0${context.session}`;
  }

  async #mirror(context: CallContext, retentionMs: number): Promise<Mirror> {
    const key = this.#sessionKey(context);
    const now = this.#now();
    const cached = this.#mirrors.get(key, now);
    if (cached && (cached.loadedFromPrimary || !this.store.available)) return cached;
    const pending = this.#loading.get(key);
    if (pending) return pending;
    const load = (async () => {
      const loaded = await this.store.attempt("loadSession", (s) =>
        s.loadSession(context.namespace, context.session, now - retentionMs),
      );
      const fromPrimary = loaded !== stateUnavailable;
      const state = fromPrimary
        ? loaded
        : await this.store.local.loadSession(context.namespace, context.session, 0);
      // Calls recorded locally while the store was away stay in the window.
      const mirror: Mirror = {
        window: mergeWindows(state.window, cached?.window ?? []),
        shadows: mergeShadows(state.shadows, cached?.shadows ?? []),
        loadedFromPrimary: fromPrimary,
      };
      this.#mirrors.set(key, mirror, now + mirrorIdleMs);
      return mirror;
    })();
    this.#loading.set(key, load);
    try {
      return await load;
    } finally {
      this.#loading.delete(key);
    }
  }

  #appendToMirror(mirror: Mirror, record: CallRecord, retentionMs: number, now: number): void {
    const cutoff = now - retentionMs;
    let drop = 0;
    while (drop < mirror.window.length && mirror.window[drop]!.at < cutoff) drop++;
    if (drop > 0) mirror.window.splice(0, drop);
    mirror.window.push(record);
    if (mirror.window.length > this.#maxWindowEntries)
      mirror.window.splice(0, mirror.window.length - this.#maxWindowEntries);
  }

  #deny(
    stage: GuardDecision["stage"],
    reason: string,
    rule: string,
    findings: AuditFinding[],
    extra: Partial<GuardDecision> = {},
  ): GuardDecision {
    return { action: "deny", reason, rule, stage, findings, stateUnavailable: false, ...extra };
  }

  #allow(verdict: Verdict, findings: AuditFinding[], unavailable: boolean): GuardDecision {
    return {
      action: "allow",
      reason: verdict.reason ?? "",
      rule: verdict.rule ?? "",
      stage: "none",
      findings,
      stateUnavailable: unavailable,
    };
  }
}

export function pinKey(server: string, tool: string): string {
  return `${server}/${tool.toLowerCase()}`;
}

function mergeShadows(a: readonly ShadowedTool[], b: readonly ShadowedTool[]): ShadowedTool[] {
  const byTool = new Map(a.map((s) => [s.tool, s]));
  for (const shadow of b) if (!byTool.has(shadow.tool)) byTool.set(shadow.tool, shadow);
  return [...byTool.values()];
}

function mergeWindows(a: CallRecord[], b: CallRecord[]): CallRecord[] {
  if (b.length === 0) return a;
  const seen = new Set(a.map((r) => `${r.at}\0${r.server}\0${r.tool}\0${r.requestId}`));
  return [...a, ...b.filter((r) => !seen.has(`${r.at}\0${r.server}\0${r.tool}\0${r.requestId}`))].sort(
    (x, y) => x.at - y.at,
  );
}

/** The `mcp_cross_server_blocked` audit event for a decision a cross-server rule made. */
export function crossServerBlockedEvent(
  context: CallContext,
  call: GuardedCall,
  block: CrossServerBlock,
  enforced: boolean,
  timestamp = new Date(),
): StampedAuditEvent {
  return {
    type: "mcp_cross_server_blocked",
    timestamp: timestamp.toISOString(),
    namespace: context.namespace,
    pod: context.pod,
    session: context.session,
    requestId: call.requestId ?? "",
    server: call.server ?? "",
    tool: call.tool,
    action: enforced ? "deny" : "allow",
    reason: block.reason,
    rule: `${block.policy}#crossServer.${block.rule}`,
    mode: enforced ? "Enforce" : "Audit",
    severity: block.severity,
    relatedCalls: block.related.map((r) => ({
      timestamp: new Date(r.at).toISOString(),
      server: r.server,
      tool: r.tool,
      requestId: r.requestId,
      category: r.category,
      action: r.action,
    })),
  };
}
