import type { ToolRegistry } from "../policy/types.ts";

/**
 * The tools known in one pod session and the MCP server each came from: filled by the MCP dialect
 * from observed `tools/list` answers, read by every dialect to resolve a bare tool name to its server.
 * Implemented by src/registry/registry.ts (and wrapped by the shared state to track shadows).
 */
export interface SessionToolRegistry extends ToolRegistry {
  /** Records that `server` offers these tool names (a `tools/list` answer replaces the previous one). */
  observe(server: string, tools: readonly string[]): void;
}
