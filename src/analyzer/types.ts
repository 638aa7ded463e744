/** What the cross-server analysis reads: a pod session's recent calls and shadowed tools. */
export type ToolCategory = "read" | "write" | "send" | "compute" | "unknown";

export type CallAction = "allow" | "deny";

/** One tool call in a pod session's window. */
export interface CallRecord {
  /** Milliseconds since the epoch. */
  at: number;
  server: string;
  tool: string;
  /** The LLM response (turn) that asked for the call; "" when unknown. */
  requestId: string;
  category: ToolCategory;
  action: CallAction;
}

/** A tool name served by another server than the one that first offered it in this session. */
export interface ShadowedTool {
  tool: string;
  originalServer: string;
  currentServer: string;
}

export interface SessionState {
  /** Oldest first. */
  window: CallRecord[];
  shadows: ShadowedTool[];
}
