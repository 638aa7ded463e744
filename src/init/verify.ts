/**
 * The self-check `toolwall init` runs after programming the rules (as Linkerd does): a connection to
 * an unroutable documentation address must land on a temporary listener on the proxy port with that
 * address as its original destination, and a UDP datagram to it must be refused locally.
 */
import { createSocket } from "node:dgram";
import { connect, createServer, type Server, type Socket } from "node:net";
import { type OriginalDestination, originalDestination } from "../net/original-dst.ts";
import type { Family } from "./rules.ts";

/** Documentation prefixes (RFC 5737, RFC 3849): never routed anywhere real. */
export const PROBE_ADDRESSES: Record<Family, string> = { 4: "192.0.2.1", 6: "2001:db8::1" };
const PROBE_PORT_CANDIDATES = [9, 443, 8443, 4444, 31337];

export interface ProbeResult {
  family: Family;
  outcome: "redirected" | "unroutable";
  detail: string;
}

export class SelfCheckError extends Error {}

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen({ port, host: "::", ipv6Only: false }, () => resolve(server));
  });
}

const UNROUTABLE = new Set(["ENETUNREACH", "EHOSTUNREACH"]);

async function probeTcp(
  server: Server,
  family: Family,
  port: number,
  timeoutMs: number,
): Promise<ProbeResult> {
  const address = PROBE_ADDRESSES[family];
  const landed = new Promise<OriginalDestination>((resolve, reject) => {
    server.once("connection", (socket: Socket) => {
      try {
        resolve(originalDestination(socket));
      } catch (error) {
        reject(error);
      } finally {
        socket.destroy();
      }
    });
  });
  const client = connect({ host: address, port });
  const failed = new Promise<ProbeResult>((resolve, reject) => {
    client.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code && UNROUTABLE.has(error.code)) {
        resolve({
          family,
          outcome: "unroutable",
          detail: `${address}: ${error.code} (no route, nothing leaves)`,
        });
      } else {
        reject(new SelfCheckError(`TCP probe to ${address}:${port} failed: ${error.message}`));
      }
    });
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new SelfCheckError(
            `TCP probe to ${address}:${port} did not reach the proxy port within ${timeoutMs} ms: the redirect is not in effect`,
          ),
        ),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([
      failed,
      timedOut,
      landed.then((destination): ProbeResult => {
        if (destination.address !== address || destination.port !== port) {
          throw new SelfCheckError(
            `probe landed with original destination ${destination.address}:${destination.port}, expected ${address}:${port}`,
          );
        }
        return { family, outcome: "redirected", detail: `${address}:${port} → proxy port` };
      }),
    ]);
  } finally {
    clearTimeout(timer);
    client.destroy();
    server.removeAllListeners("connection");
  }
}

/** A connected UDP socket to the probe address: the REJECT must fail the send or the next receive. */
function probeUdp(family: Family, timeoutMs: number): Promise<string> {
  const address = PROBE_ADDRESSES[family];
  return new Promise((resolve, reject) => {
    const socket = createSocket(family === 4 ? "udp4" : "udp6");
    const done = (error?: Error, detail?: string) => {
      clearTimeout(timer);
      socket.close();
      if (error) reject(error);
      else resolve(detail ?? "");
    };
    const timer = setTimeout(
      () => done(new SelfCheckError(`UDP to ${address}:443 was not rejected within ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.on("error", (error: NodeJS.ErrnoException) =>
      done(undefined, `UDP ${address}:443 refused (${error.code})`),
    );
    socket.connect(443, address, () => {
      socket.send(Buffer.from("toolwall-self-check"), (error) => {
        if (error) done(undefined, `UDP ${address}:443 refused (${(error as NodeJS.ErrnoException).code})`);
      });
    });
  });
}

export async function selfCheck(
  proxyPort: number,
  excludedPorts: number[],
  timeoutMs = 2000,
): Promise<ProbeResult[]> {
  const port = PROBE_PORT_CANDIDATES.find((p) => !excludedPorts.includes(p) && p !== proxyPort);
  if (port === undefined) throw new SelfCheckError("every probe port is excluded");
  let server: Server;
  try {
    server = await listen(proxyPort);
  } catch (error) {
    throw new SelfCheckError(
      `cannot listen on the proxy port ${proxyPort} for the self-check: ${(error as Error).message}`,
    );
  }
  try {
    const results: ProbeResult[] = [];
    for (const family of [4, 6] as const) {
      const result = await probeTcp(server, family, port, timeoutMs);
      if (result.outcome === "redirected") {
        result.detail += `; ${await probeUdp(family, timeoutMs)}`;
      }
      results.push(result);
    }
    if (!results.some((r) => r.outcome === "redirected")) {
      throw new SelfCheckError(
        "no address family has a route: the self-check could not exercise the redirect",
      );
    }
    return results;
  } finally {
    server.close();
  }
}
