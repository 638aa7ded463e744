import { describe, expect, it } from "vitest";
import {
  BundleError,
  type BundlePolicy,
  buildBundle,
  bundleHash,
  policiesForPod,
  verifyBundle,
} from "../../src/bundle/bundle.ts";
import { canonicalJson } from "../../src/kernel/json.ts";
import { checkPolicyObject } from "../../src/policy/load.ts";

function policy(
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
  generation = 1,
): BundlePolicy {
  const checked = checkPolicyObject({
    apiVersion: "toolwall.io/v1alpha1",
    kind: "MCPPolicy",
    metadata: { namespace, name },
    spec,
  });
  if (!checked.policy) throw new Error(JSON.stringify(checked.problems));
  return { namespace, name, generation, spec: checked.policy.spec };
}

const research = policy("agents", "research", {
  podSelector: { matchLabels: { app: "research" } },
  toolPolicy: { default: "Allow", rules: [{ action: "Deny", tools: ["delete_*"] }] },
});
const everyPod = policy("agents", "baseline", { podSelector: {} });
const otherNamespace = policy("other", "baseline", { podSelector: {} });

describe("bundle", () => {
  it("canonical JSON does not depend on key order", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
      canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
    expect(canonicalJson({ a: undefined, b: "x" })).toBe('{"b":"x"}');
  });

  it("hash is stable across key order and policy order, and changes with content", () => {
    const reordered = JSON.parse(canonicalJson(research)) as BundlePolicy;
    const shuffled = Object.fromEntries(Object.entries(reordered).reverse()) as unknown as BundlePolicy;
    expect(bundleHash([research, everyPod])).toBe(bundleHash([everyPod, shuffled]));
    expect(bundleHash([research])).not.toBe(bundleHash([{ ...research, generation: 2 }]));
    expect(bundleHash([])).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a pod gets the policies of its namespace whose selector matches its labels", () => {
    const all = [research, everyPod, otherNamespace];
    expect(policiesForPod(all, "agents", { app: "research" }).map((p) => p.name)).toEqual([
      "baseline",
      "research",
    ]);
    expect(policiesForPod(all, "agents", { app: "writer" }).map((p) => p.name)).toEqual(["baseline"]);
    expect(policiesForPod(all, "empty", { app: "research" })).toEqual([]);
  });

  it("a built bundle verifies, carries defaults, and a tampered one is rejected", () => {
    const bundle = buildBundle([research, everyPod], {
      namespace: "agents",
      name: "p1",
      labels: { app: "research" },
    });
    expect(bundle.policies[1]?.spec.mode).toBe("Enforce");
    const copy = JSON.parse(JSON.stringify(bundle));
    expect(verifyBundle(copy, { namespace: "agents", pod: "p1" }).documents).toHaveLength(2);
    expect(() => verifyBundle(copy, { namespace: "agents", pod: "p2" })).toThrow(/expected agents\/p2/);
    copy.policies[1].spec.toolPolicy.rules = [];
    expect(() => verifyBundle(copy, { namespace: "agents", pod: "p1" })).toThrow(BundleError);
    expect(() => verifyBundle(copy, { namespace: "agents", pod: "p1" })).toThrow(
      /does not match its content/,
    );
  });

  it("a bundle with an invalid policy names the bad field", () => {
    const bad = { ...research, spec: { ...research.spec, mode: "Sometimes" } } as unknown as BundlePolicy;
    const bundle = { hash: bundleHash([bad]), namespace: "agents", pod: "p1", policies: [bad], issuedAt: "" };
    expect(() => verifyBundle(bundle, { namespace: "agents", pod: "p1" })).toThrow(/mode/);
  });
});
