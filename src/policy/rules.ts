import { type Condition, type ConditionSpec, compileCondition } from "./conditions.ts";
import { compileGlobs, type GlobMatcher, isLiteralGlob } from "./glob.ts";

/**
 * One mechanism for every rule list of a policy (server, tool, resource, prompt rules): an explicit
 * Deny that matches wins, else an explicit Allow that matches, else the default. Rules whose names are
 * literal are indexed by lower-cased name; only wildcard rules are tested one by one.
 */
export type Action = "Allow" | "Deny";

export interface RuleSource {
  action: Action;
  servers?: string[];
  names: string[];
  when?: { all?: ConditionSpec[]; any?: ConditionSpec[] };
  reason?: string;
}

/** Which servers a rule covers: omitted = anything (native tools too); "*" = any MCP server. */
type ServerScope = { kind: "any" } | { kind: "mcp"; match: GlobMatcher };

interface CompiledRule {
  index: number;
  /** What `decide` returns when this rule wins, built once. */
  match: RuleMatch;
  action: Action;
  scope: ServerScope;
  when?: Condition;
}

interface WildcardEntry {
  rule: CompiledRule;
  names: GlobMatcher;
}

export interface RuleMatch {
  action: Action;
  /** Rule index, or -1 for the default. */
  index: number;
  /** `<list>.rules[<index>]` or `<list>.default`. */
  path: string;
  reason?: string;
}

export type Preview = "allow" | "deny" | "conditional";

function compileWhen(when: NonNullable<RuleSource["when"]>): Condition {
  const all = (when.all ?? []).map(compileCondition);
  const any = (when.any ?? []).map(compileCondition);
  return (args) => all.every((c) => c(args)) && (any.length === 0 || any.some((c) => c(args)));
}

export class RuleIndex {
  readonly #byName = new Map<string, CompiledRule[]>();
  readonly #wildcards: WildcardEntry[] = [];
  readonly #default: RuleMatch;

  /** `list` names the rule list in decisions, e.g. "toolPolicy". */
  constructor(list: string, rules: readonly RuleSource[], defaultAction: Action) {
    this.#default = { action: defaultAction, index: -1, path: `${list}.default` };
    rules.forEach((source, index) => {
      const rule: CompiledRule = {
        index,
        match: {
          action: source.action,
          index,
          path: `${list}.rules[${index}]`,
          ...(source.reason ? { reason: source.reason } : {}),
        },
        action: source.action,
        scope: source.servers ? { kind: "mcp", match: compileGlobs(source.servers) } : { kind: "any" },
        ...(source.when ? { when: compileWhen(source.when) } : {}),
      };
      const wildcard = source.names.filter((name) => !isLiteralGlob(name));
      for (const name of source.names) {
        if (!isLiteralGlob(name)) continue;
        const key = name.toLowerCase();
        const list = this.#byName.get(key);
        if (list) list.push(rule);
        else this.#byName.set(key, [rule]);
      }
      if (wildcard.length > 0) this.#wildcards.push({ rule, names: compileGlobs(wildcard) });
    });
  }

  #forEachCandidate(server: string | undefined, name: string, visit: (rule: CompiledRule) => void): void {
    const lowerServer = server?.toLowerCase();
    const inScope = (rule: CompiledRule) =>
      rule.scope.kind === "any" || (lowerServer !== undefined && rule.scope.match(lowerServer));
    const lower = name.toLowerCase();
    for (const rule of this.#byName.get(lower) ?? []) if (inScope(rule)) visit(rule);
    for (const entry of this.#wildcards) if (inScope(entry.rule) && entry.names(lower)) visit(entry.rule);
  }

  /** The deciding rule for a name (and the call's arguments, for rules with conditions). */
  decide(server: string | undefined, name: string, args?: unknown): RuleMatch {
    let deny: CompiledRule | undefined;
    let allow: CompiledRule | undefined;
    this.#forEachCandidate(server, name, (rule) => {
      const best = rule.action === "Deny" ? deny : allow;
      if (best && best.index < rule.index) return;
      if (rule.when && !rule.when(args)) return;
      if (rule.action === "Deny") deny = rule;
      else allow = rule;
    });
    return (deny ?? allow)?.match ?? this.#default;
  }

  /** The outcome when the arguments are not known yet: certain, or depending on them. */
  preview(server: string | undefined, name: string): Preview {
    let unconditionalDeny = false;
    let conditionalDeny = false;
    let unconditionalAllow = false;
    let conditionalAllow = false;
    this.#forEachCandidate(server, name, (rule) => {
      if (rule.action === "Deny") {
        if (rule.when) conditionalDeny = true;
        else unconditionalDeny = true;
      } else if (rule.when) conditionalAllow = true;
      else unconditionalAllow = true;
    });
    if (unconditionalDeny) return "deny";
    if (conditionalDeny) return "conditional";
    if (unconditionalAllow) return "allow";
    if (this.#default.action === "Allow") return "allow";
    return conditionalAllow ? "conditional" : "deny";
  }
}
