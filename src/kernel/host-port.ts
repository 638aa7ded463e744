import { isIPv6 } from "node:net";

/** A listen or target address that is not `host:port`, `[ipv6]:port` or `:port`. */
export class HostPortError extends Error {}

const hostPort = /^(?:\[([^\]]*)\]|([^:[\]\s]*)):(\d{1,5})$/;

/**
 * `host:port`, `[ipv6]:port`, or `:port` (then `defaultHost`) → host and port. A bracketed host must
 * be an IPv6 address; port 0 (any free port) is allowed.
 */
export function parseHostPort(text: string, defaultHost: string): { host: string; port: number } {
  const match = hostPort.exec(text);
  const port = Number(match?.[3]);
  if (!match || port > 65535 || (match[1] !== undefined && !isIPv6(match[1]))) {
    throw new HostPortError(`expected HOST:PORT, [IPv6]:PORT or :PORT, got '${text}'`);
  }
  return { host: match[1] ?? (match[2] || defaultHost), port };
}
