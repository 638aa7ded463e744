import { createServer } from "node:net";
import { connect } from "node:tls";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { parseClientHello } from "../../src/net/client-hello.ts";

function u16(n: number): number[] {
  return [(n >> 8) & 0xff, n & 0xff];
}

function vector16(bytes: number[]): number[] {
  return [...u16(bytes.length), ...bytes];
}

/** A minimal, well-formed ClientHello handshake message. */
function clientHello(serverName: string | undefined, alpn: string[]): number[] {
  const extensions: number[] = [];
  if (serverName !== undefined) {
    const name = [...Buffer.from(serverName, "ascii")];
    extensions.push(...u16(0), ...vector16(vector16([0, ...vector16(name)])));
  }
  if (alpn.length > 0) {
    const list = alpn.flatMap((p) => [p.length, ...Buffer.from(p, "latin1")]);
    extensions.push(...u16(16), ...vector16(vector16(list)));
  }
  const body = [3, 3, ...new Array(32).fill(7), 0, ...vector16([0x13, 0x01]), 1, 0, ...vector16(extensions)];
  return [1, (body.length >> 16) & 0xff, (body.length >> 8) & 0xff, body.length & 0xff, ...body];
}

/** Wraps a handshake message into TLS records cut at the given fragment sizes. */
function records(handshake: number[], cuts: number[] = []): Buffer {
  const out: number[] = [];
  let offset = 0;
  for (const size of [...cuts, handshake.length]) {
    const fragment = handshake.slice(offset, offset + Math.max(1, size));
    if (fragment.length === 0) break;
    out.push(22, 3, 1, ...u16(fragment.length), ...fragment);
    offset += fragment.length;
  }
  return Buffer.from(out);
}

const hostLabel = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/);
const hostName = fc.array(hostLabel, { minLength: 1, maxLength: 5 }).map((labels) => labels.join("."));
const alpnList = fc.array(fc.constantFrom("h2", "http/1.1", "acme-tls/1", "x"), { maxLength: 3 });

describe("ClientHello parsing", () => {
  let realHello: Buffer;

  beforeAll(async () => {
    // A real ClientHello from Node's TLS client (OpenSSL), captured on loopback.
    realHello = await new Promise<Buffer>((resolve) => {
      const server = createServer((socket) => {
        socket.once("data", (data) => {
          resolve(data);
          socket.destroy();
          server.close();
        });
      });
      server.listen(0, "127.0.0.1", () => {
        const port = (server.address() as { port: number }).port;
        connect({
          host: "127.0.0.1",
          port,
          servername: "api.anthropic.com",
          ALPNProtocols: ["h2", "http/1.1"],
        }).on("error", () => {});
      });
    });
  });

  it("reads SNI and ALPN from a real OpenSSL ClientHello", () => {
    expect(parseClientHello(realHello)).toEqual({
      kind: "tls",
      serverName: "api.anthropic.com",
      alpn: ["h2", "http/1.1"],
    });
  });

  it("asks for more bytes on every strict prefix of a real ClientHello", () => {
    for (let length = 0; length < realHello.length; length += 7) {
      expect(parseClientHello(realHello.subarray(0, length)).kind).toBe("need-more");
    }
  });

  it("round-trips any host name and ALPN list, however the records are cut", () => {
    fc.assert(
      fc.property(
        hostName,
        alpnList,
        fc.array(fc.integer({ min: 1, max: 300 }), { maxLength: 4 }),
        (name, alpn, cuts) => {
          const result = parseClientHello(records(clientHello(name, alpn), cuts));
          expect(result).toEqual({ kind: "tls", serverName: name, alpn });
        },
      ),
    );
  });

  it("reports no name for a ClientHello without SNI", () => {
    expect(parseClientHello(records(clientHello(undefined, [])))).toEqual({
      kind: "tls",
      serverName: undefined,
      alpn: [],
    });
  });

  it("rejects an SNI that is not a host name", () => {
    for (const bad of ["bad name", "a..b", "-x.example", "x".repeat(254)]) {
      expect(parseClientHello(records(clientHello(bad, []))).kind).toBe("not-tls");
    }
  });

  it("never throws on arbitrary bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const result = parseClientHello(bytes);
        expect(["need-more", "not-tls", "tls"]).toContain(result.kind);
      }),
      { numRuns: 2000 },
    );
  });

  it("never throws on a real ClientHello with bytes flipped", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
        (flips) => {
          const mutated = Buffer.from(realHello);
          for (const [at, value] of flips) mutated[at % mutated.length] = value;
          const result = parseClientHello(mutated);
          expect(["need-more", "not-tls", "tls"]).toContain(result.kind);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("treats plain text as not TLS at the first byte", () => {
    expect(parseClientHello(Buffer.from("GET / HTTP/1.1\r\n"))).toMatchObject({ kind: "not-tls" });
  });
});
