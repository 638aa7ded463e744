import type { ToolRegistry } from "../policy/types.ts";

/**
 * The tools known in one pod session and the MCP server each came from: filled by the MCP dialect
 * from observed `tools/list` answers, read by every dialect to resolve a bare tool name to its server.
 * Implemented by src/registry/registry.ts (and wrapped by the shared state to track shadows).
 */
export interface SessionToolRegistry extends ToolRegistry {
  /** Records that `server` offers these tool names (a `tools/list` answer replaces the previous one). */
  observe(server: string, tools: readonly string[]): void;
  /**
   * True once a complete listing of `server` is known: a tool it does not list is not its own. A
   * registry without this knows no listing (every declared server could own every bare name).
   */
  listed?(server: string): boolean;
  /** Takes in the listings other processes recorded (a shared registry): one store round trip at most. */
  refresh?(): Promise<void>;
}
