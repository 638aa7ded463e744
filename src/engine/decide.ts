import type { PolicySet, ResolvedCall } from "../policy/evaluate.ts";
import { resolveCall } from "../policy/evaluate.ts";
import type { CallFacts, Decision, ToolRegistry } from "../policy/types.ts";
import { isBlocked } from "../policy/types.ts";
import type { AuditEventType, AuditSink } from "../telemetry/audit.ts";
import { boundedLabel, decisionDuration, toolCalls } from "../telemetry/metrics.ts";
import type { SessionToolRegistry } from "./registry.ts";

/** Who is calling: one pod (sidecar) or one local process (toolwall proxy). */
export interface SessionIdentity {
  namespace: string;
  pod: string;
  session: string;
}

/**
 * What is judged: a tool call (any dialect), or an MCP `resources/read` / `prompts/get`, judged by
 * resourcePolicy / promptPolicy and, like tool calls, by the state check and recorded the same way.
 */
export type JudgedKind = "tool" | "resource" | "prompt";

/** One tool call (or MCP resource read, prompt get) found in traffic, as a dialect hands it to `decide`. */
export interface CallRequest {
  /** `anthropic-messages`, `openai-chat`, `openai-responses`, `gemini`, `mcp`. */
  dialect: string;
  /** Default "tool". "resource": `name` is the URI; "prompt": the prompt's name; both need `server`. */
  kind?: JudgedKind;
  /** One LLM response (one turn) or one MCP request. */
  requestId: string;
  /** The tool name as written in the traffic (`mcp__github__create_issue`, `Bash`, …). */
  name: string;
  /** The MCP server, when the traffic itself names it (MCP dialect); otherwise resolved. */
  server?: string;
  /** Parsed arguments; undefined when not (yet) known. */
  arguments?: unknown;
  facts?: CallFacts;
  /**
   * The arguments were cut short or could not be parsed: decided on the name alone when no rule needs
   * them, denied otherwise (fail closed).
   */
  argumentsUnreadable?: boolean;
  /** Extra audit fields (call id, a note that the arguments were cut short, …). */
  detail?: Record<string, unknown>;
}

export interface StateCheckInput {
  call: ResolvedCall;
  /** Default "tool". Resource reads and prompt gets spend rate limits but join no cross-server window. */
  kind?: JudgedKind;
  arguments: unknown;
  /** The stateless verdict of the policy set (cross-server rules run before it, rate limits after). */
  decision: Decision;
  policies: PolicySet;
  identity: SessionIdentity;
  requestId: string;
  dialect: string;
}

/**
 * The state store's place in the pipeline: cross-server rules and rate limits, in one round trip.
 * It returns the final decision (the given one when nothing stateful objects). Throwing is treated as
 * a failure of the check: the call is denied (a failure inside Toolwall never lets a call through).
 */
export interface StatefulCheck {
  check(input: StateCheckInput): Promise<Decision>;
}

export interface Decided {
  decision: Decision;
  /** The decision stops the call (deny by an enforcing policy). */
  blocked: boolean;
  server: string | undefined;
  tool: string;
  /** The text put in place of a blocked call. */
  message: string;
  /** Emits the audit event; `decide` does it itself unless asked to defer (call released at its start). */
  record(argumentsSeen: unknown, detail?: Record<string, unknown>): void;
}

export interface DecideDependencies {
  policies(): PolicySet;
  registry: ToolRegistry & Pick<SessionToolRegistry, "listed" | "refresh">;
  audit: AuditSink;
  identity: SessionIdentity;
  stateful?: StatefulCheck | undefined;
}

/** allow < a deny recorded only (Audit) < a deny that blocks. */
function severity(decision: Decision): number {
  if (decision.action === "allow") return 0;
  return isBlocked(decision) ? 2 : 1;
}

/**
 * The declared MCP servers that could own a bare tool name: those whose complete listing the
 * registry does not know (a server that listed its tools without this name does not own it). A
 * shared registry is asked first (one store round trip at most, throttled), so listings seen by
 * another pod or before a restart count.
 */
async function possibleOwners(
  registry: DecideDependencies["registry"],
  policies: PolicySet,
  name: string,
): Promise<string[]> {
  const unlisted = () =>
    [...policies.servers.values()]
      .map((server) => server.name)
      .filter((server) => !registry.listed?.(server));
  if (unlisted().length === 0) return [];
  await registry.refresh?.();
  return registry.serverOf(name) === undefined ? unlisted() : [];
}

/** The evaluator's verdict on a tool call, the server it resolves to included. */
async function judgeTool(
  deps: DecideDependencies,
  policies: PolicySet,
  request: CallRequest,
  call: { tool: string; arguments: unknown; server?: string },
): Promise<{ resolved: ResolvedCall; decision: Decision }> {
  let resolved = resolveCall(call, deps.registry);
  let candidates: string[] = [];
  if (resolved.server === undefined) {
    candidates = await possibleOwners(deps.registry, policies, request.name);
    resolved = resolveCall(call, deps.registry);
  }
  const evaluateAs = (server: string | undefined): Decision => {
    const as = server === undefined ? call : { ...call, server };
    return request.argumentsUnreadable && policies.preview(as, deps.registry) === "conditional"
      ? {
          action: "deny",
          reason: "the call's arguments were cut short or unparsable and a rule needs them",
          rule: "",
          mode: "Enforce",
        }
      : policies.evaluate(as, request.facts ?? {}, deps.registry);
  };
  let decision = evaluateAs(undefined);
  if (resolved.server === undefined) {
    // A bare name an MCP server whose tools are not known yet could own: deny if any of them would.
    for (const server of candidates) {
      const asServer = evaluateAs(server);
      if (severity(asServer) > severity(decision)) {
        decision = {
          ...asServer,
          reason: `${asServer.reason} ('${request.name}' may be a tool of MCP server '${server}', whose tools are not known yet)`,
        };
      }
    }
  }
  return { resolved, decision };
}

/** The evaluator's verdict on an MCP resource read or prompt get (resourcePolicy / promptPolicy). */
function judgeNamed(policies: PolicySet, kind: "resource" | "prompt", request: CallRequest): Decision {
  if (request.server === undefined) throw new Error(`a ${kind} is judged for a named MCP server only`);
  return kind === "resource"
    ? policies.evaluateResource(request.server, request.name)
    : policies.evaluatePrompt(request.server, request.name);
}

/** The `tool` of the metric and the audit event: the tool, or the MCP method (URIs are unbounded). */
const operationOf: Record<JudgedKind, string | undefined> = {
  tool: undefined,
  resource: "resources/read",
  prompt: "prompts/get",
};

/** The audit event's type: an MCP message, an MCP tool in LLM traffic, or an agent's own tool. */
function eventType(dialect: string, server: string | undefined): AuditEventType {
  if (dialect === "mcp") return "mcp_tool_called";
  return server === undefined ? "tool_call_intercepted" : "mcp_tool_call_intercepted";
}

/**
 * The one decision step every dialect uses, for tool calls and MCP resource reads and prompt gets
 * alike: resolve the server, evaluate, ask the state store, record the audit event and the metrics
 * (one event shape, one metric shape). With `deferRecord` the caller emits the audit event later
 * through `record` (a call let through at its start is recorded once its arguments have streamed by).
 * Anything that throws while judging denies.
 */
export async function decide(
  deps: DecideDependencies,
  request: CallRequest,
  options: { deferRecord?: boolean } = {},
): Promise<Decided> {
  const started = performance.now();
  const policies = deps.policies();
  const kind = request.kind ?? "tool";
  const call = { tool: request.name, arguments: request.arguments, server: request.server };
  if (call.server === undefined) delete call.server;
  let resolved: ResolvedCall =
    kind === "tool"
      ? resolveCall(call, deps.registry)
      : { server: request.server, tool: request.name, name: request.name };
  let decision: Decision;
  try {
    if (kind === "tool") ({ resolved, decision } = await judgeTool(deps, policies, request, call));
    else decision = judgeNamed(policies, kind, request);
    if (deps.stateful) {
      decision = await deps.stateful.check({
        call: resolved,
        ...(kind === "tool" ? {} : { kind }),
        arguments: request.arguments,
        decision,
        policies,
        identity: deps.identity,
        requestId: request.requestId,
        dialect: request.dialect,
      });
    }
  } catch (error) {
    decision = {
      action: "deny",
      reason: `policy check failed: ${(error as Error).message}`,
      rule: "",
      mode: "Enforce",
    };
  }
  decisionDuration.observe({ dialect: request.dialect }, (performance.now() - started) / 1000);
  const blocked = isBlocked(decision);
  const server = resolved.server;
  let message = "";
  if (blocked) {
    message =
      kind === "tool"
        ? policies.blockMessage(decision, { tool: resolved.tool, server })
        : `${kind === "resource" ? "Resource" : "Prompt"} '${request.name}' was blocked by policy: ${decision.reason}`;
  }
  const tool = operationOf[kind] ?? resolved.tool;
  let recorded = false;
  const record = (argumentsSeen: unknown, detail?: Record<string, unknown>) => {
    if (recorded) return;
    recorded = true;
    toolCalls.inc({
      dialect: request.dialect,
      action: decision.action,
      mode: decision.mode,
      server: boundedLabel("server", server ?? ""),
      tool: boundedLabel("tool", tool),
    });
    deps.audit.emit({
      type: eventType(request.dialect, server),
      namespace: deps.identity.namespace,
      pod: deps.identity.pod,
      session: deps.identity.session,
      requestId: request.requestId,
      dialect: request.dialect,
      server: server ?? "",
      tool,
      name: request.name,
      input: argumentsSeen ?? {},
      action: decision.action,
      reason: decision.reason,
      rule: decision.rule,
      mode: decision.mode,
      ...request.detail,
      ...detail,
    });
  };
  if (!options.deferRecord) record(request.arguments);
  return { decision, blocked, server, tool: resolved.tool, message, record };
}
