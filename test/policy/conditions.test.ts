import { describe, expect, it } from "vitest";
import { type ConditionSpec, compileCondition, parsePath } from "../../src/policy/conditions.ts";

const args = {
  owner: "acme",
  count: 3,
  flag: true,
  labels: ["bug", "p1"],
  nested: { items: [{ name: "a.txt" }, { name: "b.env" }] },
  "dotted.key": "x",
  numeric: "42",
};

function holds(spec: ConditionSpec): boolean {
  return compileCondition(spec)(args);
}

describe("condition ops", () => {
  it.each<[ConditionSpec, boolean]>([
    [{ path: "owner", op: "Equals", value: "acme" }, true],
    [{ path: "owner", op: "Equals", value: "ACME" }, false],
    [{ path: "count", op: "Equals", value: 3 }, true],
    [{ path: "count", op: "Equals", value: "3" }, true],
    [{ path: "numeric", op: "Equals", value: 42 }, true],
    [{ path: "flag", op: "Equals", value: "true" }, true],
    [{ path: "flag", op: "Equals", value: "false" }, false],
    [{ path: "owner", op: "NotEquals", value: "acme" }, false],
    [{ path: "missing", op: "NotEquals", value: "acme" }, true],
    [{ path: "missing", op: "Equals", value: "acme" }, false],
    [{ path: "owner", op: "In", values: ["x", "acme"] }, true],
    [{ path: "count", op: "In", values: [1, 3] }, true],
    [{ path: "owner", op: "NotIn", values: ["x"] }, true],
    [{ path: "missing", op: "NotIn", values: ["x"] }, true],
    [{ path: "labels", op: "Contains", value: "bug" }, true],
    [{ path: "labels", op: "Contains", value: "bu" }, false],
    [{ path: "owner", op: "Contains", value: "cm" }, true],
    [{ path: "labels", op: "NotContains", value: "p2" }, true],
    [{ path: "owner", op: "StartsWith", value: "ac" }, true],
    [{ path: "owner", op: "NotStartsWith", value: "ac" }, false],
    [{ path: "nested.items[1].name", op: "EndsWith", value: ".env" }, true],
    [{ path: "nested.items[0].name", op: "Matches", value: "^[a-z]\\.txt$" }, true],
    [{ path: "nested.items[0].name", op: "NotMatches", value: "env" }, true],
    [{ path: "nested.items[5].name", op: "Exists" }, false],
    [{ path: "nested.items[1]", op: "Exists" }, true],
    [{ path: "missing.deep", op: "NotExists" }, true],
    [{ path: '["dotted.key"]', op: "Equals", value: "x" }, true],
    [{ path: "nested", op: "Contains", value: "b.env" }, true],
    [{ path: "owner[0]", op: "Exists" }, false],
  ])("%j → %s", (spec, expected) => {
    expect(holds(spec)).toBe(expected);
  });

  it("rejects malformed paths with the position", () => {
    expect(() => parsePath("a..b")).toThrow(/empty segment/);
    expect(() => parsePath("a.")).toThrow(/ends with/);
    expect(() => parsePath("a[x]")).toThrow(/invalid path/);
    expect(parsePath('a.b[2]["c.d"]')).toEqual(["a", "b", 2, "c.d"]);
  });

  it("never reads inherited properties", () => {
    expect(compileCondition({ path: "constructor", op: "Exists" })({})).toBe(false);
  });
});
