/**
 * Splits a JSON array that arrives incrementally (Gemini's streamGenerateContent without alt=sse) into
 * its top-level elements, keeping every byte: the brackets, commas and whitespace between elements come
 * out as separators. JsonArrayCanonicaliser reads an LLM answer through it strictly and re-serialises
 * it before a dialect sees it.
 */

import { ResponseRefused } from "../engine/refusal.ts";
import { readJson } from "./framing.ts";

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
  /** Bytes of the element still open (from earlier chunks), joined once when it ends. */
  #parts: Buffer[] = [];
  #partsLength = 0;
  /** Nesting depth so far: 0 before the array, 1 between elements. */
  #depth = 0;
  #inString = false;
  #escaped = false;
  #inElement = false;

  /** Bytes held for an element not yet complete. */
  get pendingBytes(): number {
    return this.#partsLength;
  }

  /** Linear in the bytes received: an open element's earlier chunks are kept, not re-copied. */
  push(chunk: Buffer): ArrayPiece[] {
    const pieces: ArrayPiece[] = [];
    let start = 0;
    const cut = (kind: ArrayPiece["kind"], end: number) => {
      const tail = chunk.subarray(start, end);
      const raw = this.#parts.length === 0 ? tail : Buffer.concat([...this.#parts, tail]);
      this.#parts = [];
      this.#partsLength = 0;
      if (raw.length > 0) pieces.push({ kind, raw });
      start = end;
    };
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
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
    if (!this.#inElement) cut("separator", chunk.length);
    else if (start < chunk.length) {
      this.#parts.push(chunk.subarray(start));
      this.#partsLength += chunk.length - start;
    }
    return pieces;
  }

  /** Bytes left when the stream ends: an unterminated element, if any. */
  end(): ArrayPiece[] {
    const rest = Buffer.concat(this.#parts, this.#partsLength);
    this.#parts = [];
    this.#partsLength = 0;
    const wasElement = this.#inElement;
    this.#inElement = false;
    return rest.length === 0 ? [] : [{ kind: wasElement ? "element" : "separator", raw: rest }];
  }
}

export interface JsonArrayCanonicaliserOptions {
  maxEventBytes: number;
  maxJsonDepth: number;
}

const structural = /^[\s[\],]*$/;

/**
 * Reads a streamed JSON array strictly and writes back only what it read: `[`, each element as
 * `JSON.stringify` of its parsed value, `,` between them, `]` once the upstream closed the array.
 * Anything between elements other than whitespace and the array's punctuation, an element that is
 * not JSON or one over the size limit is refused (ResponseRefused). An unterminated last element goes
 * on as received, for the dialect to decide what it held (no JSON reader accepts the array then).
 */
export class JsonArrayCanonicaliser {
  readonly #splitter = new JsonArraySplitter();
  readonly #options: JsonArrayCanonicaliserOptions;
  #opened = false;
  #elements = 0;
  #closed = false;

  constructor(options: JsonArrayCanonicaliserOptions) {
    this.#options = options;
  }

  push(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    // A refusal drops this chunk's output: the counts must describe what the client got.
    const before = { opened: this.#opened, elements: this.#elements, closed: this.#closed };
    try {
      for (const piece of this.#splitter.push(chunk)) this.#piece(piece, out);
    } catch (error) {
      this.#opened = before.opened;
      this.#elements = before.elements;
      this.#closed = before.closed;
      throw error;
    }
    if (this.#splitter.pendingBytes > this.#options.maxEventBytes) {
      throw new ResponseRefused(
        `an array element is larger than the limit of ${this.#options.maxEventBytes} bytes`,
        "event size",
      );
    }
    return out;
  }

  end(): Buffer[] {
    const out: Buffer[] = [];
    for (const piece of this.#splitter.end()) {
      if (piece.kind === "separator") this.#piece(piece, out);
      else out.push(Buffer.concat([this.#prefix(), piece.raw]));
    }
    return out;
  }

  /** Ends what was written so far as a complete array whose last element is `error`. */
  closingError(error: unknown): Buffer {
    if (this.#closed) return Buffer.alloc(0);
    const text = `${this.#prefix().toString()}${JSON.stringify(error)}]`;
    this.#closed = true;
    return Buffer.from(text);
  }

  #prefix(): Buffer {
    const prefix = this.#elements === 0 ? (this.#opened ? "" : "[") : ",";
    this.#opened = true;
    this.#elements++;
    return Buffer.from(prefix);
  }

  #piece(piece: ArrayPiece, out: Buffer[]): void {
    const text = piece.raw.toString("utf8");
    if (this.#closed) {
      if (piece.kind === "separator" && text.trim() === "") return;
      throw new ResponseRefused("the JSON array stream goes on after its closing bracket", "json array");
    }
    if (piece.kind === "separator") {
      if (!structural.test(text)) {
        throw new ResponseRefused("the JSON array stream has bytes outside its elements", "json array");
      }
      if (!this.#opened && text.includes("[")) {
        this.#opened = true;
        out.push(Buffer.from("["));
      }
      if (text.includes("]") && this.#opened) {
        this.#closed = true;
        out.push(Buffer.from("]"));
      }
      return;
    }
    if (piece.raw.length > this.#options.maxEventBytes) {
      throw new ResponseRefused(
        `an array element is larger than the limit of ${this.#options.maxEventBytes} bytes`,
        "event size",
      );
    }
    const value = readJson(text, this.#options.maxJsonDepth, "an array element");
    out.push(Buffer.concat([this.#prefix(), Buffer.from(JSON.stringify(value))]));
  }
}
