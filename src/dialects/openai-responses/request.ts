import type {
  HostedConnector,
  RequestInfo,
  RequestSide,
  ToolDefinition,
  ToolResultSeen,
} from "../../engine/dialect.ts";
import { arrayAt, isObject, type JsonObject, objectAt, stringAt } from "../../engine/json-values.ts";

/**
 * OpenAI Responses request: `tools[]` holds client tools (`{type: "function"|"custom", name,
 * description, parameters}`) and hosted ones (`web_search`, `mcp`…); `input[]` carries the
 * `function_call_output` items the client sends back.
 */

function isClientTool(tool: unknown): boolean {
  const type = stringAt(tool, "type");
  return (type === "function" || type === "custom") && stringAt(tool, "name") !== undefined;
}

function isHostedMcp(tool: unknown): boolean {
  return stringAt(tool, "type") === "mcp";
}

function lastToolResults(body: JsonObject): ToolResultSeen[] {
  const input = arrayAt(body, "input");
  if (!input) return [];
  let start = input.length;
  while (start > 0 && stringAt(input[start - 1], "type") === "function_call_output") start--;
  const names = new Map<string, string>();
  for (const item of input.slice(0, start)) {
    const callId = stringAt(item, "call_id");
    const name = stringAt(item, "name");
    if (stringAt(item, "type") === "function_call" && callId && name) names.set(callId, name);
  }
  return input.slice(start).map((item) => {
    const callId = stringAt(item, "call_id") ?? "";
    const name = names.get(callId);
    return { callId, output: (item as JsonObject).output ?? "", ...(name ? { name } : {}) };
  });
}

export const openaiResponsesRequest: RequestSide = {
  inspect(body): RequestInfo {
    const tools: ToolDefinition[] = [];
    for (const tool of arrayAt(body, "tools") ?? []) {
      if (!isClientTool(tool) || !isObject(tool)) continue;
      const description = stringAt(tool, "description");
      tools.push({
        name: stringAt(tool, "name")!,
        ...(description !== undefined ? { description } : {}),
        ...(tool.parameters !== undefined ? { inputSchema: tool.parameters } : {}),
      });
    }
    return { tools, streaming: body.stream === true, toolResults: lastToolResults(body) };
  },

  removeTools(body, remove) {
    const tools = arrayAt(body, "tools");
    if (!tools) return [];
    const removed: string[] = [];
    body.tools = tools.filter((tool) => {
      if (!isClientTool(tool)) return true;
      const name = stringAt(tool, "name")!;
      if (!remove(name)) return true;
      removed.push(name);
      return false;
    });
    const chosen = stringAt(objectAt(body, "tool_choice"), "name");
    if (chosen !== undefined && removed.some((name) => name.toLowerCase() === chosen.toLowerCase())) {
      body.tool_choice = "auto";
    }
    if ((body.tools as unknown[]).length === 0) {
      delete body.tools;
      delete body.tool_choice;
      delete body.parallel_tool_calls;
    }
    return removed;
  },

  hostedMcp(body) {
    return (arrayAt(body, "tools") ?? []).filter(isHostedMcp).map(
      (tool): HostedConnector => ({
        label: stringAt(tool, "server_label") ?? "",
        url: stringAt(tool, "server_url") ?? stringAt(tool, "connector_id") ?? "",
      }),
    );
  },

  removeHostedMcp(body) {
    const found = this.hostedMcp(body);
    const tools = arrayAt(body, "tools");
    if (tools) {
      body.tools = tools.filter((tool) => !isHostedMcp(tool));
      if ((body.tools as unknown[]).length === 0) {
        delete body.tools;
        delete body.tool_choice;
      }
    }
    return found;
  },
};
