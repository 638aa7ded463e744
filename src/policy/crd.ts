import { readFileSync } from "node:fs";
import { parse } from "yaml";

/** A node of a Kubernetes structural schema (the openAPIV3Schema subset the CRD uses). */
export interface SchemaNode {
  type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  description?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-validations"?: { rule: string; message?: string }[];
  "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  "x-kubernetes-list-map-keys"?: string[];
}

export const crdPath = new URL("../../crds/toolwall.io_mcppolicies.yaml", import.meta.url);
export const policyApiVersion = "toolwall.io/v1alpha1";
export const policyKind = "MCPPolicy";

let cached: SchemaNode | undefined;

/** The MCPPolicy openAPIV3Schema, read from the CRD file: the one definition of the policy shape. */
export function policySchema(): SchemaNode {
  if (!cached) {
    const crd = parse(readFileSync(crdPath, "utf8"), { merge: true });
    cached = crd.spec.versions[0].schema.openAPIV3Schema as SchemaNode;
  }
  return cached;
}

/** The schema of `spec`. */
export function specSchema(): SchemaNode {
  return policySchema().properties!.spec!;
}
