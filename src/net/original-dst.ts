import { createRequire } from "node:module";
import type { Socket } from "node:net";

/** Where a REDIRECTed connection was headed before iptables rewrote it. */
export interface OriginalDestination {
  family: 4 | 6;
  address: string;
  port: number;
}

const SOL_IP = 0;
const SOL_IPV6 = 41;
const SO_ORIGINAL_DST = 80;
const SOCKADDR_IN_SIZE = 16;
const SOCKADDR_IN6_SIZE = 28;
const AF_INET = 2;
const AF_INET6 = 10;

/**
 * An IPv4 connection accepted on a `::` listener shows its local address as `::ffff:a.b.c.d`, and
 * conntrack keeps its NAT record under IPv4: the call must follow the address, not the socket family.
 */
export function originalDestinationCall(localAddress: string): {
  level: number;
  size: number;
  family: 4 | 6;
} {
  const isIpv4 = !localAddress.includes(":") || localAddress.toLowerCase().startsWith("::ffff:");
  return isIpv4
    ? { level: SOL_IP, size: SOCKADDR_IN_SIZE, family: 4 }
    : { level: SOL_IPV6, size: SOCKADDR_IN6_SIZE, family: 6 };
}

export function parseSockaddrIn(buffer: Uint8Array): OriginalDestination {
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  if (buffer.byteLength < SOCKADDR_IN_SIZE || view.getUint16(0, true) !== AF_INET) {
    throw new Error("SO_ORIGINAL_DST did not return a sockaddr_in");
  }
  return { family: 4, port: view.getUint16(2, false), address: Array.from(buffer.subarray(4, 8)).join(".") };
}

export function parseSockaddrIn6(buffer: Uint8Array): OriginalDestination {
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  if (buffer.byteLength < SOCKADDR_IN6_SIZE || view.getUint16(0, true) !== AF_INET6) {
    throw new Error("SO_ORIGINAL_DST did not return a sockaddr_in6");
  }
  const groups: string[] = [];
  for (let i = 0; i < 8; i++) groups.push(view.getUint16(8 + i * 2, false).toString(16));
  return { family: 6, port: view.getUint16(2, false), address: compressIpv6(groups) };
}

function compressIpv6(groups: string[]): string {
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < groups.length; ) {
    if (groups[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < groups.length && groups[j] === "0") j++;
    if (j - i > bestLength && j - i > 1) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  if (bestStart < 0) return groups.join(":");
  const head = groups.slice(0, bestStart).join(":");
  const tail = groups.slice(bestStart + bestLength).join(":");
  return `${head}::${tail}`;
}

type GetSockOpt = (fd: number, level: number, name: number, value: Buffer, length: number[]) => number;
let getsockopt: GetSockOpt | undefined;
let errnoOf: (() => number) | undefined;

function libcGetsockopt(): GetSockOpt {
  if (!getsockopt) {
    // koffi is a native module: load it on first use so commands that never accept a redirected
    // connection do not pay for it.
    const koffi = createRequire(import.meta.url)("koffi") as typeof import("koffi");
    const process = koffi.load(null);
    getsockopt = process.func(
      "int getsockopt(int fd, int level, int name, _Out_ uint8_t *value, _Inout_ uint32_t *length)",
    ) as unknown as GetSockOpt;
    errnoOf = () => koffi.errno();
  }
  return getsockopt;
}

/** Reads SO_ORIGINAL_DST of an accepted socket; throws when the connection was not redirected. */
export function originalDestination(socket: Socket): OriginalDestination {
  const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (typeof fd !== "number" || fd < 0) throw new Error("socket has no file descriptor");
  const call = originalDestinationCall(socket.localAddress ?? "");
  const value = Buffer.alloc(call.size);
  const length = [call.size];
  const result = libcGetsockopt()(fd, call.level, SO_ORIGINAL_DST, value, length);
  if (result !== 0) {
    const errno = errnoOf?.() ?? 0;
    throw new Error(`SO_ORIGINAL_DST failed (errno ${errno}): the connection was not redirected`);
  }
  return call.family === 4 ? parseSockaddrIn(value) : parseSockaddrIn6(value);
}
