import type { Writable } from "node:stream";
import { recordable } from "./redact.ts";

export type AuditEventType =
  | "tool_call_intercepted"
  | "mcp_tool_call_intercepted"
  | "mcp_tool_called"
  | "mcp_tool_seen"
  | "mcp_tool_changed"
  | "mcp_detection"
  | "mcp_judge_verdict"
  | "mcp_cross_server_blocked"
  | "network_connection"
  | "policy_bundle_applied"
  | "hosted_mcp_connector"
  | "tool_result_returned"
  | "llm_response_refused";

/** Common fields (ARCHITECTURE.md "Observability"); each type adds its own. */
export interface AuditEvent {
  type: AuditEventType;
  timestamp?: string;
  namespace?: string;
  pod?: string;
  session?: string;
  requestId?: string;
  dialect?: string;
  server?: string;
  tool?: string;
  action?: string;
  reason?: string;
  rule?: string;
  mode?: string;
  [field: string]: unknown;
}

export interface AuditSink {
  emit(event: AuditEvent): void;
}

/** Fields whose values come from traffic: redacted and capped before they are written. */
const payloadFields = ["input", "arguments", "result", "output"];

export function prepareEvent(event: AuditEvent, defaults: Partial<AuditEvent>): AuditEvent {
  const prepared: AuditEvent = {
    ...defaults,
    ...event,
    timestamp: event.timestamp ?? new Date().toISOString(),
  };
  for (const field of payloadFields) {
    if (prepared[field] !== undefined) prepared[field] = recordable(prepared[field]);
  }
  return prepared;
}

/**
 * Writes events as JSON lines. Lines written in one tick go out in one write, so a burst of events
 * costs one syscall, not one per event.
 */
export class JsonLineAuditSink implements AuditSink {
  readonly #out: Writable;
  readonly #defaults: Partial<AuditEvent>;
  readonly #listeners: ((event: AuditEvent) => void)[] = [];
  #pending: string[] = [];

  constructor(out: Writable, defaults: Partial<AuditEvent> = {}) {
    this.#out = out;
    this.#defaults = defaults;
  }

  /** Also hand each prepared event to `listener` (the shared audit stream, tests). */
  subscribe(listener: (event: AuditEvent) => void): void {
    this.#listeners.push(listener);
  }

  emit(event: AuditEvent): void {
    const prepared = prepareEvent(event, this.#defaults);
    for (const listener of this.#listeners) listener(prepared);
    if (this.#pending.length === 0) queueMicrotask(() => this.flush());
    this.#pending.push(`${JSON.stringify(prepared)}\n`);
  }

  flush(): void {
    if (this.#pending.length === 0) return;
    const text = this.#pending.join("");
    this.#pending = [];
    this.#out.write(text);
  }
}

/** Collects events in memory (tests, the demo's table). */
export class MemoryAuditSink implements AuditSink {
  readonly events: AuditEvent[] = [];
  emit(event: AuditEvent): void {
    this.events.push(prepareEvent(event, {}));
  }
}
