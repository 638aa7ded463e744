import { inspectSharing } from "../../engine/inspection.ts";
import { compileInspection, inspectTool, withFindings } from "../../inspect/engine.ts";
import {
  failureFinding,
  JudgeConfigError,
  type JudgeSpec,
  judgeSettings,
  ModelJudge,
  outcomeFindings,
} from "../../inspect/judge.ts";
import { ListingNeighbours } from "../../inspect/listing.ts";
import { diffToolDefinitions } from "../../inspect/pinning.ts";
import type { Finding, InspectionResult, ToolDefinition } from "../../inspect/types.ts";
import { CappedMap } from "../../kernel/bounded-map.ts";
import type { CompiledPolicy } from "../../policy/compile.ts";
import type { PolicySet } from "../../policy/evaluate.ts";
import { type CallFacts, type Severity, severityRank } from "../../policy/types.ts";
import { pinKey } from "../../state/guard.ts";
import { MemoryStore } from "../../state/memory.ts";
import type { StateStore, VerdictStore } from "../../state/types.ts";
import type { AuditSink } from "../../telemetry/audit.ts";
import {
  boundedLabel,
  definitionChanges,
  detections,
  judgeCalls,
  judgeOutcomes,
} from "../../telemetry/metrics.ts";

export type PinStatus = "new" | "unchanged" | "changed";

/** What the catalog knows about one tool definition of one server. */
export interface ToolReview {
  name: string;
  hash: string;
  status: PinStatus;
  /** The definition does not match its pin (or has none while trust-on-first-use is off). */
  definitionChanged: boolean;
  findingSeverity: Severity | undefined;
  /** An enforcing policy hides the tool: inspection Block over threshold or a changed pin under onChange Block. */
  hidden: boolean;
  hiddenReason?: string;
}

interface Known {
  definition: ToolDefinition;
  review: ToolReview;
}

export interface CatalogContext {
  server: string;
  session?: string;
  requestId?: string;
}

type PinStore = Pick<StateStore, "pinIfAbsent"> & Partial<VerdictStore>;

/** Bounds on what the catalog remembers, however many names a server makes up. */
const maxToolsPerServer = 20_000;
const maxCachedPins = 100_000;

interface PinningConfig {
  set: PolicySet;
  inspecting: CompiledPolicy[];
  pinning: CompiledPolicy[];
  /** "server/tool" → hashes `spec.pinning.pins` accept. */
  staticPins: Map<string, Set<string>>;
  trustOnFirstUse: boolean;
}

/**
 * Tool definitions seen on MCP listings: inspected (src/inspect), pinned (state store: trust on
 * first use, or `spec.pinning.pins`), and remembered per server so `tools/call` decisions get their
 * facts without a round trip. A listing whose definitions did not change costs no store round trip.
 */
export class ToolCatalog {
  readonly #policies: () => PolicySet;
  readonly #store: PinStore;
  readonly #namespace: string;
  readonly #audit: AuditSink;
  #config: PinningConfig | undefined;
  /** Pins already confirmed with the store: key → pinned hash. */
  readonly #pins = new CappedMap<string, string>(maxCachedPins);
  /** server → lower-case tool name → latest reviewed definition. */
  readonly #known = new Map<string, Map<string, Known>>();
  /** Every server's tools, for judging a definition against its neighbours (shadowing, overlap). */
  readonly #neighbours = new ListingNeighbours();
  /** One model judge per `spec.inspection.judge` object (or the reason it cannot be set up). */
  readonly #judges = new WeakMap<object, ModelJudge | string>();
  readonly #verdicts: VerdictStore;

  constructor(options: {
    policies: () => PolicySet;
    store: PinStore;
    namespace: string;
    audit: AuditSink;
  }) {
    this.#policies = options.policies;
    this.#store = options.store;
    this.#namespace = options.namespace;
    this.#audit = options.audit;
    const { store } = options;
    this.#verdicts =
      store.getVerdicts && store.claimVerdict && store.putVerdict
        ? (store as VerdictStore)
        : new MemoryStore();
  }

  /** What the policies in force say about inspection and pinning, derived once per policy set. */
  #configuration(): PinningConfig {
    const set = this.#policies();
    if (this.#config?.set === set) return this.#config;
    const pinning = set.policies.filter((p) => p.spec.pinning.enabled);
    const staticPins = new Map<string, Set<string>>();
    for (const policy of pinning) {
      for (const pin of policy.spec.pinning.pins ?? []) {
        const key = pinKey(pin.server, pin.tool);
        const hashes = staticPins.get(key) ?? new Set<string>();
        hashes.add(pin.sha256.toLowerCase());
        staticPins.set(key, hashes);
      }
    }
    this.#config = {
      set,
      inspecting: set.policies.filter((p) => p.spec.inspection.enabled),
      pinning,
      staticPins,
      trustOnFirstUse: pinning.some((p) => p.spec.pinning.trustOnFirstUse),
    };
    return this.#config;
  }

  /** Facts for deciding a call of a tool this pod has seen listed (nothing known: no facts). */
  facts(server: string, tool: string): CallFacts {
    const review = this.#known.get(server)?.get(tool.toLowerCase())?.review;
    if (!review) return {};
    return {
      ...(review.definitionChanged ? { definitionChanged: true } : {}),
      ...(review.findingSeverity ? { findingSeverity: review.findingSeverity } : {}),
    };
  }

  /** Inspects and pins one listing (or page); reviews come back in input order. */
  async review(context: CatalogContext, tools: readonly ToolDefinition[]): Promise<ToolReview[]> {
    const { server } = context;
    const known = this.#known.get(server) ?? new CappedMap<string, Known>(maxToolsPerServer);
    this.#known.set(server, known);
    const config = this.#configuration();
    const inspections = await this.#inspect(config, tools);
    if (config.inspecting.length > 0) this.#judgeWithNeighbours(server, tools, inspections);
    if (config.inspecting.some((policy) => policy.spec.inspection.judge?.enabled))
      await this.#judgeWithModel(context, tools, inspections);
    const statuses = await this.#pinStatuses(config, server, tools, inspections);
    const reviews: ToolReview[] = [];
    tools.forEach((tool, i) => {
      const { hash, results } = inspections[i]!;
      const { status, definitionChanged } = statuses[i]!;
      const findingSeverity = maxSeverity(results.map((r) => r.result.maxSeverity));
      const review: ToolReview = {
        name: tool.name,
        hash,
        status,
        definitionChanged,
        findingSeverity,
        hidden: false,
      };
      const hiddenReason = this.#hiddenReason(config, review, results);
      if (hiddenReason) {
        review.hidden = true;
        review.hiddenReason = hiddenReason;
      }
      const key = tool.name.toLowerCase();
      const previous = known.get(key);
      if (previous?.review.hash !== hash) this.#record(context, tool, review, previous, results);
      known.set(key, { definition: tool, review });
      reviews.push(review);
    });
    return reviews;
  }

  /**
   * Every inspecting policy's result per tool. Definitions new to this pod take the findings another
   * pod recorded under the same rules (one store read per policy), or are inspected here and recorded.
   */
  async #inspect(
    config: PinningConfig,
    tools: readonly ToolDefinition[],
  ): Promise<{ hash: string; results: { policy: CompiledPolicy; result: InspectionResult }[] }[]> {
    const perPolicy: InspectionResult[][] = [];
    for (const policy of config.inspecting)
      perPolicy.push(await inspectSharing(tools, compileInspection(policy.spec.inspection), this.#verdicts));
    return tools.map((tool, i) => {
      const results = config.inspecting.map((policy, p) => ({ policy, result: perPolicy[p]![i]! }));
      return { hash: results[0]?.result.hash ?? inspectTool(tool, disabledInspection).hash, results };
    });
  }

  #judgeWithNeighbours(
    server: string,
    tools: readonly ToolDefinition[],
    inspections: { hash: string; results: { policy: CompiledPolicy; result: InspectionResult }[] }[],
  ): void {
    const judgements = this.#neighbours.judge(
      server,
      tools,
      inspections.map((inspection) => inspection.hash),
      inspections.map((inspection) => inspection.results[0]?.result.findings ?? []),
    );
    inspections.forEach((inspection, i) => {
      const { added, cleared } = judgements[i]!;
      if (added.length === 0 && cleared.length === 0) return;
      inspection.results = inspection.results.map(({ policy, result }) => ({
        policy,
        result: withFindings(result, added, compileInspection(policy.spec.inspection), cleared, tools[i]),
      }));
    });
  }

  #judgeFor(spec: JudgeSpec): ModelJudge | string {
    let judge = this.#judges.get(spec);
    if (judge === undefined) {
      try {
        judge = new ModelJudge({
          settings: judgeSettings(spec),
          store: this.#verdicts,
          observer: {
            call: (outcome) => judgeCalls.inc({ provider: spec.provider, outcome }),
          },
        });
      } catch (error) {
        if (!(error instanceof JudgeConfigError)) throw error;
        judge = error.message;
      }
      this.#judges.set(spec, judge);
    }
    return judge;
  }

  /**
   * Definitions the rules did not flag go to the policy's model judge (spec.inspection.judge). An
   * unchanged definition is answered from the judge's memory without I/O; a new one waits up to
   * the judge's timeout (pending Hold) or goes through reported as pending (pending Alert).
   */
  async #judgeWithModel(
    context: CatalogContext,
    tools: readonly ToolDefinition[],
    inspections: { hash: string; results: { policy: CompiledPolicy; result: InspectionResult }[] }[],
  ): Promise<void> {
    for (const policy of this.#configuration().inspecting) {
      const spec = policy.spec.inspection.judge;
      if (!spec?.enabled) continue;
      const judge = this.#judgeFor(spec);
      const compiled = compileInspection(policy.spec.inspection);
      const wanted: { index: number; hash: string; tool: ToolDefinition }[] = [];
      inspections.forEach((inspection, index) => {
        const entry = inspection.results.find((r) => r.policy === policy);
        if (!entry) return;
        if (
          typeof judge === "string"
            ? !entry.result.flagged
            : judge.wants(entry.result.findings, entry.result.flagged)
        )
          wanted.push({ index, hash: inspection.hash, tool: tools[index]! });
      });
      if (wanted.length === 0) continue;
      const outcomes = typeof judge === "string" ? undefined : await judge.review(wanted);
      for (const { index, hash, tool } of wanted) {
        const entry = inspections[index]!.results.find((r) => r.policy === policy)!;
        const outcome = outcomes?.get(hash) ?? { state: "failed" as const, reason: String(judge) };
        const extra =
          typeof judge === "string"
            ? spec.onFailure === "Block"
              ? [failureFinding(String(judge))]
              : []
            : outcomeFindings(outcome, judge.settings);
        if (extra.length > 0) entry.result = withFindings(entry.result, extra, compiled);
        if (outcome.state === "verdict" && outcome.source === "cache") continue;
        judgeOutcomes.inc({ outcome: outcome.state === "verdict" ? outcome.verdict.verdict : outcome.state });
        this.#audit.emit({
          type: "mcp_judge_verdict",
          dialect: "mcp",
          server: context.server,
          tool: tool.name,
          ...(context.session ? { session: context.session } : {}),
          ...(context.requestId ? { requestId: context.requestId } : {}),
          rule: `${policy.id}#inspection.judge`,
          sha256: hash,
          action:
            extra.length > 0
              ? entry.result.action === "block"
                ? "block"
                : "alert"
              : outcome.state === "verdict"
                ? "allow"
                : "alert",
          outcome: outcome.state,
          ...(outcome.state === "verdict"
            ? { verdict: outcome.verdict.verdict, source: outcome.source, reason: outcome.verdict.reason }
            : {}),
          ...(outcome.state === "failed" ? { reason: outcome.reason } : {}),
        });
      }
    }
  }

  async #pinStatuses(
    config: PinningConfig,
    server: string,
    tools: readonly ToolDefinition[],
    inspections: readonly { hash: string }[],
  ): Promise<{ status: PinStatus; definitionChanged: boolean }[]> {
    const out: { status: PinStatus; definitionChanged: boolean }[] = [];
    const ask: { index: number; key: string; sha256: string }[] = [];
    tools.forEach((tool, index) => {
      const key = pinKey(server, tool.name);
      const hash = inspections[index]!.hash;
      const fixed = config.staticPins.get(key);
      if (config.pinning.length === 0) {
        out.push({ status: "new", definitionChanged: false });
      } else if (fixed) {
        const matches = fixed.has(hash);
        out.push({ status: matches ? "unchanged" : "changed", definitionChanged: !matches });
      } else if (!config.trustOnFirstUse) {
        out.push({ status: "new", definitionChanged: true });
      } else {
        const pinned = this.#pins.get(key);
        if (pinned === hash) {
          out.push({ status: "unchanged", definitionChanged: false });
        } else {
          out.push({ status: "new", definitionChanged: false });
          ask.push({ index, key, sha256: hash });
        }
      }
    });
    if (ask.length === 0) return out;
    let answers: Awaited<ReturnType<PinStore["pinIfAbsent"]>>;
    try {
      answers = await this.#store.pinIfAbsent(
        this.#namespace,
        ask.map(({ key, sha256 }) => ({ key, sha256 })),
      );
    } catch {
      // Unverifiable pins count as changed: under onChange Block the tools stay hidden and blocked.
      for (const { index } of ask) out[index] = { status: "changed", definitionChanged: true };
      return out;
    }
    ask.forEach(({ index, key, sha256 }, i) => {
      const answer = answers[i]!;
      this.#pins.set(key, answer.pinned);
      if (answer.created) out[index] = { status: "new", definitionChanged: false };
      else if (answer.pinned === sha256) out[index] = { status: "unchanged", definitionChanged: false };
      else out[index] = { status: "changed", definitionChanged: true };
    });
    return out;
  }

  #hiddenReason(
    config: PinningConfig,
    review: ToolReview,
    results: readonly { policy: CompiledPolicy; result: InspectionResult }[],
  ): string | undefined {
    for (const { policy, result } of results) {
      if (policy.spec.mode === "Enforce" && result.action === "block") {
        return `definition failed inspection (${result.maxSeverity}) under ${policy.id}`;
      }
    }
    if (review.definitionChanged) {
      for (const policy of config.pinning) {
        if (policy.spec.mode === "Enforce" && policy.spec.pinning.onChange === "Block") {
          return `definition changed since it was pinned (${policy.id})`;
        }
      }
    }
    return undefined;
  }

  #record(
    context: CatalogContext,
    tool: ToolDefinition,
    review: ToolReview,
    previous: Known | undefined,
    results: readonly { policy: CompiledPolicy; result: InspectionResult }[],
  ): void {
    const common = {
      dialect: "mcp",
      server: context.server,
      tool: tool.name,
      ...(context.session ? { session: context.session } : {}),
      ...(context.requestId ? { requestId: context.requestId } : {}),
    };
    this.#audit.emit({ type: "mcp_tool_seen", ...common, status: review.status, sha256: review.hash });
    if (review.status === "changed") {
      definitionChanges.inc({ server: boundedLabel("server", context.server) });
      this.#audit.emit({
        type: "mcp_tool_changed",
        ...common,
        action: review.hidden ? "block" : "alert",
        previousSha256: this.#pins.get(pinKey(context.server, tool.name)) ?? previous?.review.hash,
        sha256: review.hash,
        changes: previous ? diffToolDefinitions(previous.definition, tool) : [],
      });
    }
    const flagged = results.filter((r) => r.result.flagged);
    if (flagged.length === 0) return;
    const findings: Finding[] = flagged[0]!.result.findings;
    for (const finding of findings)
      detections.inc({ category: finding.category, severity: finding.severity });
    this.#audit.emit({
      type: "mcp_detection",
      ...common,
      action: review.hidden ? "block" : "alert",
      rule: flagged[0]!.policy.id,
      severity: review.findingSeverity,
      sha256: review.hash,
      findings,
    });
  }
}

const disabledInspection = compileInspection({ enabled: false });

function maxSeverity(severities: readonly (Severity | undefined)[]): Severity | undefined {
  let max: Severity | undefined;
  for (const severity of severities) {
    if (severity && (!max || severityRank[severity] > severityRank[max])) max = severity;
  }
  return max;
}
