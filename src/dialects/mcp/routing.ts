import type { DeclaredServer } from "../../policy/servers.ts";

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
 * Percent-encodings an origin may decode into a path separator or a string terminator, an encoded
 * `%` (a server that decodes twice would read `%252e` as a dot) and `%` that starts no escape.
 */
const ambiguousEscape = /%(?:2f|5c|00|25)|%(?![0-9a-f]{2})/i;
/** RFC 3986 unreserved characters: decoding them never changes what a conforming server reads. */
const unreservedEscape = /%(?:[46][1-9a-f]|[57][0-9a]|3[0-9]|2d|2e|5f|7e)/gi;

/**
 * The path an origin reads for a raw request path: unreserved escapes decoded (`%6Eotes` is
 * `notes`), backslashes read as slashes and dot segments resolved (plain or encoded), as the WHATWG
 * URL parser and the servers built on it do. Escapes that some servers decode into a separator or a
 * terminator (`%2F`, `%5C`, `%00`), `%25`, malformed escapes and fragments are refused rather than
 * guessed.
 */
export function normalisePath(raw: string): string {
  if (!raw.startsWith("/")) throw new McpRouteError(400, `request path must start with '/', got '${raw}'`);
  if (ambiguousEscape.test(raw) || raw.includes("#") || raw.includes("\0"))
    throw new McpRouteError(
      400,
      "request path holds an encoded slash, backslash, NUL or percent sign, a malformed escape or a fragment",
    );
  const decoded = raw.replace(unreservedEscape, (encoded) =>
    String.fromCharCode(Number.parseInt(encoded.slice(1), 16)),
  );
  return new URL(`http://path.invalid${decoded}`).pathname;
}

/** The directory of a server's URL path: what `/<server>/<rest>` may address (`/sse` → `/`). */
export function serverBase(url: URL): string {
  return url.pathname.slice(0, url.pathname.lastIndexOf("/") + 1);
}

/**
 * `/<server>` → the server's URL; `/<server>/<rest>` → `<rest>` under the directory of that URL (so
 * the legacy `/message` endpoint next to `/sse` is `/<server>/message`). The path is normalised
 * first: the server it names is the server it reaches, and `<rest>` never leaves the declared base
 * (nor the origin). The query string is the client's.
 */
export function resolveTarget(
  servers: ReadonlyMap<string, DeclaredServer>,
  path: string,
  search: string,
): McpTarget {
  const match = /^\/([^/]+)(\/.*)?$/.exec(path === "" ? path : normalisePath(path));
  if (!match) throw new McpRouteError(404, "expected /mcp/<server>[/…]");
  let name: string;
  try {
    name = decodeURIComponent(match[1]!);
  } catch {
    throw new McpRouteError(400, `server name '${match[1]}' is not valid percent-encoding`);
  }
  const server = servers.get(name.toLowerCase());
  if (!server) throw new McpRouteError(404, `MCP server '${name}' is not declared in spec.servers`);
  if (!server.url)
    throw new McpRouteError(400, `MCP server '${server.name}' has no url (transport ${server.transport})`);
  const rest = match[2];
  const url = new URL(server.url);
  if (rest !== undefined) url.pathname = serverBase(server.url) + rest.slice(1);
  if (search !== "") url.search = search;
  return { server: server as McpTarget["server"], url };
}

/**
 * The path a client must use to reach `endpoint` (a legacy SSE `endpoint` event, resolved) through
 * the proxy, or undefined when the endpoint lies outside what `/<server>/…` can address. Prefix ""
 * is a client that talks to the origin itself (sidecar, explicit proxy): it keeps the origin's path.
 */
export function proxyPathFor(prefix: string, server: McpTarget["server"], endpoint: URL): string | undefined {
  if (endpoint.origin !== server.url.origin) return undefined;
  const base = serverBase(server.url);
  if (!endpoint.pathname.startsWith(base)) return undefined;
  if (prefix === "") return `${endpoint.pathname}${endpoint.search}`;
  return `${prefix}/${encodeURIComponent(server.name)}/${endpoint.pathname.slice(base.length)}${endpoint.search}`;
}
