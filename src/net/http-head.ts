/** Reads the Host of a plain HTTP/1.x request from its first bytes, without consuming them. */
import { splitHostPort } from "../kernel/host-port.ts";

export type HttpHeadResult =
  | { kind: "need-more" }
  | { kind: "not-http"; reason: string }
  | { kind: "http"; host: string | undefined; method: string; target: string };

export const MAX_HTTP_HEAD = 32 * 1024;
const REQUEST_LINE = /^([A-Z]{3,16}) (\S+) HTTP\/1\.[01]$/;
const METHOD_PREFIX = /^[A-Z]{0,16}$/;
const HOST_VALUE = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+)(:\d{1,5})?$/;

export function parseHttpHead(buffer: Uint8Array): HttpHeadResult {
  const probe = new TextDecoder("latin1").decode(buffer.subarray(0, Math.min(buffer.length, MAX_HTTP_HEAD)));
  const firstSpace = probe.indexOf(" ");
  const method = firstSpace < 0 ? probe : probe.slice(0, firstSpace);
  if (!METHOD_PREFIX.test(method) || (firstSpace < 0 && method.length === 16)) {
    return { kind: "not-http", reason: "no HTTP method" };
  }
  const end = probe.indexOf("\r\n\r\n");
  if (end < 0) {
    return buffer.length >= MAX_HTTP_HEAD
      ? { kind: "not-http", reason: "request head too large" }
      : { kind: "need-more" };
  }
  const [requestLine = "", ...headerLines] = probe.slice(0, end).split("\r\n");
  const match = REQUEST_LINE.exec(requestLine);
  if (!match) return { kind: "not-http", reason: "malformed request line" };
  const hosts = headerLines.filter((line) => /^host:/i.test(line)).map((line) => line.slice(5).trim());
  if (hosts.length > 1) return { kind: "not-http", reason: "more than one Host header" };
  const host = hosts[0];
  if (host !== undefined && !HOST_VALUE.test(host))
    return { kind: "not-http", reason: "malformed Host header" };
  return {
    kind: "http",
    host: host === undefined ? undefined : hostName(host),
    method: match[1] as string,
    target: match[2] as string,
  };
}

/** `Example.com:8080` → `example.com`, `[::1]:80` → `::1`. */
export function hostName(hostHeader: string): string {
  const host = splitHostPort(hostHeader)?.host ?? hostHeader;
  return host.toLowerCase().replace(/\.$/, "");
}
