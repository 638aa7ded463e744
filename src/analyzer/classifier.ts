import { anyGlobMatcher } from "../policy/glob.ts";
import type { MCPPolicySpec } from "../policy/types.ts";
import type { ToolCategory } from "./types.ts";

/** What a tool does, guessed from its name (seed 004); policies override per server and tool. */
export const builtInCategories: readonly [ToolCategory, readonly string[]][] = [
  ["read", ["read_*", "get_*", "query_*", "list_*", "fetch_*", "search_*", "find_*", "lookup_*"]],
  ["write", ["write_*", "update_*", "set_*", "create_*", "delete_*", "remove_*", "put_*", "insert_*"]],
  ["send", ["send_*", "post_*", "upload_*", "http_*", "email_*", "notify_*", "publish_*", "push_*"]],
  ["compute", ["run_*", "exec_*", "eval_*", "execute_*", "invoke_*", "call_*"]],
];

/** One `spec.crossServer.classifier` entry, as the CRD defines it. */
type ClassifierOverride = NonNullable<MCPPolicySpec["crossServer"]["classifier"]>[number];

export type Classifier = (server: string, tool: string) => ToolCategory;

/** Claude Code names MCP tools `mcp__<server>__<tool>`; the category comes from the tool part. */
function bareToolName(tool: string): string {
  const match = /^mcp__.+?__(.+)$/.exec(tool);
  return match ? match[1]! : tool;
}

export function compileClassifier(overrides: readonly ClassifierOverride[] = []): Classifier {
  const compiledOverrides = overrides.map((o) => ({
    server: o.servers ? anyGlobMatcher(o.servers) : () => true,
    tool: anyGlobMatcher(o.tools),
    category: o.class.toLowerCase() as ToolCategory,
  }));
  const builtIn = builtInCategories.map(([category, globs]) => ({ category, tool: anyGlobMatcher(globs) }));
  return (server, tool) => {
    const name = bareToolName(tool);
    for (const o of compiledOverrides)
      if (o.server(server) && (o.tool(name) || o.tool(tool))) return o.category;
    for (const b of builtIn) if (b.tool(name)) return b.category;
    return "unknown";
  };
}
