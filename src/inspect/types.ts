import type { JudgeSpec } from "./judge.ts";

/** The detector families `spec.inspection.detectors` can name (CRD enum). */
export const DETECTORS = [
  "CredentialTheft",
  "Exfiltration",
  "HiddenInstructions",
  "ShellInjection",
  "PathTraversal",
] as const;
export type DetectorName = (typeof DETECTORS)[number];

/** A finding's category: a detector family, or Custom for `spec.inspection.customPatterns`. */
export type Category = DetectorName | "Custom";

export const SEVERITIES = ["Low", "Medium", "High", "Critical"] as const;
export type Severity = (typeof SEVERITIES)[number];

export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

/** A tool definition as MCP `tools/list` returns it; LLM `tools[]` entries are mapped onto it. */
export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

export interface CustomPattern {
  name: string;
  /** RE2 syntax. */
  pattern: string;
  severity?: Severity;
}

/** `spec.inspection` of an MCPPolicy; every field optional, CRD defaults apply. */
export interface InspectionConfig {
  /** The optional model judge (src/inspect/judge.ts); the rules engine ignores it. */
  judge?: Partial<JudgeSpec>;
  enabled?: boolean;
  detectors?: readonly DetectorName[];
  customPatterns?: readonly CustomPattern[];
  threshold?: Severity;
  action?: "Alert" | "Block";
}

export interface Finding {
  /** Stable rule id, e.g. `credential.secret-file-read` or `custom.internal-api`. */
  rule: string;
  category: Category;
  severity: Severity;
  /** JSON path of the string inside the definition, e.g. `inputSchema.properties.path.description`. */
  field: string;
  /** The matched text with some context around it, after normalisation. */
  match: string;
}

export interface InspectionResult {
  /** Pinning hash of the definition (see pinning.ts). */
  hash: string;
  /** Sorted most severe first. */
  findings: Finding[];
  maxSeverity: Severity | undefined;
  /** True when a finding reaches the configured threshold. */
  flagged: boolean;
  /** What the policy says to do with the tool: `none` when not flagged. */
  action: "none" | "alert" | "block";
}
