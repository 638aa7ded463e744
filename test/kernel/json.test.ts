import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, jsonTokens, sameAsJsonTokens, sameJson } from "../../src/kernel/json.ts";

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

/** Canonical JSON written out by hand: the reference canonicalJson's fast paths must agree with. */
function referenceCanonical(value: unknown): string {
  if (value === undefined || typeof value === "function") return "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(referenceCanonical).join(",")}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .sort()
    .filter((key) => record[key] !== undefined && typeof record[key] !== "function");
  return `{${members.map((key) => `${JSON.stringify(key)}:${referenceCanonical(record[key])}`).join(",")}}`;
}

/** The same value with every object's keys inserted in sorted order, as some generated schemas arrive. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, sortedKeys(record[key])]),
  );
}

describe("canonical JSON", () => {
  it("agrees with a hand-written canonical JSON, keys sorted or not, members undefined or not (differential property)", () => {
    const member = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(undefined));
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.dictionary(fc.string({ maxLength: 4 }), member),
      fc.array(fc.dictionary(fc.string({ maxLength: 4 }), member)),
    );
    fc.assert(
      fc.property(value, (generated) => {
        for (const candidate of [generated, sortedKeys(generated)]) {
          const before = JSON.stringify(candidate);
          expect(canonicalJson(candidate)).toBe(referenceCanonical(candidate));
          expect(JSON.stringify(candidate)).toBe(before);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("sorts keys at every level, drops undefined and function members, and writes index-like keys in order", () => {
    expect(canonicalJson({ type: "string", description: "x" })).toBe('{"description":"x","type":"string"}');
    expect(canonicalJson({ a: { c: 1, b: 2 }, d: [3, { f: 1, e: 0 }] })).toBe(
      '{"a":{"b":2,"c":1},"d":[3,{"e":0,"f":1}]}',
    );
    expect(canonicalJson({ a: 1, b: undefined, c: () => 0 })).toBe('{"a":1}');
    expect(canonicalJson({ a: new Date(0) })).toBe('{"a":{}}');
    expect(canonicalJson({ "10": 1, "9": 2, a: 3 })).toBe('{"10":1,"9":2,"a":3}');
  });
});
