/** The `network_connection` audit event (one JSON line) for every redirected connection. */
import type { EgressDecision } from "./egress.ts";

export interface PodIdentity {
  namespace: string;
  pod: string;
}

export type NetworkConnectionEvent = {
  type: "network_connection";
  timestamp: string;
  namespace: string;
  pod: string;
  requestId: string;
  /** The declared MCP server, for connections to one. */
  server?: string;
  action: "allow" | "deny";
  reason: string;
  rule: string;
  mode: "Enforce" | "Audit";
  verdict: EgressDecision["verdict"];
  category: EgressDecision["category"];
  host: string | null;
  destination: string;
  protocol: "tls" | "http" | "unknown";
};

export function formatDestination(address: string, port: number): string {
  return address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
}
