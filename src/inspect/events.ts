import type { FieldChange } from "./pinning.ts";
import { type Finding, type InspectionResult, type Severity, severityRank } from "./types.ts";

/**
 * Payload builders for the audit events inspection and pinning produce. The caller (the MCP or an
 * LLM dialect) supplies the common fields (timestamp, namespace, pod, session, requestId, dialect,
 * mode, server, tool) in `context`; these functions add what is specific to the event.
 */
export interface ToolEventContext {
  server: string;
  tool: string;
  [field: string]: unknown;
}

export type ToolSeenStatus = "new" | "unchanged" | "changed";

const MAX_FINDINGS_IN_EVENT = 20;

/** new: no pin yet; unchanged: the pin matches; changed: a pin exists with another hash. */
export function toolSeenStatus(pinnedHash: string | undefined, hash: string): ToolSeenStatus {
  if (pinnedHash === undefined) return "new";
  return pinnedHash === hash ? "unchanged" : "changed";
}

export function toolSeenEvent(
  context: ToolEventContext,
  seen: { status: ToolSeenStatus; result: InspectionResult; pinnedHash?: string },
) {
  return {
    type: "mcp_tool_seen" as const,
    ...context,
    status: seen.status,
    toolHash: seen.result.hash,
    ...(seen.pinnedHash !== undefined && seen.status === "changed" ? { previousHash: seen.pinnedHash } : {}),
    findings: seen.result.findings.length,
    maxSeverity: seen.result.maxSeverity ?? null,
    action: seen.result.action === "none" ? "allow" : seen.result.action,
  };
}

function describe(finding: Finding): string {
  return `${finding.rule} (${finding.severity}) in ${finding.field}: ${finding.match}`;
}

/**
 * `mcp_detection` for a tool whose findings reached the threshold; undefined when none did.
 * `action` is block when policy says Block (and mode is not Audit, which the caller decides).
 */
export function detectionEvent(context: ToolEventContext, result: InspectionResult, threshold: Severity) {
  const reported = result.findings.filter((f) => severityRank[f.severity] >= severityRank[threshold]);
  const top = reported[0];
  if (!top || result.action === "none") return undefined;
  return {
    type: "mcp_detection" as const,
    ...context,
    action: result.action,
    reason: `tool definition matched ${describe(top)}`,
    rule: context.rule ?? "spec.inspection",
    toolHash: result.hash,
    severity: top.severity,
    findings: reported.slice(0, MAX_FINDINGS_IN_EVENT),
  };
}

/** `mcp_tool_changed` for a definition whose hash differs from its pin, with the field-level diff. */
export function toolChangedEvent(
  context: ToolEventContext,
  change: { previousHash: string; hash: string; changes: FieldChange[]; onChange: "Block" | "Alert" },
) {
  const fields = change.changes.map((c) => c.field);
  return {
    type: "mcp_tool_changed" as const,
    ...context,
    action: change.onChange === "Block" ? ("block" as const) : ("alert" as const),
    reason: `tool definition changed since it was pinned (${fields.slice(0, 5).join(", ")}${fields.length > 5 ? ", …" : ""})`,
    rule: context.rule ?? "spec.pinning",
    previousHash: change.previousHash,
    toolHash: change.hash,
    changes: change.changes,
  };
}

/** Prometheus metric definitions (prom-client `Counter` options); label values are bounded enums. */
export const INSPECTION_METRICS = {
  detections: {
    name: "toolwall_detections_total",
    help: "Tool-definition inspection findings at or above the policy threshold.",
    labelNames: ["category", "severity", "action"] as const,
  },
  definitionChanges: {
    name: "toolwall_tool_definition_changes_total",
    help: "Tool definitions whose hash differed from their pin.",
    labelNames: ["action"] as const,
  },
};

/** The part of a prom-client Counter these helpers use. */
export interface CounterLike {
  inc(labels: Record<string, string>, value?: number): void;
}

export function countDetections(counter: CounterLike, result: InspectionResult, threshold: Severity): void {
  if (result.action === "none") return;
  for (const finding of result.findings) {
    if (severityRank[finding.severity] < severityRank[threshold]) continue;
    counter.inc({ category: finding.category, severity: finding.severity, action: result.action });
  }
}

export function countDefinitionChange(counter: CounterLike, onChange: "Block" | "Alert"): void {
  counter.inc({ action: onChange === "Block" ? "block" : "alert" });
}
