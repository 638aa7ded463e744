import { celEnv, isCelError, parse as parseCel, plan } from "@bufbuild/cel";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { type SchemaNode, specSchema } from "./crd.ts";

/** One thing wrong with a document: where (a JSON path like `spec.toolPolicy.rules[0].op`) and why. */
export interface Problem {
  path: string;
  message: string;
}

type CelProgram = (ctx: { self: unknown }) => unknown;

/**
 * Kubernetes structural schema → JSON Schema for Ajv. Unknown fields are errors (as with kubectl's
 * strict field validation) rather than silently pruned, so a typo never turns a rule into nothing.
 */
function toJsonSchema(node: SchemaNode): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith("x-kubernetes-") || key === "format" || key === "description") continue;
    out[key] = value;
  }
  if (node.properties) {
    out.properties = Object.fromEntries(
      Object.entries(node.properties).map(([k, v]) => [k, toJsonSchema(v)]),
    );
    if (!node["x-kubernetes-preserve-unknown-fields"] && node.additionalProperties === undefined) {
      out.additionalProperties = false;
    }
  }
  if (node.additionalProperties && typeof node.additionalProperties === "object") {
    out.additionalProperties = toJsonSchema(node.additionalProperties);
  }
  if (node.items) out.items = toJsonSchema(node.items);
  if (node["x-kubernetes-list-type"] === "set") out.uniqueItems = true;
  if (node["x-kubernetes-int-or-string"]) out.anyOf = [{ type: "integer" }, { type: "string" }];
  return out;
}

/** CEL sees what the API server would: maps for objects, int for integer fields, double otherwise. */
function toCelValue(value: unknown, node: SchemaNode | undefined): unknown {
  if (Array.isArray(value)) return value.map((item) => toCelValue(item, node?.items));
  if (value !== null && typeof value === "object") {
    return new Map(
      Object.entries(value).map(([k, v]) => {
        const child =
          node?.properties?.[k] ??
          (typeof node?.additionalProperties === "object" ? node.additionalProperties : undefined);
        return [k, toCelValue(v, child)];
      }),
    );
  }
  if (typeof value === "number" && node?.type === "integer" && Number.isInteger(value)) return BigInt(value);
  return value;
}

function pathJoin(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  return base ? `${base}.${key}` : key;
}

function ajvPath(instancePath: string, base: string): string {
  let path = base;
  for (const part of instancePath.split("/").slice(1)) {
    const key = part.replaceAll("~1", "/").replaceAll("~0", "~");
    path = pathJoin(path, /^\d+$/.test(key) ? Number(key) : key);
  }
  return path;
}

function describeAjvError(error: ErrorObject, base: string): Problem {
  const path = ajvPath(error.instancePath, base);
  switch (error.keyword) {
    case "additionalProperties":
      return { path: pathJoin(path, error.params.additionalProperty as string), message: "unknown field" };
    case "required":
      return {
        path: pathJoin(path, error.params.missingProperty as string),
        message: "required field is missing",
      };
    case "enum":
      return {
        path,
        message: `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`,
      };
    default:
      return { path, message: error.message ?? error.keyword };
  }
}

export class SpecValidator {
  readonly #schema: SchemaNode;
  readonly #ajv: ValidateFunction;
  readonly #programs = new Map<string, CelProgram>();

  constructor(schema: SchemaNode = specSchema()) {
    this.#schema = schema;
    const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
    this.#ajv = ajv.compile(toJsonSchema(schema));
    this.#compileRules(schema);
  }

  #compileRules(node: SchemaNode): void {
    const env = celEnv({});
    for (const { rule } of node["x-kubernetes-validations"] ?? []) {
      if (!this.#programs.has(rule)) this.#programs.set(rule, plan(env, parseCel(rule)) as CelProgram);
    }
    for (const child of Object.values(node.properties ?? {})) this.#compileRules(child);
    if (node.items) this.#compileRules(node.items);
  }

  /** Validates `spec` in place, applying the CRD's defaults as the API server would. */
  validate(spec: unknown, base = "spec"): Problem[] {
    if (spec === null || typeof spec !== "object" || Array.isArray(spec)) {
      return [{ path: base, message: "must be an object" }];
    }
    if (!this.#ajv(spec)) {
      return (this.#ajv.errors ?? []).map((error) => describeAjvError(error, base));
    }
    const problems: Problem[] = [];
    this.#walk(spec, this.#schema, base, problems);
    return problems;
  }

  #walk(value: unknown, node: SchemaNode, path: string, problems: Problem[]): void {
    for (const { rule, message } of node["x-kubernetes-validations"] ?? []) {
      const result = this.#programs.get(rule)!({ self: toCelValue(value, node) });
      if (isCelError(result))
        problems.push({ path, message: `rule '${rule}' failed to evaluate: ${result.message}` });
      else if (result !== true) problems.push({ path, message: message ?? `failed rule: ${rule}` });
    }
    if (Array.isArray(value)) {
      const keys = node["x-kubernetes-list-map-keys"];
      if (node["x-kubernetes-list-type"] === "map" && keys) {
        const seen = new Map<string, number>();
        value.forEach((item, i) => {
          const key = JSON.stringify(keys.map((k) => (item as Record<string, unknown>)[k]));
          const first = seen.get(key);
          if (first !== undefined) {
            problems.push({
              path: pathJoin(path, i),
              message: `duplicate entry: ${keys.join(", ")} ${key} also at [${first}]`,
            });
          } else seen.set(key, i);
        });
      }
      if (node.items) {
        for (const [i, item] of value.entries()) this.#walk(item, node.items, pathJoin(path, i), problems);
      }
      return;
    }
    if (value !== null && typeof value === "object" && node.properties) {
      for (const [key, child] of Object.entries(value)) {
        const childNode = node.properties[key];
        if (childNode) this.#walk(child, childNode, pathJoin(path, key), problems);
      }
    }
  }
}
