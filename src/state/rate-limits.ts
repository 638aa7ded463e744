import type { JudgedKind } from "../engine/decide.ts";
import { anyGlobMatcher } from "../policy/glob.ts";
import type { MCPPolicySpec } from "../policy/types.ts";
import type { RateLimitCharge } from "./types.ts";

type CrdRateLimit = NonNullable<MCPPolicySpec["rateLimits"]>[number];

/**
 * One `spec.rateLimits` entry, the CRD's shape with the loader's defaults optional. `servers`
 * omitted: any tool, native or MCP; "*": any MCP server. `tools` omitted: any tool.
 */
export type RateLimitSpec = Omit<CrdRateLimit, "tools" | "burst" | "scope"> &
  Partial<Pick<CrdRateLimit, "tools" | "burst" | "scope">>;

export interface CompiledRateLimit {
  /** `<namespace>/<policy>#rateLimits[i]`: the decision's `rule`. */
  rule: string;
  name: string;
  perMinute: number;
  burst: number;
  scope: "Pod" | "Namespace";
  /**
   * `server` undefined: a native tool of the agent. An MCP `resources/read` or `prompts/get` (`kind`)
   * spends from a limit that covers every tool (`tools` omitted or holding "*") of its server: a
   * limit naming tools counts those tool calls only.
   */
  matches(server: string | undefined, tool: string, kind?: JudgedKind): boolean;
}

export function compileRateLimits(
  policyRef: string,
  specs: readonly RateLimitSpec[] = [],
): CompiledRateLimit[] {
  return specs.map((spec, i) => {
    const rule = `${policyRef}#rateLimits[${i}]`;
    if (!Number.isInteger(spec.perMinute) || spec.perMinute < 1) {
      throw new Error(`${rule}: perMinute must be a positive integer, got ${spec.perMinute}`);
    }
    const burst = spec.burst ?? 1;
    if (!Number.isInteger(burst) || burst < 1)
      throw new Error(`${rule}: burst must be a positive integer, got ${burst}`);
    const scope = spec.scope ?? "Pod";
    if (scope !== "Pod" && scope !== "Namespace")
      throw new Error(`${rule}: scope must be Pod or Namespace, got ${scope}`);
    const server = spec.servers ? anyGlobMatcher(spec.servers) : undefined;
    const tool = anyGlobMatcher(spec.tools ?? ["*"]);
    const everyTool = (spec.tools ?? ["*"]).includes("*");
    return {
      rule,
      name: spec.name ?? rule.slice(rule.indexOf("/") + 1),
      perMinute: spec.perMinute,
      burst,
      scope,
      matches: (callServer, callTool, kind = "tool") =>
        (server === undefined || (callServer !== undefined && server(callServer))) &&
        (kind === "tool" ? tool(callTool) : everyTool),
    };
  });
}

/** The bucket a call spends from: one per limit, per pod or shared by the namespace. */
export function chargeFor(limit: CompiledRateLimit, pod: string, enforce: boolean): RateLimitCharge {
  const scopeKey = limit.scope === "Pod" ? `pod:${pod}` : "namespace";
  return {
    key: `${limit.rule}:${scopeKey}`,
    name: limit.name,
    perMinute: limit.perMinute,
    burst: limit.burst,
    enforce,
  };
}
