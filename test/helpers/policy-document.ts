import { parsePolicies } from "../../src/policy/load.ts";
import type { PolicyDocument } from "../../src/policy/types.ts";

/**
 * A policy document from a partial spec, loaded the way a file is (schema defaults filled, validated):
 * tests state only the fields they exercise. Throws on a spec the loader refuses.
 */
export function policyDocument(
  spec: Record<string, unknown>,
  metadata: { name?: string; namespace?: string } = {},
): PolicyDocument {
  const text = JSON.stringify({
    apiVersion: "toolwall.io/v1alpha1",
    kind: "MCPPolicy",
    metadata: { name: metadata.name ?? "unnamed", namespace: metadata.namespace ?? "default" },
    spec,
  });
  const { policies, problems } = parsePolicies(text, "test.json");
  if (problems.length > 0 || policies.length !== 1) throw new Error(JSON.stringify(problems));
  return policies[0]!;
}
