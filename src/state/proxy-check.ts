import type { ShadowedTool } from "../analyzer/types.ts";
import type { StateCheckInput, StatefulCheck } from "../engine/decide.ts";
import type { SessionToolRegistry } from "../engine/registry.ts";
import type { CompiledPolicy } from "../policy/compile.ts";
import { type Decision, isBlocked } from "../policy/types.ts";
import type { AuditSink } from "../telemetry/audit.ts";
import {
  type CallContext,
  compileStatefulPolicy,
  crossServerBlockedEvent,
  type StatefulPolicy,
  type StateGuard,
} from "./guard.ts";

/**
 * The proxy's StatefulCheck on top of the StateGuard: cross-server rules before the policies' verdict,
 * the rate-limit token after it, one store round trip; `mcp_cross_server_blocked` events for the
 * cross-server findings.
 */
export class StateGuardCheck implements StatefulCheck {
  readonly #guard: StateGuard;
  readonly #audit: AuditSink;
  readonly #compiled = new WeakMap<CompiledPolicy, StatefulPolicy>();

  constructor(guard: StateGuard, audit: AuditSink) {
    this.#guard = guard;
    this.#audit = audit;
  }

  #stateful(policy: CompiledPolicy): StatefulPolicy {
    let compiled = this.#compiled.get(policy);
    if (!compiled) {
      compiled = compileStatefulPolicy(policy.id, policy.spec);
      this.#compiled.set(policy, compiled);
    }
    return compiled;
  }

  async check(input: StateCheckInput): Promise<Decision> {
    const policies = input.policies.policies.map((p) => this.#stateful(p));
    const context: CallContext = { ...input.identity };
    const call = {
      tool: input.call.tool,
      requestId: input.requestId,
      ...(input.call.server !== undefined ? { server: input.call.server } : {}),
      ...(input.kind !== undefined ? { kind: input.kind } : {}),
    };
    const blocked = isBlocked(input.decision);
    const result = await this.#guard.decide(context, call, policies, {
      action: blocked ? "deny" : "allow",
      reason: input.decision.reason,
      rule: input.decision.rule,
    });
    if (result.crossServer) {
      this.#audit.emit({
        ...crossServerBlockedEvent(context, call, result.crossServer, true),
        type: "mcp_cross_server_blocked",
        dialect: input.dialect,
      });
    }
    for (const finding of result.findings) {
      if (finding.crossServer) {
        this.#audit.emit({
          ...crossServerBlockedEvent(context, call, finding.crossServer, false),
          type: "mcp_cross_server_blocked",
          dialect: input.dialect,
        });
      }
    }
    if (result.stage === "none" || result.stage === "policy") {
      const audited = result.findings[0];
      if (audited && !blocked && input.decision.action === "allow") {
        return { action: "deny", reason: audited.reason, rule: audited.rule, mode: "Audit" };
      }
      return input.decision;
    }
    return { action: "deny", reason: result.reason, rule: result.rule, mode: "Enforce" };
  }
}

type ObservingRegistry = SessionToolRegistry & {
  observe(server: string, tools: readonly string[], page?: { first: boolean; last: boolean }): unknown;
  toolsOf?(server: string): ReadonlySet<string>;
};

/** How often a process asks the store for listings it lacks (a bare name it cannot place). */
const refreshIntervalMs = 5_000;

/**
 * Wraps the session's tool registry so that every observed listing also reaches the shared state:
 * shadows found in process reach the shadowTool rule at once, and the store keeps them for a
 * restarted sidecar.
 */
export class SharedSessionRegistry implements SessionToolRegistry {
  readonly inner: ObservingRegistry;
  readonly #guard: StateGuard;
  readonly #context: CallContext;
  readonly #log: (message: string) => void;
  #refreshedAt = 0;
  #refreshing: Promise<void> | undefined;

  constructor(
    inner: ObservingRegistry,
    guard: StateGuard,
    context: CallContext,
    log: (message: string) => void,
  ) {
    this.inner = inner;
    this.#guard = guard;
    this.#context = context;
    this.#log = log;
  }

  serverOf(tool: string): string | undefined {
    return this.inner.serverOf(tool);
  }

  listed(server: string): boolean {
    return this.inner.listed?.(server) ?? false;
  }

  observe(server: string, tools: readonly string[], page?: { first: boolean; last: boolean }): unknown {
    const added = this.inner.observe(server, tools, page);
    if (Array.isArray(added)) this.#guard.rememberShadows(this.#context, added as ShadowedTool[]);
    const failed = (error: Error) =>
      this.#log(`toolwall: recording the tools of '${server}' failed: ${error.message}`);
    this.#guard.noteToolList(this.#context, server, tools).catch(failed);
    if (page === undefined || page.last) {
      const listing = this.inner.toolsOf?.(server) ?? tools;
      this.#guard.store.recordServerTools(this.#context.namespace, server, [...listing]).catch(failed);
    }
    return added;
  }

  /**
   * The listings recorded by other sidecars of the namespace (or this one before a restart), for the
   * servers this process has not listed yet; asked at most once per refreshIntervalMs.
   */
  refresh(): Promise<void> {
    if (this.#refreshing) return this.#refreshing;
    if (Date.now() - this.#refreshedAt < refreshIntervalMs) return Promise.resolve();
    this.#refreshing = this.#guard.store
      .serverTools(this.#context.namespace)
      .then((listings) => {
        for (const [server, tools] of Object.entries(listings)) {
          if (!this.listed(server)) this.inner.observe(server, tools);
        }
      })
      .catch((error: Error) =>
        this.#log(`toolwall: reading the shared tool registry failed: ${error.message}`),
      )
      .finally(() => {
        this.#refreshedAt = Date.now();
        this.#refreshing = undefined;
      });
    return this.#refreshing;
  }
}
