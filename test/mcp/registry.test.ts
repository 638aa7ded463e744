import { describe, expect, it } from "vitest";
import { PolicySet } from "../../src/policy/evaluate.ts";
import { parsePolicies } from "../../src/policy/load.ts";
import { declaredServers } from "../../src/policy/servers.ts";
import { SessionToolRegistry } from "../../src/registry/registry.ts";

describe("SessionToolRegistry", () => {
  it("maps a bare tool name to the server that listed it, case-insensitively", () => {
    const registry = new SessionToolRegistry();
    registry.observe("github", ["create_issue", "Search"]);
    expect(registry.serverOf("CREATE_ISSUE")).toBe("github");
    expect(registry.serverOf("search")).toBe("github");
    expect(registry.serverOf("Bash")).toBeUndefined();
  });

  it("records a second server offering the same name as a shadow, keeping the first owner", () => {
    const registry = new SessionToolRegistry();
    registry.observe("github", ["search"]);
    expect(registry.observe("evil", ["Search", "other"])).toEqual([
      { tool: "search", originalServer: "github", currentServer: "evil" },
    ]);
    expect(registry.serverOf("search")).toBe("github");
    expect(registry.observe("evil", ["search"])).toEqual([]);
    expect(registry.shadows()).toEqual([{ tool: "search", originalServer: "github", currentServer: "evil" }]);
  });

  it("forgets names a complete listing no longer offers, handing a shadowed name to its other server", () => {
    const registry = new SessionToolRegistry();
    registry.observe("a", ["one", "shared"]);
    registry.observe("b", ["shared"]);
    registry.observe("a", ["one"]);
    expect(registry.serverOf("shared")).toBe("b");
    expect(registry.shadows()).toEqual([]);
    registry.observe("a", []);
    expect(registry.serverOf("one")).toBeUndefined();
  });

  it("treats paginated listings as one listing: pages add, the last page settles what was dropped", () => {
    const registry = new SessionToolRegistry();
    registry.observe("s", ["old", "kept"]);
    registry.observe("s", ["kept"], { first: true, last: false });
    expect(registry.serverOf("old")).toBe("s");
    registry.observe("s", ["new"], { first: false, last: true });
    expect(registry.serverOf("old")).toBeUndefined();
    expect([...registry.toolsOf("s")].sort()).toEqual(["kept", "new"]);
    expect(registry.providers()).toEqual(
      expect.arrayContaining([
        { tool: "kept", server: "s" },
        { tool: "new", server: "s" },
      ]),
    );
  });
});

describe("declaredServers", () => {
  const set = (yaml: string) => PolicySet.fromDocuments(parsePolicies(yaml, "p.yaml").policies);
  const policy = (name: string, url: string) => `
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: ${name}, namespace: ns }
spec:
  servers:
    - { name: github, transport: StreamableHTTP, url: "${url}" }
    - { name: files, transport: Stdio, command: [npx, server-filesystem] }
`;

  it("collects the servers of every policy by name, with parsed URLs", () => {
    const servers = declaredServers(set(policy("a", "https://mcp.github.com/mcp")));
    expect(servers.get("github")).toMatchObject({ name: "github", transport: "StreamableHTTP" });
    expect(servers.get("github")!.url!.href).toBe("https://mcp.github.com/mcp");
    expect(servers.get("files")!.url).toBeUndefined();
  });

  it("refuses one server name declared with two different URLs", () => {
    const both = `${policy("a", "https://mcp.github.com/mcp")}---${policy("b", "https://elsewhere.example/mcp")}`;
    expect(() => declaredServers(set(both))).toThrow(/declared differently/);
  });
});
