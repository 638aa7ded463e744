import { readFileSync } from "node:fs";
import { basename } from "node:path";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { InputError } from "../kernel/errors.ts";
import { compileInspection, findingsAtOrAbove, withFindings } from "./engine.ts";
import {
  JUDGE_DEFAULTS,
  JudgeConfigError,
  type JudgeProvider,
  type JudgeSpec,
  judgeSettings,
  ModelJudge,
  outcomeFindings,
} from "./judge.ts";
import { inspectListing } from "./listing.ts";
import { type ScannedItem, toJsonReport, toSarifReport, toTableReport } from "./report.ts";
import { flattenToolEntries, toToolDefinition } from "./tool-shapes.ts";
import { type InspectionConfig, SEVERITIES, type Severity, type ToolDefinition } from "./types.ts";

export interface ScanOptions {
  file?: string;
  url?: string;
  transport: "streamable-http" | "sse";
  output: "table" | "json" | "sarif";
  threshold?: Severity;
  policy?: string;
  server?: string;
  /** Ask the model judge about definitions the rules did not flag (settings from the policy, overridden here). */
  judge?: {
    provider?: JudgeProvider;
    model?: string;
    endpoint?: string;
    keyEnv?: string;
  };
}

/** A definition to inspect; prompts and resources are mapped onto the tool shape. */
interface Listed {
  kind: ScannedItem["kind"];
  server: string;
  definition: ToolDefinition;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Accepts a tools/list result, a JSON-RPC response carrying one, `{tools}` or a bare array. */
export function toolsFromDocument(document: unknown, defaultServer: string): Listed[] {
  let value = document;
  if (isRecord(value) && isRecord(value.result)) value = value.result;
  let server = defaultServer;
  if (isRecord(value)) {
    if (typeof value.server === "string") server = value.server;
    else if (typeof value.package === "string") server = value.package;
    value = value.tools;
  }
  if (!Array.isArray(value))
    throw new InputError(
      "expected a tools/list result ({tools: [...]}), a JSON-RPC response or an array of tools",
    );
  return flattenToolEntries(value).map((entry, index) => {
    const definition = toToolDefinition(entry);
    if (!definition) throw new InputError(`tool #${index} has no string 'name'`);
    return { kind: "tool", server, definition };
  });
}

/** `spec.inspection` of the first MCPPolicy in a YAML/JSON file. */
export async function inspectionFromPolicy(text: string, file: string): Promise<InspectionConfig> {
  const { parseAllDocuments } = await import("yaml");
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) throw new InputError(`${file}: ${document.errors[0]!.message}`);
    const value = document.toJS() as unknown;
    if (isRecord(value) && value.kind === "MCPPolicy") {
      const spec = isRecord(value.spec) ? value.spec : {};
      return isRecord(spec.inspection) ? (spec.inspection as InspectionConfig) : {};
    }
  }
  throw new InputError(`${file}: no MCPPolicy document found`);
}

function promptDefinition(prompt: Record<string, unknown>): ToolDefinition {
  const args = Array.isArray(prompt.arguments) ? prompt.arguments : [];
  const properties: Record<string, unknown> = {};
  for (const arg of args)
    if (isRecord(arg) && typeof arg.name === "string")
      properties[arg.name] = { description: arg.description };
  return {
    name: String(prompt.name),
    ...(typeof prompt.title === "string" ? { title: prompt.title } : {}),
    ...(typeof prompt.description === "string" ? { description: prompt.description } : {}),
    inputSchema: { type: "object", properties },
  };
}

function resourceDefinition(resource: Record<string, unknown>): ToolDefinition {
  return {
    name: String(resource.name),
    ...(typeof resource.title === "string" ? { title: resource.title } : {}),
    ...(typeof resource.description === "string" ? { description: resource.description } : {}),
    annotations: { uri: resource.uri, mimeType: resource.mimeType },
  };
}

/** Field paths in the words of the listing the definition came from. */
function relabel(kind: Listed["kind"], field: string): string {
  if (kind === "prompt") return field.replace(/^inputSchema\.properties/, "arguments");
  if (kind === "resource") return field.replace(/^annotations\./, "");
  return field;
}

async function listFromServer(url: string, transportName: ScanOptions["transport"], label?: string) {
  let endpoint: URL;
  try {
    endpoint = new URL(url);
  } catch {
    throw new InputError(`--url '${url}' is not a URL`);
  }
  // The SDK is loaded only for live scans: it takes longer to import than a file scan takes to run.
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const transport: Transport =
    transportName === "sse"
      ? new (await import("@modelcontextprotocol/sdk/client/sse.js")).SSEClientTransport(endpoint)
      : new (
          await import("@modelcontextprotocol/sdk/client/streamableHttp.js")
        ).StreamableHTTPClientTransport(endpoint);
  const client = new Client({ name: "toolwall-scan", version: "0.1.0" });
  const timeout = AbortSignal.timeout(30_000);
  const options = { signal: timeout, timeout: 30_000 };
  await client.connect(transport, options);
  try {
    const server = label ?? client.getServerVersion()?.name ?? endpoint.host;
    const capabilities = client.getServerCapabilities() ?? {};
    const listed: Listed[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, options);
      for (const tool of page.tools)
        listed.push({ kind: "tool", server, definition: toToolDefinition(tool) ?? { name: tool.name } });
      cursor = page.nextCursor;
    } while (cursor);
    if (capabilities.prompts) {
      do {
        const page = await client.listPrompts(cursor ? { cursor } : {}, options);
        for (const prompt of page.prompts)
          listed.push({ kind: "prompt", server, definition: promptDefinition(prompt) });
        cursor = page.nextCursor;
      } while (cursor);
    }
    if (capabilities.resources) {
      do {
        const page = await client.listResources(cursor ? { cursor } : {}, options);
        for (const resource of page.resources)
          listed.push({ kind: "resource", server, definition: resourceDefinition(resource) });
        cursor = page.nextCursor;
      } while (cursor);
    }
    return listed;
  } finally {
    await client.close();
  }
}

function readFile(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new InputError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/** Runs a scan and writes the report; resolves to the exit code (1 when a finding reaches the threshold). */
export async function runScan(options: ScanOptions, write: (text: string) => void): Promise<number> {
  if (Boolean(options.file) === Boolean(options.url))
    throw new InputError("give exactly one of --file or --url");
  const policyConfig = options.policy
    ? await inspectionFromPolicy(readFile(options.policy), options.policy)
    : {};
  const threshold = options.threshold ?? policyConfig.threshold ?? "High";
  if (!SEVERITIES.includes(threshold))
    throw new InputError(`--threshold must be one of ${SEVERITIES.join(", ")}, got '${threshold}'`);
  let compiled: ReturnType<typeof compileInspection>;
  try {
    compiled = compileInspection({ ...policyConfig, threshold });
  } catch (error) {
    throw new InputError((error as Error).message);
  }
  let listed: Listed[];
  if (options.file) {
    let document: unknown;
    try {
      document = JSON.parse(readFile(options.file));
    } catch (error) {
      if (error instanceof InputError) throw error;
      throw new InputError(`${options.file} is not valid JSON: ${(error as Error).message}`);
    }
    listed = toolsFromDocument(document, options.server ?? basename(options.file).replace(/\.json$/, ""));
  } else {
    listed = await listFromServer(options.url!, options.transport, options.server);
  }
  let results = inspectListing(
    listed.map(({ server, definition }) => ({ server, tool: definition })),
    compiled,
  );
  if (options.judge)
    results = await judged(listed, results, { ...policyConfig.judge, ...options.judge }, compiled);
  const items: ScannedItem[] = listed.map(({ kind, server, definition }, i) => ({
    kind,
    server,
    name: definition.name,
    findings: findingsAtOrAbove(results[i]!.findings, threshold).map((f) => ({
      ...f,
      field: relabel(kind, f.field),
    })),
  }));
  if (options.output === "json") write(toJsonReport(items));
  else if (options.output === "sarif") write(toSarifReport(items, options.file));
  else write(toTableReport(items, threshold));
  return items.some((item) => item.findings.length > 0) ? 1 : 0;
}

/** The results with the model judge's verdicts on what the rules did not flag (one process, no shared store). */
async function judged(
  listed: readonly Listed[],
  results: ReturnType<typeof inspectListing>,
  overrides: Partial<JudgeSpec> & { keyEnv?: string },
  compiled: ReturnType<typeof compileInspection>,
): Promise<ReturnType<typeof inspectListing>> {
  const { keyEnv, ...fromPolicy } = overrides;
  const spec: JudgeSpec = {
    ...JUDGE_DEFAULTS,
    ...fromPolicy,
    enabled: true,
    ...(keyEnv ? { apiKey: { env: keyEnv } } : {}),
  };
  let judge: ModelJudge;
  try {
    judge = new ModelJudge({ settings: judgeSettings(spec) });
  } catch (error) {
    if (error instanceof JudgeConfigError) throw new InputError(`--judge: ${error.message}`);
    throw error;
  }
  const wanted = listed
    .map(({ definition }, i) => ({ hash: results[i]!.hash, tool: definition, i }))
    .filter(({ i }) => judge.wants(results[i]!.findings, results[i]!.flagged));
  const outcomes = await judge.review(wanted);
  return results.map((result) =>
    withFindings(result, outcomeFindings(outcomes.get(result.hash), judge.settings), compiled),
  );
}
