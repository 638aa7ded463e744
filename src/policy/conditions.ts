import { RE2JS } from "re2js";
import type { PolicyValue } from "./spec.generated.ts";
import type { ToolRuleSpec } from "./types.ts";

/**
 * `when` conditions over a tool call's arguments.
 *
 * Semantics (docs/policy.md): a path that does not resolve makes every positive op (Equals, In,
 * Contains, StartsWith, EndsWith, Matches) false and, since each Not-op is exactly the negation of
 * its positive op, every Not-op true; Exists/NotExists test presence. An integer value compares
 * numerically (a numeric string argument counts as its number); a string value matches a string
 * argument exactly (case-sensitive) and a number or boolean argument by its text ("true", "1.5"). Text ops on an object or array argument run on its JSON
 * text, so a Deny rule cannot be sidestepped by wrapping a string in an array.
 */
/** One entry of a rule's `when.all` / `when.any`, as the CRD defines it. */
export type ConditionSpec = NonNullable<NonNullable<ToolRuleSpec["when"]>["all"]>[number];
export type ConditionOp = ConditionSpec["op"];

export type Condition = (args: unknown) => boolean;

type PathStep = string | number;

/** `a.b[0].c` → ["a", "b", 0, "c"]; `a["x.y"]` addresses a key containing dots. */
export function parsePath(path: string): PathStep[] {
  const steps: PathStep[] = [];
  const pattern = /([^.[\]]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]|(\.)/gy;
  let expectKey = true;
  let index = 0;
  while (index < path.length) {
    pattern.lastIndex = index;
    const match = pattern.exec(path);
    if (!match) throw new Error(`invalid path '${path}' at character ${index + 1}`);
    if (match[1] !== undefined) {
      if (!expectKey) throw new Error(`invalid path '${path}': missing '.' before '${match[1]}'`);
      steps.push(match[1]);
      expectKey = false;
    } else if (match[2] !== undefined) {
      steps.push(Number(match[2]));
      expectKey = false;
    } else if (match[3] !== undefined) {
      steps.push(JSON.parse(`"${match[3]}"`) as string);
      expectKey = false;
    } else {
      if (expectKey) throw new Error(`invalid path '${path}': empty segment at character ${index + 1}`);
      expectKey = true;
    }
    index = pattern.lastIndex;
  }
  if (expectKey) throw new Error(`invalid path '${path}': ends with '.'`);
  return steps;
}

function resolve(args: unknown, steps: readonly PathStep[]): unknown {
  let current = args;
  for (const step of steps) {
    if (current === null || typeof current !== "object") return undefined;
    if (typeof step === "number") {
      if (!Array.isArray(current)) return undefined;
      current = current[step];
    } else {
      if (Array.isArray(current) || !Object.hasOwn(current, step)) return undefined;
      current = (current as Record<string, unknown>)[step];
    }
  }
  return current;
}

function asText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

export function valuesEqual(actual: unknown, expected: PolicyValue): boolean {
  if (typeof expected === "number") {
    if (typeof actual === "number") return actual === expected;
    return typeof actual === "string" && actual.trim() !== "" && Number(actual) === expected;
  }
  if (typeof actual === "string") return actual === expected;
  if (typeof actual === "number" || typeof actual === "boolean") return String(actual) === expected;
  return false;
}

function contains(actual: unknown, expected: PolicyValue): boolean {
  if (Array.isArray(actual)) return actual.some((item) => valuesEqual(item, expected));
  return asText(actual).includes(String(expected));
}

export function compileRegex(pattern: string): (text: string) => boolean {
  const regex = RE2JS.compile(pattern);
  return (text) => regex.test(text);
}

export function compileCondition(spec: ConditionSpec): Condition {
  const steps = parsePath(spec.path);
  const value = spec.value as PolicyValue;
  const positive = (test: (actual: unknown) => boolean): Condition => {
    return (args) => {
      const actual = resolve(args, steps);
      return actual !== undefined && test(actual);
    };
  };
  const negated =
    (test: Condition): Condition =>
    (args) =>
      !test(args);
  switch (spec.op) {
    case "Exists":
      return (args) => resolve(args, steps) !== undefined;
    case "NotExists":
      return (args) => resolve(args, steps) === undefined;
    case "Equals":
      return positive((actual) => valuesEqual(actual, value));
    case "NotEquals":
      return negated(positive((actual) => valuesEqual(actual, value)));
    case "In":
      return positive((actual) => spec.values!.some((v) => valuesEqual(actual, v)));
    case "NotIn":
      return negated(positive((actual) => spec.values!.some((v) => valuesEqual(actual, v))));
    case "Contains":
      return positive((actual) => contains(actual, value));
    case "NotContains":
      return negated(positive((actual) => contains(actual, value)));
    case "StartsWith":
      return positive((actual) => asText(actual).startsWith(String(value)));
    case "NotStartsWith":
      return negated(positive((actual) => asText(actual).startsWith(String(value))));
    case "EndsWith":
      return positive((actual) => asText(actual).endsWith(String(value)));
    case "Matches": {
      const matches = compileRegex(String(value));
      return positive((actual) => matches(asText(actual)));
    }
    case "NotMatches": {
      const matches = compileRegex(String(value));
      return negated(positive((actual) => matches(asText(actual))));
    }
  }
}
