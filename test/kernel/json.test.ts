import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonTokens, sameAsJsonTokens, sameJson } from "../../src/kernel/json.ts";

describe("JSON equality", () => {
  it("compares parsed JSON deeply, key order included", () => {
    expect(sameJson({ a: [1, { b: "x" }] }, { a: [1, { b: "x" }] })).toBe(true);
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(sameJson([1, 2], [1, 2, 3])).toBe(false);
    expect(sameJson({ a: null }, { a: {} })).toBe(false);
    expect(sameJson([], {})).toBe(false);
  });

  it("matches a value against the tokens of an earlier one as sameJson would", () => {
    const tokens = jsonTokens({ tools: [{ name: "a", inputSchema: { type: "object" } }] });
    expect(sameAsJsonTokens({ tools: [{ name: "a", inputSchema: { type: "object" } }] }, tokens)).toBe(true);
    expect(sameAsJsonTokens({ tools: [{ inputSchema: { type: "object" }, name: "a" }] }, tokens)).toBe(false);
    expect(sameAsJsonTokens({ tools: [{ name: "a", inputSchema: { type: "object" } }, {}] }, tokens)).toBe(
      false,
    );
    expect(sameAsJsonTokens({ tools: [{ name: "a", inputSchema: {} }] }, tokens)).toBe(false);
    expect(sameAsJsonTokens({ tools: [] }, tokens)).toBe(false);
    // A string that spells a structure mark is still a string.
    expect(sameAsJsonTokens(["object"], jsonTokens([{}]))).toBe(false);
  });

  it("agrees with sameJson on any two parsed JSON values (differential property)", () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    fc.assert(
      fc.property(json, json, (a, b) => {
        // Round-trip through JSON.parse as the proxy sees answers (own, ordered, plain members).
        const left = JSON.parse(JSON.stringify(a));
        const right = JSON.parse(JSON.stringify(b));
        expect(sameAsJsonTokens(right, jsonTokens(left))).toBe(sameJson(left, right));
        expect(sameAsJsonTokens(left, jsonTokens(left))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
