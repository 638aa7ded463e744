import { parseDuration } from "../kernel/duration.ts";
import type { MCPPolicySpec } from "../policy/types.ts";
import { type Classifier, compileClassifier } from "./classifier.ts";
import type { CallRecord, SessionState, ShadowedTool, ToolCategory } from "./types.ts";

type CrdCrossServer = MCPPolicySpec["crossServer"];

/**
 * `spec.crossServer`, the CRD's shape (src/policy/spec.generated.ts) with the fields the loader
 * defaults optional: they are filled in here too, for callers that do not go through the loader.
 */
export type CrossServerSpec = {
  [Rule in Exclude<keyof CrdCrossServer, "classifier">]?: Partial<NonNullable<CrdCrossServer[Rule]>>;
} & Pick<CrdCrossServer, "classifier">;

export interface CrossServerConfig {
  readThenSend: { enabled: boolean; windowMs: number };
  burst: { enabled: boolean; maxCalls: number; windowMs: number };
  crossServerFlow: { enabled: boolean; sameTurnOnly: boolean; windowMs: number };
  shadowTool: { enabled: boolean };
  classify: Classifier;
  /** How much window the enabled rules look at; 0 when none needs one. */
  retentionMs: number;
}

export type CrossServerRule = "readThenSend" | "burst" | "crossServerFlow" | "shadowTool";

export interface CrossServerFinding {
  rule: CrossServerRule;
  severity: "critical" | "high";
  reason: string;
  /** The earlier calls that made the rule fire, newest first (at most `maxRelated`). */
  related: CallRecord[];
}

export interface PendingCall {
  at: number;
  server: string;
  tool: string;
  requestId: string;
  category: ToolCategory;
}

const maxRelated = 20;

export function compileCrossServer(spec: CrossServerSpec = {}): CrossServerConfig {
  const readThenSend = {
    enabled: spec.readThenSend?.enabled ?? false,
    windowMs: parseDuration(spec.readThenSend?.window ?? "30s"),
  };
  const burst = {
    enabled: spec.burst?.enabled ?? false,
    maxCalls: spec.burst?.maxCalls ?? 10,
    windowMs: parseDuration(spec.burst?.window ?? "5s"),
  };
  if (!Number.isInteger(burst.maxCalls) || burst.maxCalls < 1) {
    throw new Error(`crossServer.burst.maxCalls must be a positive integer, got ${burst.maxCalls}`);
  }
  const crossServerFlow = {
    enabled: spec.crossServerFlow?.enabled ?? false,
    sameTurnOnly: spec.crossServerFlow?.sameTurnOnly ?? true,
    windowMs: parseDuration(spec.crossServerFlow?.window ?? "30s"),
  };
  const retentionMs = Math.max(
    0,
    ...[readThenSend, burst, crossServerFlow].filter((r) => r.enabled).map((r) => r.windowMs),
  );
  return {
    readThenSend,
    burst,
    crossServerFlow,
    shadowTool: { enabled: spec.shadowTool?.enabled ?? false },
    classify: compileClassifier(spec.classifier),
    retentionMs,
  };
}

export function usesCrossServerRules(config: CrossServerConfig): boolean {
  return config.retentionMs > 0 || config.shadowTool.enabled;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10}s`;
}

/**
 * The cross-server rules over a session's window, for a call about to be made. Pure: the window is
 * the caller's (oldest first); the first rule that fires is returned, the most severe rules first.
 * One backward pass over the window serves every rule.
 */
export function evaluateCrossServer(
  config: CrossServerConfig,
  state: SessionState,
  call: PendingCall,
): CrossServerFinding | undefined {
  if (config.shadowTool.enabled) {
    const shadow = findShadow(state.shadows, call.tool);
    if (shadow) {
      return {
        rule: "shadowTool",
        severity: "critical",
        reason: `Tool '${call.tool}' was shadowed: originally from '${shadow.originalServer}', now served by '${shadow.currentServer}'`,
        related: [],
      };
    }
  }
  const checkReadThenSend = config.readThenSend.enabled && call.category === "send";
  const checkFlow = config.crossServerFlow.enabled && (call.category === "write" || call.category === "send");
  const sameTurnOnly = config.crossServerFlow.sameTurnOnly;
  const checkBurst = config.burst.enabled;
  if (!checkReadThenSend && !checkFlow && !checkBurst) return undefined;

  const readThenSendCutoff = checkReadThenSend ? call.at - config.readThenSend.windowMs : Infinity;
  const flowCutoff = checkFlow ? call.at - config.crossServerFlow.windowMs : Infinity;
  const burstCutoff = checkBurst ? call.at - config.burst.windowMs : Infinity;
  const cutoff = Math.min(readThenSendCutoff, flowCutoff, burstCutoff);
  const reads: CallRecord[] = [];
  const flowReads: CallRecord[] = [];
  const burstRelated: CallRecord[] = [];
  let burstCount = 0;
  const window = state.window;
  for (let i = window.length - 1; i >= 0; i--) {
    const record = window[i]!;
    if (record.at < cutoff) break;
    if (record.server === call.server) {
      if (record.at >= burstCutoff) {
        burstCount++;
        if (burstCount <= maxRelated) burstRelated.push(record);
      }
      continue;
    }
    if (record.category !== "read" || record.action !== "allow") continue;
    if (record.at >= readThenSendCutoff && reads.length < maxRelated) reads.push(record);
    if (
      record.at >= flowCutoff &&
      flowReads.length < maxRelated &&
      (!sameTurnOnly || (call.requestId !== "" && record.requestId === call.requestId))
    ) {
      flowReads.push(record);
    }
  }
  if (reads.length > 0) {
    const read = reads[0]!;
    return {
      rule: "readThenSend",
      severity: "critical",
      reason: `Server '${call.server}' attempted send after '${read.server}' read data ${seconds(call.at - read.at)} ago`,
      related: reads,
    };
  }
  if (flowReads.length > 0) {
    return {
      rule: "crossServerFlow",
      severity: "high",
      reason: `Cross-server data flow: '${flowReads[0]!.server}' read → '${call.server}' ${call.category}${sameTurnOnly ? " in the same turn" : ""}`,
      related: flowReads,
    };
  }
  if (checkBurst && burstCount >= config.burst.maxCalls) {
    return {
      rule: "burst",
      severity: "high",
      reason: `Server '${call.server}' exceeded burst limit: ${config.burst.maxCalls} calls in ${seconds(config.burst.windowMs)}`,
      related: burstRelated,
    };
  }
  return undefined;
}

function findShadow(shadows: readonly ShadowedTool[], tool: string): ShadowedTool | undefined {
  if (shadows.length === 0) return undefined;
  const name = tool.toLowerCase();
  const bare = /^mcp__.+?__(.+)$/.exec(name)?.[1];
  return shadows.find((s) => s.tool === name || s.tool === bare);
}
