import type { ShadowedTool } from "../analyzer/types.ts";
import type { SessionToolRegistry as ProxyToolRegistry } from "../engine/registry.ts";
import { confusableKey } from "../inspect/names.ts";
import type { ToolProvider } from "../state/types.ts";

/**
 * The tools one pod session has seen, each mapped to the MCP server that offered it, so a bare tool
 * name (in an LLM response, in a cross-server rule) resolves to its server. Names compare
 * case-insensitively. The first server to offer a name keeps it; a later server offering the same
 * name is recorded as a shadow for `crossServer.shadowTool`, never silently re-pointed; so is a later
 * server's name that only reads like an earlier server's (`read_fi1e`, `Read-File`: see confusableKey).
 */
export class SessionToolRegistry implements ProxyToolRegistry {
  /** lower-case tool name → server that offered it first. */
  readonly #owner = new Map<string, string>();
  /** server → lower-case tool names it offered in its latest complete listing (or pages so far). */
  readonly #byServer = new Map<string, Set<string>>();
  /** lower-case tool name → shadow record. */
  readonly #shadows = new Map<string, ShadowedTool>();
  /** server → names of a paginated listing still in progress. */
  readonly #listing = new Map<string, Set<string>>();
  /** Lower-case names of the servers whose complete listing was seen. */
  readonly #listed = new Set<string>();
  /** confusable form of a name → the server that offered it first and its lower-case name. */
  readonly #confusable = new Map<string, { server: string; tool: string }>();

  serverOf(tool: string): string | undefined {
    return this.#owner.get(tool.toLowerCase());
  }

  listed(server: string): boolean {
    return this.#listed.has(server.toLowerCase());
  }

  /** Tools the server offered, lower case. */
  toolsOf(server: string): ReadonlySet<string> {
    return this.#byServer.get(server) ?? new Set();
  }

  /**
   * Records one `tools/list` answer, or one page of it. A listing that starts on a first page and
   * ends on a last page replaces what the server offered before: names it no longer offers are
   * forgotten. Returns the tools this page newly shadowed.
   */
  observe(
    server: string,
    tools: readonly string[],
    page: { first: boolean; last: boolean } = { first: true, last: true },
  ): ShadowedTool[] {
    let listing = page.first ? undefined : this.#listing.get(server);
    if (!listing) {
      listing = new Set(page.first ? [] : this.toolsOf(server));
      this.#listing.set(server, listing);
    }
    const added: ShadowedTool[] = [];
    for (const name of tools) {
      const key = name.toLowerCase();
      listing.add(key);
      const owner = this.#owner.get(key);
      const lookalike = this.#lookalikeOf(server, key);
      if (lookalike && !this.#shadows.has(key)) {
        const shadow: ShadowedTool = { tool: key, originalServer: lookalike, currentServer: server };
        this.#shadows.set(key, shadow);
        added.push(shadow);
      }
      if (owner === undefined) {
        this.#owner.set(key, server);
      } else if (owner !== server && this.#shadows.get(key)?.currentServer !== server) {
        const shadow: ShadowedTool = { tool: key, originalServer: owner, currentServer: server };
        this.#shadows.set(key, shadow);
        added.push(shadow);
      }
    }
    if (page.last) {
      this.#forgetMissing(server, this.toolsOf(server), listing);
      this.#byServer.set(server, listing);
      this.#listing.delete(server);
      this.#listed.add(server.toLowerCase());
    }
    return added;
  }

  /** The server that first offered a different name reading like `key`, when it is another server. */
  #lookalikeOf(server: string, key: string): string | undefined {
    const confusable = confusableKey(key);
    const first = this.#confusable.get(confusable);
    if (!first) {
      this.#confusable.set(confusable, { server, tool: key });
      return undefined;
    }
    return first.server !== server && first.tool !== key ? first.server : undefined;
  }

  #forgetMissing(server: string, before: ReadonlySet<string>, after: ReadonlySet<string>): void {
    for (const key of before) {
      if (after.has(key)) continue;
      const confusable = confusableKey(key);
      const first = this.#confusable.get(confusable);
      if (first?.server === server && first.tool === key) this.#confusable.delete(confusable);
      const shadow = this.#shadows.get(key);
      if (this.#owner.get(key) === server) {
        this.#owner.delete(key);
        if (shadow) this.#owner.set(key, shadow.currentServer);
        this.#shadows.delete(key);
      } else if (shadow?.currentServer === server) {
        this.#shadows.delete(key);
      }
    }
  }

  shadows(): ShadowedTool[] {
    return [...this.#shadows.values()];
  }

  /** Every (tool, server) pair known, for the state store's shared view of the session. */
  providers(): ToolProvider[] {
    const out: ToolProvider[] = [];
    for (const [server, tools] of this.#byServer) for (const tool of tools) out.push({ tool, server });
    return out;
  }
}
