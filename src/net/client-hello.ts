/**
 * Reads the server name (SNI) and ALPN list from the first bytes a client sends, without consuming
 * them: the bytes are later replayed to the TLS terminator or the tunnel. Handles a ClientHello
 * split over several TLS records. Never throws on hostile input: anything malformed is `not-tls`.
 */

export type ClientHelloResult =
  | { kind: "need-more" }
  | { kind: "not-tls"; reason: string }
  | { kind: "tls"; serverName: string | undefined; alpn: string[] };

const RECORD_HANDSHAKE = 22;
const HANDSHAKE_CLIENT_HELLO = 1;
const EXTENSION_SERVER_NAME = 0;
const EXTENSION_ALPN = 16;
/** Far above any real ClientHello (post-quantum key shares included); bounds the bytes held. */
export const MAX_CLIENT_HELLO = 64 * 1024;

class Reader {
  private offset = 0;
  private readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }
  get remaining(): number {
    return this.bytes.length - this.offset;
  }
  u8(): number {
    if (this.remaining < 1) throw new RangeError("truncated");
    return this.bytes[this.offset++] as number;
  }
  u16(): number {
    return (this.u8() << 8) | this.u8();
  }
  u24(): number {
    return (this.u8() << 16) | this.u16();
  }
  take(length: number): Uint8Array {
    if (this.remaining < length) throw new RangeError("truncated");
    const slice = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }
  vector(lengthBytes: 1 | 2): Reader {
    return new Reader(this.take(lengthBytes === 1 ? this.u8() : this.u16()));
  }
}

/** Joins the handshake fragments of consecutive handshake records; undefined until one is whole. */
function handshakeBytes(buffer: Uint8Array): Uint8Array | "need-more" | string {
  const fragments: Uint8Array[] = [];
  let collected = 0;
  let offset = 0;
  let needed: number | undefined;
  while (needed === undefined || collected < needed) {
    if (buffer.length - offset < 5) return "need-more";
    if (buffer[offset] !== RECORD_HANDSHAKE) return "not a TLS handshake record";
    if (buffer[offset + 1] !== 3) return "not a TLS record version";
    const length = ((buffer[offset + 3] as number) << 8) | (buffer[offset + 4] as number);
    if (length === 0 || length > 16384 + 2048) return "bad TLS record length";
    if (buffer.length - offset - 5 < length) return "need-more";
    fragments.push(buffer.subarray(offset + 5, offset + 5 + length));
    collected += length;
    offset += 5 + length;
    if (needed === undefined && collected >= 4) {
      const head = fragments.length === 1 ? (fragments[0] as Uint8Array) : concat(fragments);
      if (head[0] !== HANDSHAKE_CLIENT_HELLO) return "first handshake message is not a ClientHello";
      needed = 4 + (((head[1] as number) << 16) | ((head[2] as number) << 8) | (head[3] as number));
      if (needed > MAX_CLIENT_HELLO) return "ClientHello too large";
    }
  }
  return concat(fragments).subarray(0, needed);
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const HOST_NAME = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

export function parseClientHello(buffer: Uint8Array): ClientHelloResult {
  if (buffer.length === 0) return { kind: "need-more" };
  if (buffer[0] !== RECORD_HANDSHAKE)
    return { kind: "not-tls", reason: "first byte is not a handshake record" };
  const handshake = handshakeBytes(buffer);
  if (handshake === "need-more") {
    return buffer.length >= MAX_CLIENT_HELLO + 5 * 8
      ? { kind: "not-tls", reason: "ClientHello too large" }
      : { kind: "need-more" };
  }
  if (typeof handshake === "string") return { kind: "not-tls", reason: handshake };
  try {
    const hello = new Reader(handshake);
    hello.take(4); // type + length, checked above
    hello.u16(); // legacy_version
    hello.take(32); // random
    hello.vector(1); // legacy_session_id
    hello.vector(2); // cipher_suites
    hello.vector(1); // legacy_compression_methods
    let serverName: string | undefined;
    let alpn: string[] = [];
    if (hello.remaining > 0) {
      const extensions = hello.vector(2);
      const seen = new Set<number>();
      while (extensions.remaining > 0) {
        const type = extensions.u16();
        const body = extensions.vector(2);
        if (seen.has(type)) return { kind: "not-tls", reason: `duplicate extension ${type}` };
        seen.add(type);
        if (type === EXTENSION_SERVER_NAME) serverName = readServerName(body);
        if (type === EXTENSION_ALPN) alpn = readAlpn(body);
      }
    }
    if (hello.remaining !== 0) return { kind: "not-tls", reason: "trailing bytes after ClientHello" };
    return { kind: "tls", serverName, alpn };
  } catch (error) {
    return { kind: "not-tls", reason: (error as Error).message };
  }
}

function readServerName(body: Reader): string | undefined {
  const list = body.vector(2);
  let name: string | undefined;
  while (list.remaining > 0) {
    const nameType = list.u8();
    const value = list.vector(2);
    if (nameType !== 0) continue;
    if (name !== undefined) throw new Error("more than one host name in SNI");
    const text = new TextDecoder("ascii").decode(value.take(value.remaining)).toLowerCase();
    if (text.length === 0 || text.length > 253 || !HOST_NAME.test(text))
      throw new Error("invalid SNI host name");
    name = text;
  }
  if (body.remaining !== 0) throw new Error("trailing bytes in SNI extension");
  return name;
}

function readAlpn(body: Reader): string[] {
  const list = body.vector(2);
  const protocols: string[] = [];
  while (list.remaining > 0) {
    const value = list.vector(1);
    protocols.push(new TextDecoder("latin1").decode(value.take(value.remaining)));
  }
  return protocols;
}
