import { compilePolicy } from "../policy/compile.ts";
import { PolicySet } from "../policy/evaluate.ts";
import { checkPolicyObject } from "../policy/load.ts";

/**
 * Where the data plane gets the policies in force. `current()` is called per decision (the set may
 * change between requests). Once `expired()` the set returned denies every call with reason
 * "policy expired", so a pipeline that only calls `current()` is safe too.
 */
export interface PolicySource {
  current(): PolicySet;
  expired(): boolean;
}

/** A PolicySource the sidecar opened (a BundleClient, or policy files): readiness and shutdown. */
export interface OpenedPolicySource extends PolicySource {
  /** The sidecar is ready (readyz) only once this is true. */
  ready(): boolean;
  whenReady(): Promise<void>;
  stop(): Promise<void>;
}

export const policyExpiredReason = "policy expired";

/** A PolicySet that denies every tool call, server, resource and prompt with reason "policy expired". */
export function expiredPolicySet(namespace: string): PolicySet {
  const denyAll = (key: "servers" | "uris" | "prompts") => ({
    default: "Deny",
    rules: [{ action: "Deny", [key]: ["*"], reason: policyExpiredReason }],
  });
  const checked = checkPolicyObject({
    apiVersion: "toolwall.io/v1alpha1",
    kind: "MCPPolicy",
    metadata: { namespace, name: "toolwall-policy-expired" },
    spec: {
      podSelector: {},
      mode: "Enforce",
      serverPolicy: denyAll("servers"),
      toolPolicy: { default: "Deny", rules: [{ action: "Deny", tools: ["*"], reason: policyExpiredReason }] },
      resourcePolicy: denyAll("uris"),
      promptPolicy: denyAll("prompts"),
      egress: { default: "Deny" },
    },
  });
  if (!checked.policy) {
    throw new Error(
      `expired policy is invalid: ${checked.problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`,
    );
  }
  return new PolicySet([compilePolicy(checked.policy)]);
}

/** A fixed set of policies (`--policy-file` on hosts without Kubernetes): never expires. */
export class StaticPolicySource implements PolicySource {
  readonly #set: PolicySet;
  constructor(set: PolicySet) {
    this.#set = set;
  }
  current(): PolicySet {
    return this.#set;
  }
  expired(): boolean {
    return false;
  }
}
