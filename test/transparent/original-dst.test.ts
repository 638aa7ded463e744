import { describe, expect, it } from "vitest";
import { originalDestinationCall, parseSockaddrIn, parseSockaddrIn6 } from "../../src/net/original-dst.ts";

describe("SO_ORIGINAL_DST decoding", () => {
  it("chooses SOL_IP for IPv4 and IPv4-mapped local addresses, SOL_IPV6 otherwise", () => {
    expect(originalDestinationCall("::ffff:127.0.0.1")).toEqual({ level: 0, size: 16, family: 4 });
    expect(originalDestinationCall("127.0.0.1")).toEqual({ level: 0, size: 16, family: 4 });
    expect(originalDestinationCall("::1")).toEqual({ level: 41, size: 28, family: 6 });
  });

  it("decodes sockaddr_in (family little-endian, port and address in network order)", () => {
    const buffer = Buffer.from([2, 0, 0x01, 0xbb, 198, 18, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseSockaddrIn(buffer)).toEqual({ family: 4, address: "198.18.0.2", port: 443 });
  });

  it("decodes sockaddr_in6 with the longest zero run compressed", () => {
    const buffer = Buffer.alloc(28);
    buffer.writeUInt16LE(10, 0);
    buffer.writeUInt16BE(8443, 2);
    const groups = [0xfd00, 0x7477, 0, 0, 0, 0, 0, 2];
    for (const [i, g] of groups.entries()) buffer.writeUInt16BE(g, 8 + i * 2);
    expect(parseSockaddrIn6(buffer)).toEqual({ family: 6, address: "fd00:7477::2", port: 8443 });
    const allZero = Buffer.alloc(28);
    allZero.writeUInt16LE(10, 0);
    expect(parseSockaddrIn6(allZero).address).toBe("::");
  });

  it("refuses a buffer of the wrong family", () => {
    expect(() => parseSockaddrIn(Buffer.alloc(16))).toThrow(/sockaddr_in/);
    expect(() => parseSockaddrIn6(Buffer.alloc(28))).toThrow(/sockaddr_in6/);
  });
});
