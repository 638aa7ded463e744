/**
 * Splits a JSON array that arrives incrementally (Gemini's streamGenerateContent without alt=sse) into
 * its top-level elements, keeping every byte: the brackets, commas and whitespace between elements come
 * out as separators, so the output can be reassembled byte-identical.
 */

export interface ArrayPiece {
  kind: "element" | "separator";
  raw: Buffer;
}

const quote = 0x22;
const backslash = 0x5c;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const comma = 0x2c;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

export class JsonArraySplitter {
  #pending: Buffer = Buffer.alloc(0);
  /** Nesting depth at the end of #pending: 0 before the array, 1 between elements. */
  #depth = 0;
  #inString = false;
  #escaped = false;
  #inElement = false;
  #scanned = 0;

  push(chunk: Buffer): ArrayPiece[] {
    const buffer = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const pieces: ArrayPiece[] = [];
    let start = 0;
    let i = this.#scanned;
    const cut = (kind: ArrayPiece["kind"], end: number) => {
      if (end > start) pieces.push({ kind, raw: buffer.subarray(start, end) });
      start = end;
    };
    for (; i < buffer.length; i++) {
      const byte = buffer[i]!;
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (byte === backslash) this.#escaped = true;
        else if (byte === quote) this.#inString = false;
        continue;
      }
      if (!this.#inElement) {
        if (this.#depth === 1 && !isSpace(byte) && byte !== comma && byte !== closeBracket) {
          cut("separator", i);
          this.#inElement = true;
        } else {
          if (byte === openBracket && this.#depth === 0) this.#depth = 1;
          else if (byte === closeBracket && this.#depth === 1) this.#depth = 0;
          continue;
        }
      }
      if (byte === quote) this.#inString = true;
      else if (byte === openBrace || byte === openBracket) this.#depth++;
      else if (byte === closeBrace || byte === closeBracket) {
        this.#depth--;
        if (this.#depth === 1) {
          this.#inElement = false;
          cut("element", i + 1);
        } else if (this.#depth < 1) {
          // A primitive element ended by the array's own bracket.
          this.#depth = 0;
          this.#inElement = false;
          cut("element", i);
        }
      } else if (this.#depth === 1 && byte === comma) {
        this.#inElement = false;
        cut("element", i);
      }
    }
    if (!this.#inElement) cut("separator", buffer.length);
    this.#pending = buffer.subarray(start);
    this.#scanned = i - start;
    return pieces;
  }

  /** Bytes left when the stream ends: an unterminated element, if any. */
  end(): ArrayPiece[] {
    const rest = this.#pending;
    this.#pending = Buffer.alloc(0);
    this.#scanned = 0;
    const wasElement = this.#inElement;
    this.#inElement = false;
    return rest.length === 0 ? [] : [{ kind: wasElement ? "element" : "separator", raw: rest }];
  }
}
