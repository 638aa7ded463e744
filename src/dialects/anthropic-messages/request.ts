import type {
  HostedConnector,
  RequestInfo,
  RequestSide,
  ToolDefinition,
  ToolResultSeen,
} from "../../engine/dialect.ts";
import { arrayAt, isObject, type JsonObject, objectAt, stringAt } from "../../engine/json-values.ts";

/** Anthropic Messages request: `tools[]` ({name, description, input_schema}), `mcp_servers[]`. */

function toolName(tool: unknown): string | undefined {
  return stringAt(tool, "name");
}

function isHostedMcpTool(tool: unknown): boolean {
  return (stringAt(tool, "type") ?? "").startsWith("mcp");
}

function lastToolResults(body: JsonObject): ToolResultSeen[] {
  const messages = arrayAt(body, "messages") ?? [];
  const last = messages.at(-1);
  if (stringAt(last, "role") !== "user") return [];
  const names = new Map<string, string>();
  const previous = messages.at(-2);
  for (const block of arrayAt(previous, "content") ?? []) {
    const id = stringAt(block, "id");
    const name = stringAt(block, "name");
    if (stringAt(block, "type") === "tool_use" && id && name) names.set(id, name);
  }
  const results: ToolResultSeen[] = [];
  for (const block of arrayAt(last, "content") ?? []) {
    if (stringAt(block, "type") !== "tool_result") continue;
    const callId = stringAt(block, "tool_use_id") ?? "";
    const name = names.get(callId);
    results.push({ callId, output: (block as JsonObject).content ?? "", ...(name ? { name } : {}) });
  }
  return results;
}

export const anthropicRequest: RequestSide = {
  inspect(body): RequestInfo {
    const tools: ToolDefinition[] = [];
    for (const tool of arrayAt(body, "tools") ?? []) {
      const name = toolName(tool);
      if (!name || isHostedMcpTool(tool)) continue;
      const description = stringAt(tool, "description");
      tools.push({
        name,
        ...(description !== undefined ? { description } : {}),
        ...(isObject(tool) && tool.input_schema !== undefined ? { inputSchema: tool.input_schema } : {}),
      });
    }
    return { tools, streaming: body.stream === true, toolResults: lastToolResults(body) };
  },

  removeTools(body, remove) {
    const tools = arrayAt(body, "tools");
    if (!tools) return [];
    const removed: string[] = [];
    body.tools = tools.filter((tool) => {
      const name = toolName(tool);
      if (name === undefined || isHostedMcpTool(tool) || !remove(name)) return true;
      removed.push(name);
      return false;
    });
    const choice = objectAt(body, "tool_choice");
    const chosen = stringAt(choice, "name");
    if (chosen !== undefined && removed.some((name) => name.toLowerCase() === chosen.toLowerCase())) {
      body.tool_choice = { type: "auto" };
    }
    if ((body.tools as unknown[]).length === 0) {
      delete body.tools;
      delete body.tool_choice;
    }
    return removed;
  },

  hostedMcp(body) {
    const found: HostedConnector[] = [];
    for (const server of arrayAt(body, "mcp_servers") ?? []) {
      found.push({ label: stringAt(server, "name") ?? "", url: stringAt(server, "url") ?? "" });
    }
    for (const tool of arrayAt(body, "tools") ?? []) {
      if (isHostedMcpTool(tool)) {
        found.push({ label: stringAt(tool, "mcp_server_name") ?? stringAt(tool, "name") ?? "", url: "" });
      }
    }
    return found;
  },

  removeHostedMcp(body) {
    const found = this.hostedMcp(body);
    delete body.mcp_servers;
    const tools = arrayAt(body, "tools");
    if (tools) body.tools = tools.filter((tool) => !isHostedMcpTool(tool));
    return found;
  },
};
