import type { RequestInfo, RequestSide, ToolDefinition, ToolResultSeen } from "../../engine/dialect.ts";
import { arrayAt, isObject, type JsonObject, objectAt, stringAt } from "../../engine/json-values.ts";

/**
 * Gemini generateContent request: `tools[]` entries hold `functionDeclarations[]` (REST also takes
 * `function_declarations`) next to provider tools (`googleSearch`, `codeExecution`…); tool results are
 * `functionResponse` parts.
 */

const declarationKeys = ["functionDeclarations", "function_declarations"] as const;

function declarationsOf(tool: unknown): { key: string; list: unknown[] } | undefined {
  for (const key of declarationKeys) {
    const list = arrayAt(tool, key);
    if (list) return { key, list };
  }
  return undefined;
}

function lastToolResults(body: JsonObject): ToolResultSeen[] {
  const last = (arrayAt(body, "contents") ?? []).at(-1);
  const results: ToolResultSeen[] = [];
  for (const part of arrayAt(last, "parts") ?? []) {
    const response = objectAt(part, "functionResponse") ?? objectAt(part, "function_response");
    if (!response) continue;
    const name = stringAt(response, "name");
    results.push({
      callId: stringAt(response, "id") ?? "",
      output: response.response ?? {},
      ...(name ? { name } : {}),
    });
  }
  return results;
}

export const geminiRequest: RequestSide = {
  inspect(body): RequestInfo {
    const tools: ToolDefinition[] = [];
    for (const tool of arrayAt(body, "tools") ?? []) {
      for (const declaration of declarationsOf(tool)?.list ?? []) {
        const name = stringAt(declaration, "name");
        if (!name || !isObject(declaration)) continue;
        const description = stringAt(declaration, "description");
        const schema = declaration.parametersJsonSchema ?? declaration.parameters;
        tools.push({
          name,
          ...(description !== undefined ? { description } : {}),
          ...(schema !== undefined ? { inputSchema: schema } : {}),
        });
      }
    }
    return { tools, streaming: false, toolResults: lastToolResults(body) };
  },

  removeTools(body, remove) {
    const tools = arrayAt(body, "tools");
    if (!tools) return [];
    const removed: string[] = [];
    const kept: unknown[] = [];
    for (const tool of tools) {
      const declarations = declarationsOf(tool);
      if (!declarations || !isObject(tool)) {
        kept.push(tool);
        continue;
      }
      const remaining = declarations.list.filter((declaration) => {
        const name = stringAt(declaration, "name");
        if (name === undefined || !remove(name)) return true;
        removed.push(name);
        return false;
      });
      if (remaining.length > 0) kept.push({ ...tool, [declarations.key]: remaining });
      else if (Object.keys(tool).length > 1) {
        const rest = { ...tool };
        delete rest[declarations.key];
        kept.push(rest);
      }
    }
    if (removed.length === 0) return [];
    if (kept.length > 0) body.tools = kept;
    else delete body.tools;
    const config = objectAt(objectAt(body, "toolConfig"), "functionCallingConfig");
    const allowed = arrayAt(config, "allowedFunctionNames");
    if (config && allowed) {
      const lower = new Set(removed.map((name) => name.toLowerCase()));
      config.allowedFunctionNames = allowed.filter(
        (name) => typeof name !== "string" || !lower.has(name.toLowerCase()),
      );
    }
    return removed;
  },

  hostedMcp: () => [],
  removeHostedMcp: () => [],
};
