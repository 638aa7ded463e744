/**
 * Differential fuzzing of MCP routing (issue 10 item 7): generated request paths and origin spellings
 * (dot segments plain and encoded, backslashes, percent-encodings, case, ports, IPv4/IPv6 literals)
 * are routed by Toolwall and, independently, read the way a lenient origin server reads them
 * (decoding twice, backslashes as slashes, dot segments resolved, case ignored). Whatever server the
 * origin would run the request on must be the server Toolwall judged it as — or Toolwall refuses it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EgressPolicy } from "../../src/dataplane/egress.ts";
import { McpRouteError, resolveTarget } from "../../src/dialects/mcp/routing.ts";
import { PolicySet } from "../../src/policy/evaluate.ts";
import { parsePolicies } from "../../src/policy/load.ts";
import { type DeclaredServer, declaredServers } from "../../src/policy/servers.ts";
import type { PolicyDocument } from "../../src/policy/types.ts";
import { mcpRouting } from "../helpers/route-table.ts";

const port = 3000;
/** What the origin serves: two declared servers and one that is not declared. */
const hosted = ["/github/", "/notes/", "/admin/"];
const [document] = parsePolicies(
  `
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: fuzz, namespace: agents }
spec:
  failClosed: true
  servers:
    - { name: github, transport: StreamableHTTP, url: "http://localhost:${port}/github/mcp" }
    - { name: notes, transport: StreamableHTTP, url: "http://localhost:${port}/notes/mcp" }
`,
  "fuzz.yaml",
).policies as [PolicyDocument];
const servers: Map<string, DeclaredServer> = declaredServers(PolicySet.fromDocuments([document]));

function decodeAll(text: string): string {
  return text.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** The server a lenient origin runs a request path on: undefined for its 404. */
function originReads(path: string): string | undefined {
  const text = decodeAll(decodeAll(path)).replaceAll("\\", "/").toLowerCase();
  const out: string[] = [];
  for (const segment of text.split("/").slice(1)) {
    if (segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  const resolved = `/${out.join("/")}`;
  return hosted.find((base) => resolved.startsWith(base))?.slice(1, -1);
}

const segment = fc.oneof(
  fc.constantFrom("github", "notes", "admin", "GitHub", "NOTES", "mcp", "MCP", "x", ""),
  fc.constantFrom(".", "..", "%2e", "%2E%2e", ".%2e", "%2e.", "%252e%252e", "..%2f", "..%5c", "..\\"),
  fc.constantFrom("%6eotes", "%67ithub", "%61dmin", "%2F", "%5C", "%00", "%", "%%32e", "%2", "a%2fb"),
);
const path = fc.array(segment, { minLength: 1, maxLength: 7 }).map((segments) => `/${segments.join("/")}`);

function judged<T>(run: () => T): T | "refused" {
  try {
    return run();
  } catch (error) {
    if (error instanceof McpRouteError) return "refused";
    throw error;
  }
}

describe("MCP routing, differential against a lenient origin", () => {
  it("/mcp/<server>/…: the server reached is the server judged", () => {
    fc.assert(
      fc.property(path, (requestPath) => {
        const target = judged(() => resolveTarget(servers, requestPath, ""));
        if (target === "refused") return;
        const reached = originReads(target.url.pathname);
        expect(
          [target.server.name.toLowerCase(), undefined],
          `${requestPath} → ${target.url.pathname}`,
        ).toContain(reached);
      }),
      { numRuns: 3000 },
    );
  });

  const loopbackSpellings = [
    "localhost",
    "LOCALHOST.",
    "app.localhost",
    "127.0.0.1",
    "127.1",
    "2130706433",
    "0x7f.0.0.1",
    "0177.0.0.1",
    "::1",
    "0:0:0:0:0:0:0:1",
    "::ffff:127.0.0.1",
    "::FFFF:7f00:1",
  ];
  const loopback = fc.constantFrom(...loopbackSpellings);
  const elsewhere = fc.constantFrom("mcp.example", "10.0.0.1", "::2", "127.0.0.2.example");

  it("inspected connections: a declared origin under any spelling is judged, by the server it reaches", () => {
    const egress = new EgressPolicy([document]);
    fc.assert(
      fc.property(
        fc.oneof(loopback, elsewhere),
        fc.constantFrom(port, 80, 3001),
        fc.boolean(),
        path,
        (host, connectionPort, withAddress, requestPath) => {
          const address = loopbackSpellings.includes(host) ? "127.0.0.1" : "10.9.9.9";
          const connection = {
            serverName: host,
            port: connectionPort,
            tls: false,
            ...(withAddress ? { originalDestination: { address } } : {}),
          };
          const reachesOrigin = address === "127.0.0.1" && connectionPort === port;
          const classified = egress.classify({
            address: withAddress ? address : "",
            port: connectionPort,
            name: host,
            protocol: "http",
          });
          if (reachesOrigin) expect(classified, host).toMatchObject({ verdict: "inspect", category: "mcp" });
          const routing = judged(() => mcpRouting([document], connection, requestPath));
          if (routing === "refused") return;
          if (routing === undefined) {
            expect(reachesOrigin, `${host}:${connectionPort} not recognised as the declared origin`).toBe(
              false,
            );
            return;
          }
          if (routing.kind === "outside") {
            expect(routing.failClosed).toBe(true);
            return;
          }
          const target = judged(() => resolveTarget(servers, routing.path, ""));
          if (target === "refused") return;
          expect(target.server.name).toBe(routing.server);
          expect([routing.server, undefined], `${requestPath} → ${target.url.pathname}`).toContain(
            originReads(target.url.pathname),
          );
        },
      ),
      { numRuns: 3000 },
    );
  });
});
