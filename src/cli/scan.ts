import type { Severity } from "../inspect/types.ts";
import { type Command, UsageError } from "./args.ts";

const usage = `Usage: toolwall scan (--file tools.json | --url URL [--transport streamable-http|sse]) [options]

Inspects tool definitions for poisoning the way the sidecar does: credential theft, exfiltration,
hidden instructions, shell injection, path traversal and custom patterns, after normalising hidden
text (invisible Unicode, homoglyphs, HTML comments, ANSI escapes, base64); every sentence is also
scored by the phrasing model (rule phrasing.instruction, with its score).

  --file FILE          a tools/list result, a JSON-RPC response carrying one, or an array of tools
                       (MCP, Anthropic, OpenAI or Gemini tool shapes)
  --url URL            an MCP server to connect to; lists its tools, prompts and resources
  --transport NAME     streamable-http (default) or sse (legacy HTTP+SSE, URL of the /sse endpoint)
  --server NAME        server name to report (default: the file name or the server's own name)
  --output FORMAT      table (default), json or sarif
  --threshold LEVEL    Low | Medium | High | Critical (default: the policy's threshold, else High);
                       findings below it are not reported
  --policy FILE        take detectors, custom patterns, threshold and judge from an MCPPolicy's spec.inspection
  --judge              also ask the model judge about every definition the rules did not flag
                       (spec.inspection.judge of --policy, or the options below; Anthropic, OpenAI or
                       Gemini API). A judge that cannot answer is a Critical finding.
  --judge-provider P   Anthropic | OpenAI | Gemini
  --judge-model NAME   model to ask
  --judge-endpoint URL provider API base URL (default the provider's public API)
  --judge-key-env VAR  environment variable holding the API key

Exit status: 0 no finding reached the threshold, 1 at least one did, 2 usage or connection error.`;

function oneOf<T extends string>(
  name: string,
  value: unknown,
  allowed: readonly T[],
  fallback?: T,
): T | undefined {
  if (value === undefined) return fallback;
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${name} must be one of ${allowed.join(", ")}, got '${String(value)}'`);
}

export const scanCommand: Command = {
  path: ["scan"],
  summary: "inspect tool definitions (a file or a live MCP server) for poisoning",
  usage,
  options: {
    file: { type: "string" },
    url: { type: "string" },
    transport: { type: "string" },
    server: { type: "string" },
    output: { type: "string", short: "o" },
    threshold: { type: "string" },
    policy: { type: "string" },
    judge: { type: "boolean" },
    "judge-provider": { type: "string" },
    "judge-model": { type: "string" },
    "judge-endpoint": { type: "string" },
    "judge-key-env": { type: "string" },
  },
  async run(values) {
    const { runScan } = await import("../inspect/scan.ts");
    const threshold = oneOf<Severity>("threshold", values.threshold, ["Low", "Medium", "High", "Critical"]);
    try {
      return await runScan(
        {
          transport: oneOf("transport", values.transport, ["streamable-http", "sse"], "streamable-http")!,
          output: oneOf("output", values.output, ["table", "json", "sarif"], "table")!,
          ...(typeof values.file === "string" ? { file: values.file } : {}),
          ...(typeof values.url === "string" ? { url: values.url } : {}),
          ...(typeof values.server === "string" ? { server: values.server } : {}),
          ...(typeof values.policy === "string" ? { policy: values.policy } : {}),
          ...(threshold ? { threshold } : {}),
          ...(values.judge === true
            ? {
                judge: {
                  ...(values["judge-provider"] !== undefined
                    ? {
                        provider: oneOf("judge-provider", values["judge-provider"], [
                          "Anthropic",
                          "OpenAI",
                          "Gemini",
                        ])!,
                      }
                    : {}),
                  ...(typeof values["judge-model"] === "string" ? { model: values["judge-model"] } : {}),
                  ...(typeof values["judge-endpoint"] === "string"
                    ? { endpoint: values["judge-endpoint"] }
                    : {}),
                  ...(typeof values["judge-key-env"] === "string" ? { keyEnv: values["judge-key-env"] } : {}),
                },
              }
            : {}),
        },
        (text) => process.stdout.write(text),
      );
    } catch (error) {
      if (error instanceof UsageError) throw error;
      // Connection and protocol failures are errors of the scan, not findings: exit 2 with the cause.
      throw new UsageError(`scan failed: ${(error as Error).message}`);
    }
  },
};
