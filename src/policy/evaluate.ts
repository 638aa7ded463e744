import { type CompiledPolicy, compilePolicy } from "./compile.ts";
import type { Preview, RuleMatch } from "./rules.ts";
import { selectorMatches } from "./selector.ts";
import { type DeclaredServer, declaredServers } from "./servers.ts";
import {
  type CallFacts,
  type Decision,
  emptyRegistry,
  type PolicyDocument,
  severityRank,
  type ToolCall,
  type ToolRegistry,
} from "./types.ts";

/** A call after name resolution: `server` undefined means a native tool of the agent. */
export interface ResolvedCall {
  server: string | undefined;
  tool: string;
  /** The name as the model or client wrote it (e.g. `mcp__github__create_issue`). */
  name: string;
}

interface Verdict {
  action: "allow" | "deny";
  reason: string;
  path: string;
}

const mcpPrefix = "mcp__";

/** `mcp__<server>__<tool>` (Claude Code's convention), else the registry, else native. */
export function resolveCall(call: ToolCall, registry: ToolRegistry = emptyRegistry): ResolvedCall {
  if (call.server !== undefined) return { server: call.server, tool: call.tool, name: call.tool };
  if (
    call.tool.length > mcpPrefix.length &&
    call.tool.slice(0, mcpPrefix.length).toLowerCase() === mcpPrefix
  ) {
    const rest = call.tool.slice(mcpPrefix.length);
    const split = rest.indexOf("__");
    if (split > 0 && split < rest.length - 2) {
      return { server: rest.slice(0, split), tool: rest.slice(split + 2), name: call.tool };
    }
  }
  return { server: registry.serverOf(call.tool), tool: call.tool, name: call.tool };
}

function ruleVerdict(match: RuleMatch, subject: string): Verdict {
  const { path } = match;
  const action = match.action === "Deny" ? "deny" : "allow";
  const reason =
    match.reason ??
    (match.index < 0 ? `${subject} ${action}ed by default` : `${subject} ${action}ed by ${path}`);
  return { action, reason, path };
}

function decideInPolicy(
  policy: CompiledPolicy,
  call: ResolvedCall,
  args: unknown,
  facts: CallFacts,
): Verdict {
  const { spec } = policy;
  if (call.server !== undefined) {
    if (spec.failClosed && !policy.declaredServers.has(call.server.toLowerCase())) {
      return {
        action: "deny",
        reason: `MCP server '${call.server}' is not declared (failClosed)`,
        path: "failClosed",
      };
    }
    const server = ruleVerdict(policy.serverRules.decide(undefined, call.server), `server '${call.server}'`);
    if (server.action === "deny") return server;
  }
  if (
    facts.offeredTools &&
    spec.llm.requireDeclaredTools &&
    !facts.offeredTools.has(call.name.toLowerCase())
  ) {
    return {
      action: "deny",
      reason: `tool '${call.name}' was not offered in the request`,
      path: "llm.requireDeclaredTools",
    };
  }
  const tool = ruleVerdict(policy.toolRules.decide(call.server, call.tool, args), `tool '${call.tool}'`);
  if (tool.action === "deny") return tool;
  if (facts.definitionChanged && spec.pinning.enabled && spec.pinning.onChange === "Block") {
    return {
      action: "deny",
      reason: `definition of '${call.tool}' changed since it was pinned`,
      path: "pinning.onChange",
    };
  }
  const { inspection } = spec;
  if (
    facts.findingSeverity &&
    inspection.enabled &&
    inspection.action === "Block" &&
    severityRank[facts.findingSeverity] >= severityRank[inspection.threshold]
  ) {
    return {
      action: "deny",
      reason: `definition of '${call.tool}' failed inspection (${facts.findingSeverity})`,
      path: "inspection",
    };
  }
  return tool;
}

function previewInPolicy(policy: CompiledPolicy, server: string | undefined, tool: string): Preview {
  if (server !== undefined) {
    if (policy.spec.failClosed && !policy.declaredServers.has(server.toLowerCase())) return "deny";
    if (policy.serverRules.decide(undefined, server).action === "Deny") return "deny";
  }
  return policy.toolRules.preview(server, tool);
}

/**
 * The one Enforce/Audit merge, for tool, resource and prompt decisions and for egress verdicts: the
 * first deny of an enforcing policy wins (the rest are not evaluated); otherwise an Audit-mode deny
 * is reported (recorded, not enforced) beside what the others allow.
 */
export function mergeByMode<P, D extends { mode: "Enforce" | "Audit" }>(
  policies: readonly P[],
  decide: (policy: P) => D,
  denies: (decision: D) => boolean,
): { enforcedDeny?: D; auditDeny?: D; allowed: D[] } {
  let auditDeny: D | undefined;
  const allowed: D[] = [];
  for (const policy of policies) {
    const decision = decide(policy);
    if (!denies(decision)) allowed.push(decision);
    else if (decision.mode === "Enforce") return { enforcedDeny: decision, allowed };
    else auditDeny ??= decision;
  }
  return auditDeny ? { auditDeny, allowed } : { allowed };
}

/**
 * The policies that apply to one pod, compiled. Deny wins across policies; an Audit-mode policy's
 * deny is reported (mode Audit) but only when no enforcing policy denies.
 */
export class PolicySet {
  readonly policies: readonly CompiledPolicy[];
  readonly #byId: Map<string, CompiledPolicy>;
  #stripping: PolicySet | undefined;
  #servers: ReadonlyMap<string, DeclaredServer> | undefined;

  constructor(policies: readonly CompiledPolicy[]) {
    this.policies = [...policies].sort((a, b) => a.id.localeCompare(b.id));
    this.#byId = new Map(this.policies.map((p) => [p.id, p]));
  }

  static fromDocuments(docs: readonly PolicyDocument[]): PolicySet {
    return new PolicySet(docs.map(compilePolicy));
  }

  /** The subset that selects a pod (its namespace and labels). */
  forPod(namespace: string, labels: Readonly<Record<string, string>>): PolicySet {
    return new PolicySet(
      this.policies.filter(
        (p) => p.doc.namespace === namespace && selectorMatches(p.spec.podSelector, labels),
      ),
    );
  }

  /** The MCP servers the policies declare, by lower-case name (policy/servers.ts), built once per set. */
  get servers(): ReadonlyMap<string, DeclaredServer> {
    this.#servers ??= declaredServers(this);
    return this.#servers;
  }

  /** The policies that ask for denied tools to be stripped from LLM requests (`llm.stripDeniedTools`), built once per set. */
  get stripping(): PolicySet {
    this.#stripping ??= new PolicySet(this.policies.filter((p) => p.spec.llm.stripDeniedTools));
    return this.#stripping;
  }

  policyOf(decision: Decision): CompiledPolicy | undefined {
    return this.#byId.get(decision.rule.slice(0, decision.rule.indexOf("#")));
  }

  #combine(verdictOf: (policy: CompiledPolicy) => Verdict): Decision {
    if (this.policies.length === 0)
      return { action: "allow", reason: "no policy applies", rule: "", mode: "Enforce" };
    const merged = mergeByMode(
      this.policies,
      (policy): Decision => {
        const verdict = verdictOf(policy);
        return {
          action: verdict.action,
          reason: verdict.reason,
          rule: `${policy.id}#${verdict.path}`,
          mode: policy.spec.mode,
        };
      },
      (decision) => decision.action === "deny",
    );
    return (
      merged.enforcedDeny ??
      merged.auditDeny ??
      merged.allowed.find((decision) => decision.mode === "Enforce") ??
      merged.allowed[0]!
    );
  }

  /** Decides one tool call. Pure: stateful checks (cross-server, rate limits) wrap it in the data plane. */
  evaluate(call: ToolCall, facts: CallFacts = {}, registry: ToolRegistry = emptyRegistry): Decision {
    const resolved = resolveCall(call, registry);
    return this.#combine((policy) => decideInPolicy(policy, resolved, call.arguments, facts));
  }

  /**
   * The decision for a name before its arguments are known: "deny"/"allow" are final (no rule of an
   * enforcing policy looks at arguments), "conditional" means the arguments are needed.
   */
  preview(call: ToolCall, registry: ToolRegistry = emptyRegistry): Preview {
    const resolved = resolveCall(call, registry);
    let result: Preview = "allow";
    for (const policy of this.policies) {
      if (policy.spec.mode !== "Enforce") continue;
      const preview = previewInPolicy(policy, resolved.server, resolved.tool);
      if (preview === "deny") return "deny";
      if (preview === "conditional") result = "conditional";
    }
    return result;
  }

  evaluateResource(server: string, uri: string): Decision {
    return this.#combine((policy) => {
      const server_ = ruleVerdict(policy.serverRules.decide(undefined, server), `server '${server}'`);
      if (server_.action === "deny") return server_;
      return ruleVerdict(policy.resourceRules.decide(server, uri), `resource '${uri}'`);
    });
  }

  evaluatePrompt(server: string, prompt: string): Decision {
    return this.#combine((policy) => {
      const server_ = ruleVerdict(policy.serverRules.decide(undefined, server), `server '${server}'`);
      if (server_.action === "deny") return server_;
      return ruleVerdict(policy.promptRules.decide(server, prompt), `prompt '${prompt}'`);
    });
  }

  /** The text put in place of a blocked call, from the deciding policy's blockMessage. */
  blockMessage(decision: Decision, call: { tool: string; server?: string | undefined }): string {
    const template =
      this.policyOf(decision)?.spec.blockMessage ?? "Tool '{tool}' was blocked by policy: {reason}";
    const fields: Record<string, string> = {
      tool: call.tool,
      server: call.server ?? "",
      reason: decision.reason,
      rule: decision.rule,
    };
    return template.replace(/\{(tool|server|reason|rule)\}/g, (_, key: string) => fields[key]!);
  }
}
