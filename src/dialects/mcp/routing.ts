import type { DeclaredServer } from "../../registry/registry.ts";

export interface McpTarget {
  server: DeclaredServer & { url: URL };
  /** The upstream URL the request goes to. */
  url: URL;
}

export class McpRouteError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * `/<server>` → the server's URL; `/<server>/<rest>` → `<rest>` resolved against that URL (so the
 * legacy `/message` endpoint next to `/sse` is `/<server>/message`). The query string is the client's.
 * The result never leaves the server's origin.
 */
export function resolveTarget(
  servers: ReadonlyMap<string, DeclaredServer>,
  path: string,
  search: string,
): McpTarget {
  const match = /^\/([^/]+)(\/.*)?$/.exec(path);
  if (!match) throw new McpRouteError(404, "expected /mcp/<server>[/…]");
  const name = decodeURIComponent(match[1]!);
  const server = servers.get(name.toLowerCase());
  if (!server) throw new McpRouteError(404, `MCP server '${name}' is not declared in spec.servers`);
  if (!server.url)
    throw new McpRouteError(400, `MCP server '${server.name}' has no url (transport ${server.transport})`);
  const rest = match[2];
  const url = rest === undefined ? new URL(server.url) : new URL(rest.slice(1) || "./", server.url);
  if (url.origin !== server.url.origin)
    throw new McpRouteError(400, `path leaves the origin of MCP server '${server.name}'`);
  if (search !== "") url.search = search;
  return { server: server as McpTarget["server"], url };
}

/**
 * The path a client must use to reach `endpoint` (a legacy SSE `endpoint` event, resolved) through
 * the proxy, or undefined when the endpoint lies outside what `/<server>/…` can address.
 */
export function proxyPathFor(prefix: string, server: McpTarget["server"], endpoint: URL): string | undefined {
  if (endpoint.origin !== server.url.origin) return undefined;
  const base = server.url.pathname.slice(0, server.url.pathname.lastIndexOf("/") + 1);
  if (!endpoint.pathname.startsWith(base)) return undefined;
  return `${prefix}/${encodeURIComponent(server.name)}/${endpoint.pathname.slice(base.length)}${endpoint.search}`;
}
