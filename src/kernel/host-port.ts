import { isIPv6 } from "node:net";
import { InputError } from "./errors.ts";

/** A listen or target address that is not `host:port`, `[ipv6]:port` or `:port`. */
export class HostPortError extends InputError {}

const authority = /^(?:\[([^\]]*)\]|([^:[\]\s]*))(?::(\d{1,5}))?$/;

/**
 * The one reader of `host[:port]`: `host`, `host:port`, `[ipv6]`, `[ipv6]:port`, `:port` (host "").
 * Undefined when the text is none of them, the port is above 65535 or a bracketed host is not an
 * IPv6 address. The host is returned as written (brackets removed); the caller says what it needs
 * beyond that (a port, a non-empty host, a name's characters).
 */
export function splitHostPort(text: string): { host: string; port: number | undefined } | undefined {
  const match = authority.exec(text);
  if (!match) return undefined;
  const port = match[3] === undefined ? undefined : Number(match[3]);
  if ((port !== undefined && port > 65535) || (match[1] !== undefined && !isIPv6(match[1]))) return undefined;
  return { host: match[1] ?? match[2]!, port };
}

/**
 * `host:port`, `[ipv6]:port`, or `:port` (then `defaultHost`) → host and port. A bracketed host must
 * be an IPv6 address; port 0 (any free port) is allowed.
 */
export function parseHostPort(text: string, defaultHost: string): { host: string; port: number } {
  const parts = splitHostPort(text);
  if (parts?.port === undefined) {
    throw new HostPortError(`expected HOST:PORT, [IPv6]:PORT or :PORT, got '${text}'`);
  }
  return { host: parts.host || defaultHost, port: parts.port };
}
