import type { CallRequest, Decided } from "../../engine/decide.ts";
import type { SessionToolRegistry } from "../../engine/registry.ts";
import type { ToolDefinition } from "../../inspect/types.ts";
import { CappedMap } from "../../kernel/bounded-map.ts";
import { jsonTokens, sameAsJsonTokens } from "../../kernel/json.ts";
import type { PolicySet } from "../../policy/evaluate.ts";
import { type Decision, isBlocked } from "../../policy/types.ts";
import type { ToolCatalog } from "./catalog.ts";
import {
  errorCodes,
  errorResponse,
  type JsonRpcRequest,
  type JsonRpcResponse,
  resultResponse,
} from "./jsonrpc.ts";

/** Where an MCP message travels: the declared server, the HTTP exchange, the MCP session. */
export interface McpContext {
  server: string;
  /** The proxy's id for the HTTP exchange. */
  requestId: string;
  /** `Mcp-Session-Id` (Streamable HTTP) or the legacy SSE session, when there is one. */
  mcpSession?: string;
}

export type RequestVerdict = { forward: true } | { forward: false; answer: JsonRpcResponse };

/** What the gate needs from the proxy core (a subset of its ProxyContext). */
export interface GateDependencies {
  policies(): PolicySet;
  /** The engine's decide(): judges, runs the state check, records the audit event and the metrics. */
  decide(request: CallRequest, options?: { deferRecord?: boolean }): Promise<Decided>;
  /** src/registry's SessionToolRegistry understands pages; a plain one sees each page as a whole listing. */
  registry: SessionToolRegistry & {
    observe(server: string, tools: readonly string[], page?: { first: boolean; last: boolean }): unknown;
  };
  identity: { namespace: string; pod: string; session: string };
}

/** Requests whose answers are listings the gate filters. */
export const listingMethods = new Set(["tools/list", "prompts/list", "resources/list"]);

/** Requests the policy decides. */
export const judgedMethods = new Set(["tools/call", "resources/read", "prompts/get"]);

const forward: RequestVerdict = { forward: true };
const maxRememberedListings = 200;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * The MCP policy point, free of HTTP: hands client requests (`tools/call`, `resources/read`,
 * `prompts/get`) to the engine's decide(), which judges and records them, and answers the denied
 * ones; filters listing results. Anything that throws inside a judgement denies.
 */
export class McpGate {
  readonly #deps: GateDependencies;
  readonly #catalog: ToolCatalog;
  /** server + cursor → the latest listing page seen and which of its entries the client may see. */
  readonly #listings = new CappedMap<string, { tokens: unknown[]; policies: PolicySet; visible: boolean[] }>(
    maxRememberedListings,
  );

  constructor(deps: GateDependencies, catalog: ToolCatalog) {
    this.#deps = deps;
    this.#catalog = catalog;
  }

  get catalog(): ToolCatalog {
    return this.#catalog;
  }

  async judge(context: McpContext, request: JsonRpcRequest): Promise<RequestVerdict> {
    try {
      switch (request.method) {
        case "tools/call":
          return await this.#judgeToolCall(context, request);
        case "resources/read":
          return await this.#judgeResource(context, request);
        case "prompts/get":
          return await this.#judgePrompt(context, request);
        default:
          return forward;
      }
    } catch (error) {
      return {
        forward: false,
        answer: errorResponse(request.id, errorCodes.internal, `Toolwall could not judge the request`, {
          reason: (error as Error).message,
        }),
      };
    }
  }

  /**
   * The audit fields every judged MCP request carries besides decide()'s own: the JSON-RPC method
   * and id, the MCP session, and what names the judged thing.
   */
  #detail(context: McpContext, request: JsonRpcRequest, fields: Record<string, unknown>) {
    return {
      ...(context.mcpSession ? { mcpSession: context.mcpSession } : {}),
      method: request.method,
      rpcId: request.id,
      ...fields,
    };
  }

  async #judgeToolCall(context: McpContext, request: JsonRpcRequest): Promise<RequestVerdict> {
    const params = request.params;
    const name = isObject(params) ? params.name : undefined;
    if (typeof name !== "string" || name === "") {
      return {
        forward: false,
        answer: errorResponse(request.id, -32602, "tools/call needs params.name (a string)"),
      };
    }
    const args = isObject(params) ? params.arguments : undefined;
    const decided = await this.#deps.decide({
      dialect: "mcp",
      requestId: context.requestId,
      name,
      server: context.server,
      arguments: args,
      facts: this.#catalog.facts(context.server, name),
      detail: this.#detail(context, request, {}),
    });
    if (!decided.blocked) return forward;
    const { decision } = decided;
    const denyAs = this.#deps.policies().policyOf(decision)?.spec.denyAs ?? "JsonRpcError";
    if (denyAs === "ToolError") {
      return {
        forward: false,
        answer: resultResponse(request.id, {
          content: [{ type: "text", text: decided.message }],
          isError: true,
        }),
      };
    }
    return { forward: false, answer: this.#denial(request, decision, decided.message) };
  }

  async #judgeResource(context: McpContext, request: JsonRpcRequest): Promise<RequestVerdict> {
    const uri = isObject(request.params) ? request.params.uri : undefined;
    if (typeof uri !== "string") {
      return { forward: false, answer: errorResponse(request.id, -32602, "resources/read needs params.uri") };
    }
    const decided = await this.#deps.decide({
      dialect: "mcp",
      kind: "resource",
      requestId: context.requestId,
      name: uri,
      server: context.server,
      detail: this.#detail(context, request, { uri }),
    });
    if (!decided.blocked) return forward;
    return { forward: false, answer: this.#denial(request, decided.decision, decided.message) };
  }

  async #judgePrompt(context: McpContext, request: JsonRpcRequest): Promise<RequestVerdict> {
    const name = isObject(request.params) ? request.params.name : undefined;
    if (typeof name !== "string") {
      return { forward: false, answer: errorResponse(request.id, -32602, "prompts/get needs params.name") };
    }
    const args = isObject(request.params) ? request.params.arguments : undefined;
    const decided = await this.#deps.decide({
      dialect: "mcp",
      kind: "prompt",
      requestId: context.requestId,
      name,
      server: context.server,
      arguments: args,
      detail: this.#detail(context, request, { prompt: name }),
    });
    if (!decided.blocked) return forward;
    return { forward: false, answer: this.#denial(request, decided.decision, decided.message) };
  }

  #denial(request: JsonRpcRequest, decision: Decision, message: string): JsonRpcResponse {
    return errorResponse(request.id, errorCodes.blocked, message, {
      reason: decision.reason,
      rule: decision.rule,
    });
  }

  /** The result a listing request gets after filtering; anything not understood passes unchanged. */
  async filterResult(
    context: McpContext,
    method: string,
    params: Record<string, unknown> | undefined,
    result: unknown,
  ): Promise<unknown> {
    if (!isObject(result)) return result;
    const policies = this.#deps.policies();
    switch (method) {
      case "tools/list":
        return this.#filterTools(context, policies, params, result);
      case "prompts/list":
        return this.#filterList(result, "prompts", (item) =>
          typeof item.name === "string"
            ? isBlocked(policies.evaluatePrompt(context.server, item.name))
            : true,
        );
      case "resources/list":
        return this.#filterList(result, "resources", (item) =>
          typeof item.uri === "string"
            ? isBlocked(policies.evaluateResource(context.server, item.uri))
            : true,
        );
      default:
        return result;
    }
  }

  #filterList(
    result: Record<string, unknown>,
    field: string,
    hidden: (item: Record<string, unknown>) => boolean,
  ): Record<string, unknown> {
    const items = result[field];
    if (!Array.isArray(items)) return result;
    const visible = items.filter((item) => isObject(item) && !hidden(item));
    return visible.length === items.length ? result : { ...result, [field]: visible };
  }

  async #filterTools(
    context: McpContext,
    policies: PolicySet,
    params: Record<string, unknown> | undefined,
    result: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    if (!Array.isArray(result.tools)) return result;
    const listed: unknown[] = result.tools;
    const page = { first: params?.cursor === undefined, last: typeof result.nextCursor !== "string" };
    const key = `${context.server}\0${typeof params?.cursor === "string" ? params.cursor : ""}`;
    // A listing identical to the previous one of this page needs no inspection, pinning or events.
    const previous = this.#listings.get(key);
    let visible: boolean[];
    if (previous && previous.policies === policies && sameAsJsonTokens(listed, previous.tokens)) {
      visible = previous.visible;
    } else {
      visible = await this.#reviewListing(context, policies, listed);
      this.#listings.set(key, { tokens: jsonTokens(listed), policies, visible });
    }
    const names: string[] = [];
    for (const tool of listed) {
      if (isObject(tool) && typeof tool.name === "string" && tool.name !== "") names.push(tool.name);
    }
    this.#deps.registry.observe(context.server, names, page);
    if (visible.every(Boolean)) return result;
    return { ...result, tools: listed.filter((_, i) => visible[i]) };
  }

  /** Per listed entry: true when the client may see it; a definition without a name is dropped. */
  async #reviewListing(context: McpContext, policies: PolicySet, listed: unknown[]): Promise<boolean[]> {
    const named = listed.map((tool) =>
      isObject(tool) && typeof tool.name === "string" && tool.name !== ""
        ? (tool as unknown as ToolDefinition)
        : undefined,
    );
    const tools = named.filter((tool) => tool !== undefined);
    const reviews = await this.#catalog.review(
      { server: context.server, session: this.#deps.identity.session, requestId: context.requestId },
      tools,
    );
    let next = 0;
    return named.map((tool) => {
      if (!tool) return false;
      const review = reviews[next++]!;
      return !review.hidden && policies.preview({ tool: tool.name, server: context.server }) !== "deny";
    });
  }
}
