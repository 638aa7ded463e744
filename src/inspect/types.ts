import type { MCPPolicySpec, Severity } from "../policy/types.ts";

type CrdInspection = MCPPolicySpec["inspection"];

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

export { SEVERITIES, type Severity, severityRank } from "../policy/types.ts";

/** A tool definition as MCP `tools/list` returns it; LLM `tools[]` entries are mapped onto it. */
export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

/** One `spec.inspection.customPatterns` entry (RE2 syntax); callers outside the loader may leave the severity out. */
export type CustomPattern = Omit<NonNullable<CrdInspection["customPatterns"]>[number], "severity"> & {
  severity?: Severity;
};

/**
 * `spec.inspection` as the CRD defines it, every field optional: callers outside the loader (scan,
 * tests) leave out what the CRD defaults. The rules engine ignores `judge` (src/inspect/judge.ts).
 */
export type InspectionConfig = {
  [Field in Exclude<keyof CrdInspection, "judge" | "detectors" | "customPatterns">]?: CrdInspection[Field];
} & {
  judge?: Partial<CrdInspection["judge"]>;
  detectors?: readonly DetectorName[];
  customPatterns?: readonly CustomPattern[];
};

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
