import type { RequestInfo, RequestSide, ToolDefinition, ToolResultSeen } from "../../engine/dialect.ts";
import { arrayAt, type JsonObject, objectAt, stringAt } from "../../engine/json-values.ts";

/**
 * OpenAI Chat Completions request: `tools[]` of `{type: "function", function: {name, description,
 * parameters}}` (or `{type: "custom", custom: {name, description}}`), legacy `functions[]`.
 */

function definitionOf(tool: unknown): ToolDefinition | undefined {
  const inner = objectAt(tool, "function") ?? objectAt(tool, "custom");
  const name = stringAt(inner, "name");
  if (!inner || !name) return undefined;
  const description = stringAt(inner, "description");
  return {
    name,
    ...(description !== undefined ? { description } : {}),
    ...(inner.parameters !== undefined ? { inputSchema: inner.parameters } : {}),
  };
}

function lastToolResults(body: JsonObject): ToolResultSeen[] {
  const messages = arrayAt(body, "messages") ?? [];
  let start = messages.length;
  while (start > 0 && stringAt(messages[start - 1], "role") === "tool") start--;
  const names = new Map<string, string>();
  for (const call of arrayAt(messages[start - 1], "tool_calls") ?? []) {
    const id = stringAt(call, "id");
    const name = stringAt(objectAt(call, "function"), "name");
    if (id && name) names.set(id, name);
  }
  return messages.slice(start).map((message) => {
    const callId = stringAt(message, "tool_call_id") ?? "";
    const name = names.get(callId);
    return { callId, output: (message as JsonObject).content ?? "", ...(name ? { name } : {}) };
  });
}

export const openaiChatRequest: RequestSide = {
  inspect(body): RequestInfo {
    const tools: ToolDefinition[] = [];
    for (const tool of arrayAt(body, "tools") ?? []) {
      const definition = definitionOf(tool);
      if (definition) tools.push(definition);
    }
    for (const fn of arrayAt(body, "functions") ?? []) {
      const definition = definitionOf({ function: fn });
      if (definition) tools.push(definition);
    }
    return { tools, streaming: body.stream === true, toolResults: lastToolResults(body) };
  },

  removeTools(body, remove) {
    const removed: string[] = [];
    const keep = (tool: unknown) => {
      const name = definitionOf(tool)?.name;
      if (name === undefined || !remove(name)) return true;
      removed.push(name);
      return false;
    };
    const tools = arrayAt(body, "tools");
    if (tools) body.tools = tools.filter(keep);
    const functions = arrayAt(body, "functions");
    if (functions) body.functions = functions.filter((fn) => keep({ function: fn }));
    const chosen = stringAt(objectAt(body, "tool_choice"), "type")
      ? stringAt(objectAt(objectAt(body, "tool_choice"), "function"), "name")
      : undefined;
    if (chosen !== undefined && removed.some((name) => name.toLowerCase() === chosen.toLowerCase())) {
      body.tool_choice = "auto";
    }
    if (Array.isArray(body.tools) && body.tools.length === 0) {
      delete body.tools;
      delete body.tool_choice;
      delete body.parallel_tool_calls;
    }
    if (Array.isArray(body.functions) && body.functions.length === 0) {
      delete body.functions;
      delete body.function_call;
    }
    return removed;
  },

  hostedMcp: () => [],
  removeHostedMcp: () => [],
};
