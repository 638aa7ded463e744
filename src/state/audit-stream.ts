import type { AuditEvent } from "../telemetry/audit.ts";
import type { StateGuard } from "./guard.ts";

/**
 * A listener for JsonLineAuditSink.subscribe: every prepared (redacted, capped) audit event also
 * joins its namespace's capped stream in the state store, where `toolwall events` reads it.
 */
export function auditStreamListener(
  guard: StateGuard,
  defaultNamespace: string,
): (event: AuditEvent) => void {
  return (event) => {
    guard.audit(event.namespace || defaultNamespace, {
      ...event,
      timestamp: event.timestamp ?? new Date().toISOString(),
    });
  };
}
