import type { ToolDefinition } from "./types.ts";

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function optionalString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function definition(
  name: unknown,
  description: unknown,
  inputSchema: unknown,
  rest: Record<string, unknown> = {},
): ToolDefinition | undefined {
  if (typeof name !== "string") return undefined;
  const tool: ToolDefinition = { name };
  const title = optionalString(rest.title);
  if (title !== undefined) tool.title = title;
  if (typeof description === "string") tool.description = description;
  if (inputSchema !== undefined) tool.inputSchema = inputSchema;
  if (rest.outputSchema !== undefined) tool.outputSchema = rest.outputSchema;
  if (rest.annotations !== undefined) tool.annotations = rest.annotations;
  return tool;
}

/**
 * Maps one tool entry of any supported shape onto a ToolDefinition, so MCP listings and the tools[]
 * of LLM requests go through one engine: MCP (`inputSchema`), Anthropic Messages (`input_schema`),
 * OpenAI Chat (`{type: "function", function: {…}}`), OpenAI Responses (`{type: "function", name,
 * parameters}`) and Gemini function declarations (`parameters` / `parametersJsonSchema`). Returns
 * undefined for entries that are not function tools (hosted tools such as web search).
 */
export function toToolDefinition(entry: unknown): ToolDefinition | undefined {
  if (!isRecord(entry)) return undefined;
  if (isRecord(entry.function))
    return definition(entry.function.name, entry.function.description, entry.function.parameters);
  if ("inputSchema" in entry) return definition(entry.name, entry.description, entry.inputSchema, entry);
  if ("input_schema" in entry) return definition(entry.name, entry.description, entry.input_schema);
  if ("parametersJsonSchema" in entry)
    return definition(entry.name, entry.description, entry.parametersJsonSchema);
  if ("parameters" in entry) return definition(entry.name, entry.description, entry.parameters);
  if (entry.type === undefined || entry.type === "function" || entry.type === "custom")
    return definition(entry.name, entry.description, undefined, entry);
  return undefined;
}

/** Gemini nests declarations: `tools: [{functionDeclarations: [...]}]`; other shapes are flat. */
export function flattenToolEntries(entries: readonly unknown[]): unknown[] {
  return entries.flatMap((entry) =>
    isRecord(entry) && Array.isArray(entry.functionDeclarations) ? entry.functionDeclarations : [entry],
  );
}
