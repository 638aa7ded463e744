import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PolicySet } from "../../src/policy/evaluate.ts";
import { matchGlob } from "../../src/policy/glob.ts";
import { checkPolicyObject } from "../../src/policy/load.ts";
import { isBlocked, type PolicyDocument } from "../../src/policy/types.ts";

const alphabet = fc.constantFrom("a", "b", "A", "_", ".", "-");
const word = fc.array(alphabet, { maxLength: 8 }).map((chars) => chars.join(""));
const glob = fc
  .array(fc.oneof(alphabet, fc.constant("*"), fc.constant("?")), { maxLength: 8 })
  .map((c) => c.join(""));

function referenceMatch(pattern: string, text: string): boolean {
  const source = [...pattern.toLowerCase()]
    .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.\-\\^$+()[\]{}|]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}$`, "s").test(text.toLowerCase());
}

describe("glob matching (property)", () => {
  it("agrees with the regular-expression reading of the glob, case-insensitively", () => {
    fc.assert(
      fc.property(glob, word, (pattern, text) => {
        expect(matchGlob(pattern, text)).toBe(referenceMatch(pattern, text));
      }),
      { numRuns: 5000 },
    );
  });

  it("a literal glob matches its own text in any case", () => {
    fc.assert(fc.property(word, (text) => matchGlob(text, text.toUpperCase())));
  });
});

const toolName = fc.constantFrom("read_file", "write_file", "delete_repo", "Bash", "search");
const action = fc.constantFrom("Allow" as const, "Deny" as const);
const rule = fc.record({
  action,
  tools: fc.array(fc.oneof(toolName, fc.constantFrom("*", "delete_*", "*_file")), {
    minLength: 1,
    maxLength: 3,
  }),
});
const policyArb = (name: string) =>
  fc
    .record({
      mode: fc.constantFrom("Enforce", "Audit"),
      default: action,
      rules: fc.array(rule, { maxLength: 4 }),
    })
    .map((p): PolicyDocument => {
      const { policy, problems } = checkPolicyObject({
        apiVersion: "toolwall.io/v1alpha1",
        kind: "MCPPolicy",
        metadata: { name, namespace: "ns" },
        spec: { mode: p.mode, toolPolicy: { default: p.default, rules: p.rules } },
      });
      expect(problems).toEqual([]);
      return policy!;
    });

describe("combining policies (property)", () => {
  const policies = fc.tuple(policyArb("p1"), policyArb("p2"), policyArb("p3"));

  it("deny wins: the set blocks a call exactly when some enforcing policy alone would", () => {
    fc.assert(
      fc.property(policies, toolName, (docs, tool) => {
        const alone = docs.map((doc) => PolicySet.fromDocuments([doc]).evaluate({ tool }));
        const together = PolicySet.fromDocuments(docs).evaluate({ tool });
        expect(isBlocked(together)).toBe(alone.some(isBlocked));
      }),
      { numRuns: 500 },
    );
  });

  it("an Audit-mode policy never blocks, but its deny is reported when nothing enforcing denies", () => {
    fc.assert(
      fc.property(policies, toolName, (docs, tool) => {
        const audited = docs.map((doc) => ({ ...doc, spec: { ...doc.spec, mode: "Audit" as const } }));
        const decision = PolicySet.fromDocuments(audited).evaluate({ tool });
        expect(isBlocked(decision)).toBe(false);
        const anyDeny = audited.some(
          (doc) => PolicySet.fromDocuments([doc]).evaluate({ tool }).action === "deny",
        );
        expect(decision.action === "deny").toBe(anyDeny);
      }),
      { numRuns: 500 },
    );
  });

  it("preview never contradicts the decision it predicts", () => {
    fc.assert(
      fc.property(policies, toolName, (docs, tool) => {
        const set = PolicySet.fromDocuments(docs);
        const preview = set.preview({ tool });
        if (preview !== "conditional") expect(isBlocked(set.evaluate({ tool }))).toBe(preview === "deny");
      }),
      { numRuns: 500 },
    );
  });
});
