import { type ConditionSpec, compileRegex, parsePath } from "./conditions.ts";
import { RuleIndex, type RuleIndex as RuleIndexType, type RuleSource } from "./rules.ts";
import type { MCPPolicySpec, PolicyDocument } from "./types.ts";
import type { Problem } from "./validate.ts";

/** One policy, compiled to indexes once; evaluation never re-reads the spec's rule lists. */
export interface CompiledPolicy {
  id: string;
  doc: PolicyDocument;
  spec: MCPPolicySpec;
  declaredServers: ReadonlySet<string>;
  serverRules: RuleIndexType;
  toolRules: RuleIndexType;
  resourceRules: RuleIndexType;
  promptRules: RuleIndexType;
}

export class PolicyCompileError extends Error {
  readonly problems: Problem[];
  constructor(problems: Problem[]) {
    super(problems.map((p) => `${p.path}: ${p.message}`).join("\n"));
    this.problems = problems;
  }
}

function conditionLists(spec: MCPPolicySpec): { path: string; condition: ConditionSpec }[] {
  const found: { path: string; condition: ConditionSpec }[] = [];
  (spec.toolPolicy.rules ?? []).forEach((rule, i) => {
    for (const list of ["all", "any"] as const) {
      (rule.when?.[list] ?? []).forEach((condition, j) => {
        found.push({ path: `spec.toolPolicy.rules[${i}].when.${list}[${j}]`, condition });
      });
    }
  });
  return found;
}

/** What the schema cannot say: paths parse, regexes are valid RE2. */
export function checkSpecSemantics(spec: MCPPolicySpec): Problem[] {
  const problems: Problem[] = [];
  for (const { path, condition } of conditionLists(spec)) {
    try {
      parsePath(condition.path);
    } catch (error) {
      problems.push({ path: `${path}.path`, message: (error as Error).message });
    }
    if (condition.op === "Matches" || condition.op === "NotMatches") {
      if (typeof condition.value !== "string") {
        problems.push({
          path: `${path}.value`,
          message: "Matches and NotMatches need a string regular expression",
        });
        continue;
      }
      try {
        compileRegex(condition.value);
      } catch (error) {
        problems.push({
          path: `${path}.value`,
          message: `invalid RE2 regular expression: ${(error as Error).message}`,
        });
      }
    }
  }
  const judge = spec.inspection.judge;
  if (judge?.enabled) {
    if (!judge.model)
      problems.push({ path: "spec.inspection.judge.model", message: "required when the judge is enabled" });
    const sources = [judge.apiKey?.env, judge.apiKey?.file, judge.apiKey?.secretKeyRef].filter(
      (v) => v !== undefined,
    );
    if (sources.length !== 1)
      problems.push({
        path: "spec.inspection.judge.apiKey",
        message: "give exactly one of env, file or secretKeyRef",
      });
    if (judge.endpoint !== undefined && !/^https?:\/\/[^\s/]+/.test(judge.endpoint))
      problems.push({
        path: "spec.inspection.judge.endpoint",
        message: `not an http(s) URL: '${judge.endpoint}'`,
      });
  }
  (spec.inspection.customPatterns ?? []).forEach((custom, i) => {
    try {
      compileRegex(custom.pattern);
    } catch (error) {
      problems.push({
        path: `spec.inspection.customPatterns[${i}].pattern`,
        message: `invalid RE2 regular expression: ${(error as Error).message}`,
      });
    }
  });
  return problems;
}

export function compilePolicy(doc: PolicyDocument): CompiledPolicy {
  const problems = checkSpecSemantics(doc.spec);
  if (problems.length > 0) throw new PolicyCompileError(problems);
  const { spec } = doc;
  const serverSources: RuleSource[] = (spec.serverPolicy.rules ?? []).map((r) => ({
    action: r.action,
    names: r.servers,
    ...(r.reason ? { reason: r.reason } : {}),
  }));
  const toolSources: RuleSource[] = (spec.toolPolicy.rules ?? []).map((r) => ({
    action: r.action,
    names: r.tools,
    ...(r.servers ? { servers: r.servers } : {}),
    ...(r.when ? { when: r.when as RuleSource["when"] } : {}),
    ...(r.reason ? { reason: r.reason } : {}),
  }));
  const resourceSources: RuleSource[] = (spec.resourcePolicy.rules ?? []).map((r) => ({
    action: r.action,
    names: r.uris,
    ...(r.servers ? { servers: r.servers } : {}),
    ...(r.reason ? { reason: r.reason } : {}),
  }));
  const promptSources: RuleSource[] = (spec.promptPolicy.rules ?? []).map((r) => ({
    action: r.action,
    names: r.prompts,
    ...(r.servers ? { servers: r.servers } : {}),
    ...(r.reason ? { reason: r.reason } : {}),
  }));
  return {
    id: `${doc.namespace}/${doc.name}`,
    doc,
    spec,
    declaredServers: new Set((spec.servers ?? []).map((s) => s.name.toLowerCase())),
    serverRules: new RuleIndex("serverPolicy", serverSources, spec.serverPolicy.default),
    toolRules: new RuleIndex("toolPolicy", toolSources, spec.toolPolicy.default),
    resourceRules: new RuleIndex("resourcePolicy", resourceSources, spec.resourcePolicy.default),
    promptRules: new RuleIndex("promptPolicy", promptSources, spec.promptPolicy.default),
  };
}
