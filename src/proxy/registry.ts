import type { ToolRegistry } from "../policy/types.ts";

/**
 * The tools known in one pod session and the MCP server each came from: filled by the MCP dialect
 * from observed `tools/list` answers, read by every dialect to resolve a bare tool name to its server.
 */
export interface SessionToolRegistry extends ToolRegistry {
  /** Records that `server` offers these tool names (a `tools/list` answer replaces the previous one). */
  observe(server: string, tools: readonly string[]): void;
}

export class MemoryToolRegistry implements SessionToolRegistry {
  readonly #serverOfTool = new Map<string, string>();
  readonly #toolsOfServer = new Map<string, string[]>();

  observe(server: string, tools: readonly string[]): void {
    for (const previous of this.#toolsOfServer.get(server) ?? []) {
      if (this.#serverOfTool.get(previous) === server) this.#serverOfTool.delete(previous);
    }
    const names = tools.map((tool) => tool.toLowerCase());
    this.#toolsOfServer.set(server, names);
    for (const name of names) this.#serverOfTool.set(name, server);
  }

  serverOf(tool: string): string | undefined {
    return this.#serverOfTool.get(tool.toLowerCase());
  }
}
