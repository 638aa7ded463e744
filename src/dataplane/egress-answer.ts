import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway" };

/**
 * The one plain-text answer Toolwall's egress gives instead of a connection: 403 names the rule that
 * denied (header and body), 400 and 502 name the problem. Written on a raw socket (a CONNECT, a
 * redirected plain-HTTP connection) or on an HTTP response (an absolute-form request).
 */
export function writeEgressAnswer(
  target: Socket | ServerResponse,
  status: 400 | 403 | 502,
  reason: string,
  rule?: string,
): void {
  const body = `${status === 403 ? "Blocked by Toolwall egress policy" : "Toolwall"}: ${reason}\n`;
  const headers: Record<string, string | number> = {
    "content-type": "text/plain",
    "content-length": Buffer.byteLength(body),
    ...(rule ? { "x-toolwall-rule": rule } : {}),
  };
  if ("writeHead" in target) {
    target.writeHead(status, headers);
    target.end(body);
    return;
  }
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  target.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\n${head.join("")}connection: close\r\n\r\n${body}`);
  target.once("finish", () => target.destroy());
}
