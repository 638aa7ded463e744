import type { PolicySet } from "../policy/evaluate.ts";
import type { Decision } from "../policy/types.ts";
import { compileStatefulPolicy, type StatefulPolicy, type StateGuard } from "../state/guard.ts";
import type { AuditSink } from "../telemetry/audit.ts";
import type { StatefulCheck } from "./decide.ts";

const compiled = new WeakMap<PolicySet, StatefulPolicy[]>();

function statefulPolicies(policies: PolicySet): StatefulPolicy[] {
  let list = compiled.get(policies);
  if (!list) {
    list = policies.policies.map((policy) => compileStatefulPolicy(policy.id, policy.spec));
    compiled.set(policies, list);
  }
  return list;
}

/**
 * The state store (src/state) as the decision pipeline's StatefulCheck: cross-server rules before
 * the policy verdict, rate limits after it, one round trip. A cross-server block is also reported as
 * `mcp_cross_server_blocked`.
 */
export function stateGuardCheck(guard: StateGuard, audit: AuditSink): StatefulCheck {
  return {
    async check({ call, decision, policies, identity, requestId, dialect }): Promise<Decision> {
      const enforcedDeny = decision.action === "deny" && decision.mode === "Enforce";
      const verdict = enforcedDeny
        ? { action: "deny" as const, reason: decision.reason, rule: decision.rule }
        : { action: "allow" as const };
      const guarded = await guard.decide(
        identity,
        { ...(call.server !== undefined ? { server: call.server } : {}), tool: call.tool, requestId },
        statefulPolicies(policies),
        verdict,
      );
      if (guarded.crossServer) {
        audit.emit({
          type: "mcp_cross_server_blocked",
          namespace: identity.namespace,
          pod: identity.pod,
          session: identity.session,
          requestId,
          dialect,
          server: call.server ?? "",
          tool: call.tool,
          action: "deny",
          reason: guarded.reason,
          rule: guarded.rule,
          mode: "Enforce",
          related: guarded.crossServer.related,
        });
      }
      if (guarded.action === "deny" && guarded.stage !== "policy") {
        return { action: "deny", reason: guarded.reason, rule: guarded.rule, mode: "Enforce" };
      }
      return decision;
    },
  };
}
