import type { MCPPolicySpec } from "./types.ts";

type LabelSelector = MCPPolicySpec["podSelector"];

/** Kubernetes LabelSelector semantics; `{}` selects every pod. */
export function selectorMatches(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const expression of selector.matchExpressions ?? []) {
    const present = Object.hasOwn(labels, expression.key);
    const value = labels[expression.key];
    switch (expression.operator) {
      case "In":
        if (!present || !expression.values?.includes(value!)) return false;
        break;
      case "NotIn":
        if (present && expression.values?.includes(value!)) return false;
        break;
      case "Exists":
        if (!present) return false;
        break;
      case "DoesNotExist":
        if (present) return false;
        break;
    }
  }
  return true;
}
