import { Counter, Gauge, Histogram, register } from "prom-client";

/**
 * The metrics of ARCHITECTURE.md, on prom-client's default registry (served by every admin
 * endpoint). Label values must stay bounded: names from traffic go through `boundedLabel`.
 */
export const metricsRegistry = register;

const latencyBuckets = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5,
];

export const toolCalls = new Counter({
  name: "toolwall_tool_calls_total",
  help: "Tool calls decided, by dialect, action, enforcement mode, server and tool.",
  labelNames: ["dialect", "action", "mode", "server", "tool"] as const,
});

export const decisionDuration = new Histogram({
  name: "toolwall_decision_duration_seconds",
  help: "Time to decide one tool call, state-store round trip included.",
  labelNames: ["dialect"] as const,
  buckets: latencyBuckets,
});

export const upstreamDuration = new Histogram({
  name: "toolwall_upstream_duration_seconds",
  help: "Time from sending a request upstream to its response headers.",
  labelNames: ["dialect"] as const,
  buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
});

export const detections = new Counter({
  name: "toolwall_detections_total",
  help: "Inspection findings on tool definitions, by category and severity.",
  labelNames: ["category", "severity"] as const,
});

export const judgeCalls = new Counter({
  name: "toolwall_judge_calls_total",
  help: "Model-judge calls to an LLM provider, by provider and outcome (verdict, error, timeout, unusable, budget).",
  labelNames: ["provider", "outcome"] as const,
});

export const judgeOutcomes = new Counter({
  name: "toolwall_judge_outcomes_total",
  help: "Model-judge outcomes for new definitions: malicious, benign, pending or failed.",
  labelNames: ["outcome"] as const,
});

export const sharedInspections = new Counter({
  name: "toolwall_inspection_shared_total",
  help: "Tool definitions new to this pod: findings taken from the state store (shared), run through the rules here (inspected), and store reads or writes that failed (store_error).",
  labelNames: ["outcome"] as const,
});

export const definitionChanges = new Counter({
  name: "toolwall_tool_definition_changes_total",
  help: "Tool definitions that no longer match their pin (rug pulls), by server.",
  labelNames: ["server"] as const,
});

export const bundleAge = new Gauge({
  name: "toolwall_policy_bundle_age_seconds",
  help: "Seconds since the policy bundle in force was last confirmed by the controller.",
});

export const stateStoreErrors = new Counter({
  name: "toolwall_state_store_errors_total",
  help: "State store operations that failed or timed out, by operation.",
  labelNames: ["operation"] as const,
});

export const connections = new Counter({
  name: "toolwall_connections_total",
  help: "Outbound connections seen by the sidecar, by egress verdict.",
  labelNames: ["verdict"] as const,
});

export const webhookAdmissions = new Counter({
  name: "toolwall_webhook_admissions_total",
  help: "Pod admissions handled by the webhook, by result.",
  labelNames: ["result"] as const,
});

export const responsesRefused = new Counter({
  name: "toolwall_llm_responses_refused_total",
  help: "LLM responses refused because they could carry a tool call the proxy did not fully understand or went past a bound, by dialect and rule.",
  labelNames: ["dialect", "rule"] as const,
});

const maxDistinctLabelValues = 500;
const seenLabelValues = new Map<string, Set<string>>();

/** Keeps label cardinality bounded: past 500 distinct values of a label, new ones report as "_other". */
export function boundedLabel(label: string, value: string | undefined): string {
  const normalised = (value ?? "").toLowerCase();
  let seen = seenLabelValues.get(label);
  if (!seen) {
    seen = new Set();
    seenLabelValues.set(label, seen);
  }
  if (seen.has(normalised)) return normalised;
  if (seen.size >= maxDistinctLabelValues) return "_other";
  seen.add(normalised);
  return normalised;
}
