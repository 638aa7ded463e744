import type { MCPPolicySpec } from "./spec.generated.ts";

export type { MCPPolicySpec } from "./spec.generated.ts";
export type Mode = MCPPolicySpec["mode"];
export type ToolRuleSpec = NonNullable<MCPPolicySpec["toolPolicy"]["rules"]>[number];
export type ServerRuleSpec = NonNullable<MCPPolicySpec["serverPolicy"]["rules"]>[number];
export type ResourceRuleSpec = NonNullable<MCPPolicySpec["resourcePolicy"]["rules"]>[number];
export type PromptRuleSpec = NonNullable<MCPPolicySpec["promptPolicy"]["rules"]>[number];
export type ServerSpec = NonNullable<MCPPolicySpec["servers"]>[number];
export type Severity = MCPPolicySpec["inspection"]["threshold"];

/** An MCPPolicy as loaded from a file or the API server, defaults applied. */
export interface PolicyDocument {
  namespace: string;
  name: string;
  spec: MCPPolicySpec;
}

export interface Decision {
  action: "allow" | "deny";
  reason: string;
  /** `<namespace>/<policy>#<path of the rule that decided>`, empty when no policy applies. */
  rule: string;
  /** The deciding policy's mode: an Audit-mode deny is recorded, not enforced. */
  mode: Mode;
}

/** True when the decision must stop the call. */
export function isBlocked(decision: Decision): boolean {
  return decision.action === "deny" && decision.mode === "Enforce";
}

/** What the call names; `server` absent means the evaluator resolves it (mcp__ prefix, registry, else native). */
export interface ToolCall {
  tool: string;
  server?: string;
  arguments?: unknown;
}

/** Facts the data plane gathered about the tool before asking (pins, inspection, the request's tools[]). */
export interface CallFacts {
  /** The tool's definition no longer matches its pin. */
  definitionChanged?: boolean;
  /** Highest severity of inspection findings on the tool's definition. */
  findingSeverity?: Severity;
  /** Tool names (lower case) the LLM request offered; set only for calls found in an LLM response. */
  offeredTools?: ReadonlySet<string>;
}

/** Maps a bare tool name to the MCP server that offered it (declarations and observed listings). */
export interface ToolRegistry {
  serverOf(tool: string): string | undefined;
}

export const emptyRegistry: ToolRegistry = { serverOf: () => undefined };

/** The CRD's severities, lowest first: the one list and the one rank (1 = Low) of the code base. */
export const SEVERITIES = ["Low", "Medium", "High", "Critical"] as const satisfies readonly Severity[];
export const severityRank: Readonly<Record<Severity, number>> = { Low: 1, Medium: 2, High: 3, Critical: 4 };
