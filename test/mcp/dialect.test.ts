import { describe, expect, it } from "vitest";
import { classify, idKey, maxJsonDepth, parseBody, parseJson } from "../../src/dialects/mcp/jsonrpc.ts";
import { type McpRouteError, proxyPathFor, resolveTarget } from "../../src/dialects/mcp/routing.ts";
import type { DeclaredServer } from "../../src/policy/servers.ts";

describe("JSON-RPC classification", () => {
  it("tells requests, notifications, responses and invalid messages apart", () => {
    expect(classify({ jsonrpc: "2.0", id: 1, method: "tools/call" }).kind).toBe("request");
    expect(classify({ jsonrpc: "2.0", method: "notifications/initialized" }).kind).toBe("notification");
    expect(classify({ jsonrpc: "2.0", id: "a", result: {} }).kind).toBe("response");
    expect(classify({ jsonrpc: "2.0", id: null, error: { code: 1, message: "x" } }).kind).toBe("response");
    for (const bad of [
      [],
      1,
      { id: 1, method: "x" },
      { jsonrpc: "2.0", id: {}, method: "x" },
      { jsonrpc: "2.0" },
    ]) {
      expect(classify(bad).kind).toBe("invalid");
    }
  });

  it("parses single messages and batches, and rejects what is not JSON or an empty batch", () => {
    expect(parseBody('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toMatchObject({ batch: false });
    expect(parseBody('[{"jsonrpc":"2.0","id":1,"method":"ping"},7]').messages.map((m) => m.kind)).toEqual([
      "request",
      "invalid",
    ]);
    expect(() => parseBody("{")).toThrow(/not JSON/);
    expect(() => parseBody("[]")).toThrow(/empty batch/);
  });

  it("reads JSON as clients do (a leading BOM dropped) and refuses nesting past the limit by name", () => {
    expect(parseJson('\uFEFF{"a":1}', "answer")).toEqual({ a: 1 });
    expect(parseJson(`${"[".repeat(maxJsonDepth)}${"]".repeat(maxJsonDepth)}`, "answer")).toBeInstanceOf(
      Array,
    );
    const deep = `{"params":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    expect(() => parseBody(deep)).toThrow(`body nests deeper than the limit of ${maxJsonDepth} levels`);
    // Brackets inside strings are text, not nesting.
    expect(parseJson(`{"a":"${"[".repeat(1000)}\\"{"}`, "answer")).toEqual({ a: `${"[".repeat(1000)}"{` });
  });

  it("matches answers to requests as the MCP SDK client does: by Number(id)", () => {
    for (const spelling of [1, "1", " 1 ", "01", "0x1", "1e0", "1.0"]) expect(idKey(spelling)).toBe(idKey(1));
    expect(idKey("")).toBe(idKey(0));
    expect(idKey("a")).not.toBe(idKey("b"));
    expect(idKey("toolwall-recheck-1")).toBe("s:toolwall-recheck-1");
  });
});

describe("routing /mcp/<server>", () => {
  const servers = new Map<string, DeclaredServer>([
    [
      "github",
      { name: "github", transport: "StreamableHTTP", url: new URL("https://mcp.github.com/api/mcp") },
    ],
    ["legacy", { name: "legacy", transport: "SSE", url: new URL("http://127.0.0.1:3001/sse") }],
    ["files", { name: "files", transport: "Stdio" }],
  ]);

  it("sends /<server> to the declared URL and /<server>/<rest> relative to it, with the client's query", () => {
    expect(resolveTarget(servers, "/GitHub", "").url.href).toBe("https://mcp.github.com/api/mcp");
    expect(resolveTarget(servers, "/legacy/message", "?sessionId=abc").url.href).toBe(
      "http://127.0.0.1:3001/message?sessionId=abc",
    );
  });

  it("refuses unknown servers, servers without a URL and paths that leave the server's origin", () => {
    const status = (path: string) => {
      try {
        resolveTarget(servers, path, "");
      } catch (error) {
        return (error as McpRouteError).status;
      }
      return 200;
    };
    expect(status("/nope")).toBe(404);
    expect(status("/files")).toBe(400);
    for (const path of ["/github/http://evil.example/x", "/github//evil.example/x"]) {
      const url = resolveTarget(servers, path, "").url;
      expect(url.origin).toBe("https://mcp.github.com");
      expect(url.pathname.startsWith("/api/")).toBe(true);
    }
  });

  // Issue 10 class 12: `/mcp/notes/../github/mcp` ran a tool on github judged as notes, and
  // `/mcp/github/../admin/mcp` reached an undeclared server.
  it("normalises the path before routing: the server named is the server reached, within its base", () => {
    const shared = new Map<string, DeclaredServer>([
      ["github", { name: "github", transport: "StreamableHTTP", url: new URL("http://h:1/github/mcp") }],
      ["notes", { name: "notes", transport: "StreamableHTTP", url: new URL("http://h:1/notes/mcp") }],
    ]);
    const reach = (path: string) => {
      try {
        const target = resolveTarget(shared, path, "");
        return `${target.server.name} ${target.url.pathname}`;
      } catch (error) {
        return String((error as McpRouteError).status);
      }
    };
    expect(reach("/notes/../github/mcp")).toBe("github /github/mcp");
    expect(reach("/notes/%2e%2e/github/mcp")).toBe("github /github/mcp");
    expect(reach("/notes/.%2E/github/mcp")).toBe("github /github/mcp");
    expect(reach("/notes\\..\\github\\mcp")).toBe("github /github/mcp");
    expect(reach("/github/../admin/mcp")).toBe("404");
    expect(reach("/github/x/../../../admin/mcp")).toBe("404");
    expect(reach("/github/mcp/../../notes/mcp")).toBe("notes /notes/mcp");
    expect(reach("/github/..%2Fadmin/mcp")).toBe("400");
    expect(reach("/github/%5C..%5Cadmin")).toBe("400");
    expect(reach("/%zz")).toBe("400");
  });

  it("rewrites a legacy endpoint to a proxy path, and refuses one it cannot address", () => {
    const legacy = servers.get("legacy") as Parameters<typeof proxyPathFor>[1];
    expect(proxyPathFor("/mcp", legacy, new URL("http://127.0.0.1:3001/message?sessionId=1"))).toBe(
      "/mcp/legacy/message?sessionId=1",
    );
    expect(proxyPathFor("/mcp", legacy, new URL("http://other:3001/message"))).toBeUndefined();
    // A sidecar's client talks to the origin: the endpoint keeps its own path (it was /legacy/message).
    expect(proxyPathFor("", legacy, new URL("http://127.0.0.1:3001/message?sessionId=1"))).toBe(
      "/message?sessionId=1",
    );
    const github = servers.get("github") as Parameters<typeof proxyPathFor>[1];
    expect(proxyPathFor("/mcp", github, new URL("https://mcp.github.com/elsewhere"))).toBeUndefined();
  });
});
