import { type CompiledInspection, compileInspection, inspectTool } from "../inspect/engine.ts";
import { detectionEvent } from "../inspect/events.ts";
import type { VerdictStore } from "../inspect/judge.ts";
import { inspectWithStore } from "../inspect/shared.ts";
import type { InspectionResult, ToolDefinition } from "../inspect/types.ts";
import type { PolicySet } from "../policy/evaluate.ts";
import { type Severity, severityRank } from "../policy/types.ts";
import type { AuditSink } from "../telemetry/audit.ts";
import { detections, sharedInspections } from "../telemetry/metrics.ts";
import type { SessionIdentity } from "./decide.ts";
import type { DefinitionInspector } from "./dialect.ts";

const compiled = new WeakMap<object, CompiledInspection>();
const maxRemembered = 10_000;

/**
 * Each tool's result under one compiled config: from this process's cache, else (with a store) from
 * the findings other pods recorded (src/inspect/shared.ts), else inspected here; counted in
 * toolwall_inspection_shared_total. The MCP catalog and the LLM inspector both go through it.
 */
export async function inspectSharing(
  tools: readonly ToolDefinition[],
  inspection: CompiledInspection,
  findings: VerdictStore | undefined,
): Promise<InspectionResult[]> {
  if (!findings) return tools.map((tool) => inspectTool(tool, inspection));
  const shared = await inspectWithStore(tools, inspection, findings);
  if (shared.shared > 0) sharedInspections.inc({ outcome: "shared" }, shared.shared);
  if (shared.inspected > 0) sharedInspections.inc({ outcome: "inspected" }, shared.inspected);
  if (shared.storeFailed) sharedInspections.inc({ outcome: "store_error" });
  return shared.results;
}

/**
 * Inspects the tool definitions an LLM request offers with each policy's inspection settings (the
 * engine of src/inspect). Gives the evaluator each tool's worst finding (`findingSeverity`), and
 * reports a flagged definition once per process as `mcp_detection`. With `findings` (the state
 * store), a definition new to this pod takes the findings another pod recorded: a fresh sidecar's
 * first request does not run the rules over definitions the cluster has seen.
 */
export function policyInspector(
  policies: () => PolicySet,
  audit: AuditSink,
  identity: SessionIdentity,
  findings?: VerdictStore,
): DefinitionInspector {
  const reported = new Set<string>();
  return {
    async inspect(tools, context) {
      const worst = new Map<string, Severity>();
      for (const policy of policies().policies) {
        const settings = policy.spec.inspection;
        if (!settings.enabled) continue;
        let inspection = compiled.get(settings);
        if (!inspection) {
          inspection = compileInspection(settings);
          compiled.set(settings, inspection);
        }
        const results = await inspectSharing(tools, inspection, findings);
        for (const [index, tool] of tools.entries()) {
          const result = results[index]!;
          if (!result.maxSeverity) continue;
          const name = tool.name.toLowerCase();
          const previous = worst.get(name);
          if (!previous || severityRank[result.maxSeverity] > severityRank[previous]) {
            worst.set(name, result.maxSeverity);
          }
          const key = `${policy.id}\u0000${result.hash}`;
          if (!result.flagged || reported.has(key)) continue;
          if (reported.size >= maxRemembered) reported.clear();
          reported.add(key);
          for (const finding of result.findings) {
            if (severityRank[finding.severity] >= severityRank[settings.threshold]) {
              detections.inc({ category: finding.category, severity: finding.severity });
            }
          }
          const event = detectionEvent(
            {
              server: context.server ?? "",
              tool: tool.name,
              namespace: identity.namespace,
              pod: identity.pod,
              session: identity.session,
              requestId: context.requestId,
              dialect: context.dialect,
              mode: policy.spec.mode,
              rule: `${policy.id}#inspection`,
            },
            result,
            settings.threshold,
          );
          if (event) audit.emit({ ...event, rule: `${policy.id}#inspection` });
        }
      }
      return worst;
    },
  };
}
