import { compile, type JSONSchema } from "json-schema-to-typescript";
import { type SchemaNode, specSchema } from "./crd.ts";

/**
 * The TypeScript view of a spec after the loader applied the CRD's defaults: every property with a
 * default is required, so code reads `spec.toolPolicy.default` without guessing.
 */
function withDefaultsRequired(node: SchemaNode): JSONSchema {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith("x-kubernetes-") || key === "default" || key === "description") continue;
    out[key] = value;
  }
  if (node["x-kubernetes-int-or-string"]) out.tsType = "PolicyValue";
  if (node.properties) {
    const properties: Record<string, JSONSchema> = {};
    const required = new Set(node.required ?? []);
    for (const [name, child] of Object.entries(node.properties)) {
      properties[name] = withDefaultsRequired(child);
      if (child.default !== undefined) required.add(name);
    }
    out.properties = properties;
    out.required = [...required];
    out.additionalProperties = false;
  }
  if (node.additionalProperties && typeof node.additionalProperties === "object") {
    out.additionalProperties = withDefaultsRequired(node.additionalProperties);
  }
  if (node.items) out.items = withDefaultsRequired(node.items);
  return out as JSONSchema;
}

export async function renderSpecTypes(): Promise<string> {
  const schema = withDefaultsRequired(specSchema());
  const body = await compile({ ...schema, title: "MCPPolicySpec" }, "MCPPolicySpec", {
    bannerComment: "",
    additionalProperties: false,
    unreachableDefinitions: false,
    format: false,
    strictIndexSignatures: true,
  });
  return `// Generated from crds/toolwall.io_mcppolicies.yaml by scripts/gen-policy-types.ts. Do not edit.\n\n/** A condition value: the CRD allows a string or an integer (x-kubernetes-int-or-string). */\nexport type PolicyValue = string | number;\n\n${body}`;
}
