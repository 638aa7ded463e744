import { describe, expect, it } from "vitest";
import type { PolicyDocument } from "../../src/policy/types.ts";
import { llmDialectsFor, mcpRouting } from "../helpers/route-table.ts";

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
    const path = (connection: Parameters<typeof mcpRouting>[1], pathname: string) => {
      const routing = mcpRouting(policies, connection, pathname);
      return routing?.kind === "server" ? routing.path : routing;
    };
    const github = { serverName: "mcp.github.com", port: 443, tls: true };
    expect(path(github, "/mcp")).toBe("/github");
    expect(path(github, "/other")).toBe("/github/other");
    const legacy = { serverName: "mcp.internal", port: 8080, tls: false };
    expect(path(legacy, "/sse")).toBe("/legacy");
    expect(path(legacy, "/message")).toBe("/legacy/message");
    expect(path({ ...legacy, tls: true }, "/sse")).toBeUndefined();
    expect(path({ ...github, port: 8443 }, "/mcp")).toBeUndefined();
  });

  // Issue 10 class 13: only the first server declared on a host:port was judged.
  const shared = [
    {
      namespace: "agents",
      name: "shared",
      spec: {
        failClosed: true,
        servers: [
          { name: "github", transport: "StreamableHTTP", url: "http://localhost:3000/github/mcp" },
          { name: "notes", transport: "StreamableHTTP", url: "http://localhost:3000/notes/mcp" },
          { name: "root", transport: "StreamableHTTP", url: "http://10.1.2.3:4000/mcp" },
        ],
      },
    },
  ] as unknown as PolicyDocument[];
  const origin = { serverName: "localhost", port: 3000, tls: false };
  const route = (connection: Parameters<typeof mcpRouting>[1], pathname: string) =>
    mcpRouting(shared, connection, pathname);

  it("judges every server of an origin by the longest base path, case and spelling aside", () => {
    expect(route(origin, "/github/mcp")).toMatchObject({ server: "github", path: "/github" });
    expect(route(origin, "/notes/mcp")).toMatchObject({ server: "notes", path: "/notes" });
    expect(route(origin, "/NOTES/MCP")).toMatchObject({ server: "notes", path: "/notes" });
    expect(route(origin, "/%6Eotes/mcp")).toMatchObject({ server: "notes" });
    expect(route(origin, "/github/../notes/mcp")).toMatchObject({ server: "notes" });
    expect(route(origin, "/github/%2e%2e/notes/mcp")).toMatchObject({ server: "notes" });
    expect(route(origin, "/github\\..\\notes/mcp")).toMatchObject({ server: "notes" });
    for (const name of ["127.0.0.1", "LOCALHOST.", "[::1]", "2130706433", "127.1"]) {
      expect(route({ ...origin, serverName: name }, "/notes/mcp")).toMatchObject({ server: "notes" });
    }
    const byAddress = {
      serverName: "db.internal",
      port: 4000,
      tls: false,
      originalDestination: { address: "10.1.2.3" },
    };
    expect(route(byAddress, "/mcp")).toMatchObject({ server: "root" });
  });

  it("refuses paths outside every declared base under failClosed, and paths read two ways", () => {
    expect(route(origin, "/admin/mcp")).toEqual({
      kind: "outside",
      failClosed: true,
      servers: ["github", "notes"],
    });
    expect(route(origin, "/github/../admin")).toMatchObject({ kind: "outside" });
    for (const bad of ["/github%2F..%2Fadmin", "/github/mcp%00", "/github%5cmcp"]) {
      expect(() => route(origin, bad)).toThrow(/encoded slash/);
    }
  });
});
