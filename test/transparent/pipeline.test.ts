import { describe, expect, it } from "vitest";
import type { PolicyDocument } from "../../src/policy/types.ts";
import { llmDialectsFor, mcpServerPath } from "../../src/transparent/pipeline.ts";

const policies = [
  {
    namespace: "agents",
    name: "p",
    spec: {
      servers: [
        { name: "github", transport: "StreamableHTTP", url: "https://mcp.github.com/mcp" },
        { name: "legacy", transport: "SSE", url: "http://mcp.internal:8080/sse" },
      ],
      llm: { providers: [{ host: "vllm.internal:8000", dialect: "OpenAIChat" }] },
    },
  },
] as unknown as PolicyDocument[];

describe("routing inspected connections into the pipeline", () => {
  it("finds the dialects of built-in and declared LLM providers by host and port", () => {
    expect(llmDialectsFor(policies, "api.anthropic.com", 443)?.map((d) => d.name)).toEqual([
      "anthropic-messages",
    ]);
    expect(llmDialectsFor(policies, "us-east5-aiplatform.googleapis.com", 443)?.map((d) => d.name)).toEqual([
      "gemini",
    ]);
    expect(llmDialectsFor(policies, "vllm.internal", 8000)?.map((d) => d.name)).toEqual(["openai-chat"]);
    expect(llmDialectsFor(policies, "vllm.internal", 9000)).toBeUndefined();
    expect(llmDialectsFor(policies, "mcp.github.com", 443)).toBeUndefined();
  });

  it("maps a declared MCP server's URL and its neighbours to the MCP route's paths", () => {
    const github = { serverName: "mcp.github.com", port: 443, tls: true };
    expect(mcpServerPath(policies, github, "/mcp")).toBe("/github");
    expect(mcpServerPath(policies, github, "/other")).toBe("/github/other");
    const legacy = { serverName: "mcp.internal", port: 8080, tls: false };
    expect(mcpServerPath(policies, legacy, "/sse")).toBe("/legacy");
    expect(mcpServerPath(policies, legacy, "/message")).toBe("/legacy/message");
    expect(mcpServerPath(policies, { ...legacy, tls: true }, "/sse")).toBeUndefined();
    expect(mcpServerPath(policies, { ...github, port: 8443 }, "/mcp")).toBeUndefined();
  });
});
