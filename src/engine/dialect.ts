import type { ToolDefinition } from "../inspect/types.ts";
import type { Preview } from "../policy/rules.ts";
import type { Severity } from "../policy/types.ts";
import type { Decided } from "./decide.ts";

/** A tool definition offered to a model in an LLM request (or listed by an MCP server): inspect's one shape. */
export type { ToolDefinition };

/** A provider-side MCP connector found in a request (Responses `type: mcp`, Anthropic `mcp_servers`). */
export interface HostedConnector {
  label: string;
  url: string;
}

/** A tool result the client sends back to the model (recorded in the audit trail). */
export interface ToolResultSeen {
  callId: string;
  name?: string;
  output: unknown;
}

export interface RequestInfo {
  tools: ToolDefinition[];
  streaming: boolean;
  /** Tool results in the newest part of the conversation (since the model's last turn). */
  toolResults: ToolResultSeen[];
}

/** What a dialect needs to know about a request to transform the request body. */
export interface RequestSide {
  /** Reads the request (no change). */
  inspect(body: Record<string, unknown>, url: URL): RequestInfo;
  /** Removes the named tools (lower-case names); returns the names removed. */
  removeTools(body: Record<string, unknown>, remove: (name: string) => boolean): string[];
  /** Removes provider-side MCP connectors; returns what was removed. */
  removeHostedMcp(body: Record<string, unknown>): HostedConnector[];
  /** Lists provider-side MCP connectors without removing them. */
  hostedMcp(body: Record<string, unknown>): HostedConnector[];
}

/**
 * One LLM response under judgement: what the request offered and how to decide a call in it.
 * `requestId` names the turn in the audit trail.
 */
export interface Turn {
  dialect: string;
  requestId: string;
  /** Lower-case names of the tools the request offered. */
  offeredTools: ReadonlySet<string>;
  /** The decision for a name before the arguments are known ("allow"/"deny" final, or "conditional"). */
  preview(name: string): Preview;
  /** Decides one call; `deferRecord` leaves the audit event to `Decided.record`. */
  decide(
    name: string,
    args: unknown,
    options?: { deferRecord?: boolean; detail?: Record<string, unknown>; argumentsUnreadable?: boolean },
  ): Promise<Decided>;
  /** Records a response refused as not fully understood (audit event and metric); see refusal.ts. */
  refuse(reason: string): void;
}

/** Receives the rewritten stream, in order. */
export type Emit = (bytes: Buffer) => void;

/** Response-side streaming transform: holds only a tool block under decision, passes the rest at once. */
export interface StreamRewriter {
  push(chunk: Buffer): Promise<void> | void;
  /** The upstream ended (cleanly or not): decide what is still held and flush. */
  end(): Promise<void> | void;
}

export interface ResponseSide {
  /**
   * Rewrites a whole JSON response; undefined when nothing changed (the original bytes go out).
   * Throws ResponseRefused for a response it does not fully understand.
   */
  rewriteJson(body: unknown, turn: Turn): Promise<unknown | undefined>;
  /** A transform for a streamed response of the given framing. */
  streamRewriter(turn: Turn, emit: Emit, framing: "sse" | "json-array"): StreamRewriter;
  /** The error body the SDK raises for a refused non-streaming response (sent with status 502). */
  refusalBody(message: string): unknown;
}

export interface LlmDialect {
  name: string;
  /** Whether this dialect handles a request to `path` (the part after the route prefix). */
  handles(method: string, path: string): boolean;
  request: RequestSide;
  response: ResponseSide;
}

/** Findings of the inspection engine on offered tool definitions, by lower-case tool name. */
export interface DefinitionInspector {
  inspect(
    tools: readonly ToolDefinition[],
    context: { dialect: string; requestId: string; server?: string },
  ): Promise<ReadonlyMap<string, Severity>> | ReadonlyMap<string, Severity>;
}
