import { describe, expect, it } from "vitest";
import { mergeByMode } from "../../src/policy/evaluate.ts";

type D = { mode: "Enforce" | "Audit"; deny: boolean; id: number };
const d = (id: number, mode: D["mode"], deny: boolean): D => ({ id, mode, deny });

describe("mergeByMode (the one Enforce/Audit merge: tool decisions and egress verdicts)", () => {
  it("returns the first enforced deny and evaluates no policy after it", () => {
    const seen: number[] = [];
    const merged = mergeByMode(
      [d(1, "Audit", true), d(2, "Enforce", false), d(3, "Enforce", true), d(4, "Enforce", true)],
      (x) => {
        seen.push(x.id);
        return x;
      },
      (x) => x.deny,
    );
    expect(merged.enforcedDeny?.id).toBe(3);
    expect(seen).toEqual([1, 2, 3]);
  });

  it("reports the first Audit deny beside everything allowed when no enforcing policy denies", () => {
    const merged = mergeByMode(
      [d(1, "Enforce", false), d(2, "Audit", true), d(3, "Audit", true), d(4, "Audit", false)],
      (x) => x,
      (x) => x.deny,
    );
    expect(merged.enforcedDeny).toBeUndefined();
    expect(merged.auditDeny?.id).toBe(2);
    expect(merged.allowed.map((x) => x.id)).toEqual([1, 4]);
  });
});
