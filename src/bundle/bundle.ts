import { createHash } from "node:crypto";
import { canonicalJson } from "../kernel/json.ts";
import { checkPolicyObject } from "../policy/load.ts";
import { selectorMatches } from "../policy/selector.ts";
import type { MCPPolicySpec, PolicyDocument } from "../policy/types.ts";

/** One MCPPolicy as it travels in a bundle: defaults applied, identity and generation kept. */
export interface BundlePolicy {
  namespace: string;
  name: string;
  generation: number;
  spec: MCPPolicySpec;
}

/** The compiled bundle for one pod: every MCPPolicy that selects it. */
export interface Bundle {
  hash: string;
  namespace: string;
  pod: string;
  policies: BundlePolicy[];
  issuedAt: string;
}

export function comparePolicies(a: BundlePolicy, b: BundlePolicy): number {
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** sha256 (hex) of the canonical JSON of the policies in namespace/name order. */
export function bundleHash(policies: readonly BundlePolicy[]): string {
  return hashOfCanonicalPolicies([...policies].sort(comparePolicies).map(canonicalJson));
}

/** The same hash from policies already encoded with `canonicalJson` and sorted (the controller caches those). */
export function hashOfCanonicalPolicies(canonicalPolicies: readonly string[]): string {
  return createHash("sha256")
    .update(`[${canonicalPolicies.join(",")}]`)
    .digest("hex");
}

/** The policies of `candidates` that select the pod: same namespace, podSelector matching its labels. */
export function policiesForPod(
  candidates: readonly BundlePolicy[],
  namespace: string,
  labels: Readonly<Record<string, string>>,
): BundlePolicy[] {
  return candidates
    .filter((p) => p.namespace === namespace && selectorMatches(p.spec.podSelector, labels))
    .sort(comparePolicies);
}

export function buildBundle(
  candidates: readonly BundlePolicy[],
  pod: { namespace: string; name: string; labels: Readonly<Record<string, string>> },
  now: Date = new Date(),
): Bundle {
  const policies = policiesForPod(candidates, pod.namespace, pod.labels);
  return {
    hash: bundleHash(policies),
    namespace: pod.namespace,
    pod: pod.name,
    policies,
    issuedAt: now.toISOString(),
  };
}

export class BundleError extends Error {}

/**
 * Checks a bundle received from the controller (or read back from disk) before it is enforced:
 * shape, that it is for this pod, that the hash matches its content, and that every policy is
 * valid. Returns the policies as PolicyDocuments for `PolicySet.fromDocuments`.
 */
export function verifyBundle(
  value: unknown,
  expected: { namespace: string; pod: string },
): { bundle: Bundle; documents: PolicyDocument[] } {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new BundleError("bundle is not a JSON object");
  }
  const bundle = value as Bundle;
  if (bundle.namespace !== expected.namespace || bundle.pod !== expected.pod) {
    throw new BundleError(
      `bundle is for ${bundle.namespace}/${bundle.pod}, expected ${expected.namespace}/${expected.pod}`,
    );
  }
  if (typeof bundle.hash !== "string" || !Array.isArray(bundle.policies)) {
    throw new BundleError("bundle lacks hash or policies");
  }
  const documents: PolicyDocument[] = [];
  bundle.policies.forEach((policy, i) => {
    const checked = checkPolicyObject({
      apiVersion: "toolwall.io/v1alpha1",
      kind: "MCPPolicy",
      metadata: { namespace: policy?.namespace, name: policy?.name },
      spec: structuredClone(policy?.spec),
    });
    if (!checked.policy) {
      const problems = checked.problems.map((p) => `${p.path}: ${p.message}`).join("; ");
      throw new BundleError(
        `bundle policy ${i} (${policy?.namespace}/${policy?.name}) is invalid: ${problems}`,
      );
    }
    if (checked.policy.namespace !== expected.namespace) {
      throw new BundleError(
        `bundle policy ${checked.policy.name} belongs to namespace ${checked.policy.namespace}`,
      );
    }
    documents.push(checked.policy);
  });
  const actual = bundleHash(bundle.policies);
  if (actual !== bundle.hash)
    throw new BundleError(`bundle hash ${bundle.hash} does not match its content (${actual})`);
  return { bundle, documents };
}
