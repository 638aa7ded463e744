import { type CompiledInspection, compileInspection, inspectTool } from "../inspect/engine.ts";
import { detectionEvent } from "../inspect/events.ts";
import type { PolicySet } from "../policy/evaluate.ts";
import { type Severity, severityRank } from "../policy/types.ts";
import type { AuditSink } from "../telemetry/audit.ts";
import { detections } from "../telemetry/metrics.ts";
import type { SessionIdentity } from "./decide.ts";
import type { DefinitionInspector } from "./dialect.ts";

const compiled = new WeakMap<object, CompiledInspection>();
const maxRemembered = 10_000;

/**
 * Inspects the tool definitions an LLM request offers with each policy's inspection settings (the
 * engine of src/inspect). Gives the evaluator each tool's worst finding (`findingSeverity`), and
 * reports a flagged definition once per process as `mcp_detection`.
 */
export function policyInspector(
  policies: () => PolicySet,
  audit: AuditSink,
  identity: SessionIdentity,
): DefinitionInspector {
  const reported = new Set<string>();
  return {
    inspect(tools, context) {
      const worst = new Map<string, Severity>();
      for (const policy of policies().policies) {
        const settings = policy.spec.inspection;
        if (!settings.enabled) continue;
        let inspection = compiled.get(settings);
        if (!inspection) {
          inspection = compileInspection(settings);
          compiled.set(settings, inspection);
        }
        for (const tool of tools) {
          const result = inspectTool(tool, inspection);
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
