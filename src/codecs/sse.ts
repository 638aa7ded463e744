import { ResponseRefused } from "../engine/refusal.ts";
import { readJson } from "./framing.ts";

/**
 * Incremental Server-Sent Events parsing that keeps each event's original bytes (the MCP route relays
 * them as received). An LLM answer is first read strictly and re-serialised by SseCanonicaliser, so
 * the dialects judge, and the client receives, only its canonical form. Works on bytes: line
 * terminators (CRLF, LF, CR) are ASCII, so a multi-byte UTF-8 character split across network chunks
 * is only decoded once its event is complete.
 */

export interface SseEvent {
  /** The event's bytes exactly as received, including its terminating blank line. */
  raw: Buffer;
  /** The `event:` field, undefined when absent. */
  event: string | undefined;
  /** The `data:` lines joined with "\n"; undefined when the event has no data line. */
  data: string | undefined;
  /** False for the bytes left at the end of a stream without a terminating blank line. */
  complete: boolean;
  /** Why a strict reader cannot take this event (a line led by a BOM, an unknown field); see SseCanonicaliser. */
  unreadable?: ResponseRefused;
}

const LF = 0x0a;
const bomCode = 0xfeff;
const CR = 0x0d;

export type LineEnding = "\n" | "\r\n";

export interface SseParserOptions {
  /** Largest event (bytes, terminator included) before `push` throws a ResponseRefused. */
  maxEventBytes?: number;
}

/**
 * Splits a byte stream into events. Linear in the bytes received: the bytes of an event still open
 * are kept as a list of pieces and joined once, when the event ends.
 */
export class SseParser {
  readonly #maxEventBytes: number;
  /** Pieces of the event still open, and their total length. */
  #pieces: Buffer[] = [];
  #pendingLength = 0;
  /** The open line has no bytes yet (a line ending here ends the event). */
  #lineEmpty = true;
  /** The last byte seen was a CR whose meaning (CR or CRLF) waits for the next byte. */
  #crPending = false;
  #eol: LineEnding | undefined;

  constructor(options: SseParserOptions = {}) {
    this.#maxEventBytes = options.maxEventBytes ?? Number.POSITIVE_INFINITY;
  }

  /** The framing the stream uses (its first line ending), for events the proxy writes itself. */
  get lineEnding(): LineEnding {
    return this.#eol ?? "\n";
  }

  push(chunk: Buffer): SseEvent[] {
    const events: SseEvent[] = [];
    let eventStart = 0;
    let i = 0;
    if (this.#crPending && chunk.length > 0) {
      this.#crPending = false;
      const crlf = chunk[0] === LF;
      this.#eol ??= crlf ? "\r\n" : "\n";
      if (crlf) i = 1;
      if (this.#lineEndsEvent()) {
        events.push(this.#take(chunk, i));
        eventStart = i;
      }
    }
    // Line endings are found with indexOf (native) rather than byte by byte: events are long lines.
    let nextCr = chunk.indexOf(CR, i);
    while (i < chunk.length) {
      if (nextCr !== -1 && nextCr < i) nextCr = chunk.indexOf(CR, i);
      const nextLf = chunk.indexOf(LF, i);
      const at = nextLf === -1 ? nextCr : nextCr === -1 ? nextLf : Math.min(nextLf, nextCr);
      if (at === -1) {
        this.#lineEmpty = false;
        i = chunk.length;
        break;
      }
      if (at > i) this.#lineEmpty = false;
      if (chunk[at] === CR && at + 1 === chunk.length) {
        // The first half of a CRLF, perhaps: decided when the next byte arrives.
        this.#crPending = true;
        i = chunk.length;
        break;
      }
      const end = chunk[at] === CR && chunk[at + 1] === LF ? at + 2 : at + 1;
      this.#eol ??= end - at === 2 ? "\r\n" : "\n";
      i = end;
      if (this.#lineEndsEvent()) {
        events.push(this.#take(chunk.subarray(eventStart), i - eventStart));
        eventStart = i;
      }
    }
    if (eventStart < chunk.length) {
      const rest = chunk.subarray(eventStart);
      this.#pieces.push(rest);
      this.#pendingLength += rest.length;
      if (this.#pendingLength > this.#maxEventBytes) {
        throw new ResponseRefused(
          `an event is larger than the limit of ${this.#maxEventBytes} bytes`,
          "event size",
        );
      }
    }
    return events;
  }

  /** Called at each line ending: true when the line was empty (the event ends), then starts a new line. */
  #lineEndsEvent(): boolean {
    const ends = this.#lineEmpty;
    this.#lineEmpty = true;
    return ends;
  }

  /** The open event completed by `chunk[0, length)`. */
  #take(chunk: Buffer, length: number): SseEvent {
    const tail = chunk.subarray(0, length);
    const raw =
      this.#pieces.length === 0 ? tail : Buffer.concat([...this.#pieces, tail], this.#pendingLength + length);
    this.#pieces = [];
    this.#pendingLength = 0;
    if (raw.length > this.#maxEventBytes) {
      throw new ResponseRefused(
        `an event is larger than the limit of ${this.#maxEventBytes} bytes`,
        "event size",
      );
    }
    return parseEvent(raw, true);
  }

  /** The stream ended: whatever bytes are left form one incomplete event (or nothing). */
  end(): SseEvent[] {
    const rest = Buffer.concat(this.#pieces, this.#pendingLength);
    this.#pieces = [];
    this.#pendingLength = 0;
    this.#lineEmpty = true;
    this.#crPending = false;
    return rest.length === 0 ? [] : [parseEvent(rest, false)];
  }
}

const lineSplit = /\r\n|\r|\n/;

export function parseEvent(raw: Buffer, complete: boolean): SseEvent {
  const text = raw.toString("utf8");
  let event: string | undefined;
  let data: string | undefined;
  let unreadable: ResponseRefused | undefined;
  for (const line of text.split(lineSplit)) {
    if (line.charCodeAt(0) === bomCode) {
      unreadable ??= new ResponseRefused("an event-stream line starts with a byte order mark", "bom");
    }
    if (line === "" || line.charCodeAt(0) === 0x3a) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    if (field === "data") data = data === undefined ? value : `${data}\n${value}`;
    else if (field === "event") event = value;
    else if (field !== "id" && field !== "retry") {
      unreadable ??= new ResponseRefused(
        `an event-stream line has the unknown field ${JSON.stringify(field.slice(0, 40))}`,
        "sse field",
      );
    }
  }
  return unreadable ? { raw, event, data, complete, unreadable } : { raw, event, data, complete };
}

function fieldLines(fields: { event?: string | undefined; data: string }, eol: LineEnding): string {
  let text = fields.event === undefined ? "" : `event: ${fields.event}${eol}`;
  if (!/[\r\n]/.test(fields.data)) return `${text}data: ${fields.data}${eol}`;
  for (const line of fields.data.split(lineSplit)) text += `data: ${line}${eol}`;
  return text;
}

/** One event in SSE framing; `data` may hold newlines (one `data:` line each). */
export function formatEvent(fields: { event?: string | undefined; data: string }, eol: LineEnding): Buffer {
  return Buffer.from(fieldLines(fields, eol) + eol);
}

/** An event's lines without the blank line that would end it (a stream cut short inside it). */
function formatUnterminated(fields: { event?: string | undefined; data: string }, eol: LineEnding): Buffer {
  return Buffer.from(fieldLines(fields, eol));
}

export interface SseCanonicaliserOptions {
  maxEventBytes: number;
  maxJsonDepth: number;
}

const BOM = "\uFEFF";
const utf8Bom = Buffer.from(BOM);

/**
 * Reads an LLM event stream strictly and writes back only what it read, canonically: one `event:`
 * line (when the event has a name), one `data:` line holding `JSON.stringify` of the parsed data
 * (or the `[DONE]` sentinel), a blank line, in the stream's line ending. Comments, `id:`, `retry:`
 * and events without data are dropped. A BOM is allowed only as the stream's first character. A
 * line with an unknown field, a line starting with a BOM or data that is not JSON is refused
 * (ResponseRefused): the SDKs read those differently from each other, so no single reading is safe.
 * Whatever quirk the upstream's bytes had, the client — and the dialect judging them — sees one form.
 */
export class SseCanonicaliser {
  readonly #parser: SseParser;
  readonly #maxJsonDepth: number;
  /** The stream's first bytes while fewer than a BOM's length have arrived; undefined after. */
  #head: Buffer | undefined = Buffer.alloc(0);

  constructor(options: SseCanonicaliserOptions) {
    this.#parser = new SseParser({ maxEventBytes: options.maxEventBytes });
    this.#maxJsonDepth = options.maxJsonDepth;
  }

  push(chunk: Buffer): Buffer[] {
    let bytes = chunk;
    if (this.#head !== undefined) {
      // Hold the first bytes until it is known whether they are a BOM (the SDKs drop one there).
      bytes = this.#head.length === 0 ? chunk : Buffer.concat([this.#head, chunk]);
      if (bytes.length < utf8Bom.length) {
        this.#head = bytes;
        return [];
      }
      this.#head = undefined;
      if (bytes.subarray(0, utf8Bom.length).equals(utf8Bom)) bytes = bytes.subarray(utf8Bom.length);
    }
    const out: Buffer[] = [];
    for (const event of this.#parser.push(bytes)) {
      const fields = strictFields(event);
      if (fields.data === undefined) continue;
      out.push(
        formatEvent({ event: fields.event, data: canonicalData(fields.data, this.#maxJsonDepth) }, this.#eol),
      );
    }
    return out;
  }

  get #eol(): LineEnding {
    return this.#parser.lineEnding;
  }

  /**
   * The stream ended. An unterminated last event whose data reads as JSON is completed; one that
   * does not (cut short) goes on without its blank line, for the dialect to decide what it held.
   */
  end(): Buffer[] {
    const head = this.#head;
    this.#head = undefined;
    const out = head?.length ? this.push(head) : [];
    for (const event of this.#parser.end()) {
      const fields = strictFields(event);
      if (fields.data === undefined) continue;
      let data: string | undefined;
      try {
        data = canonicalData(fields.data, this.#maxJsonDepth);
      } catch {
        data = undefined;
      }
      if (data !== undefined) out.push(formatEvent({ event: fields.event, data }, this.#eol));
      else out.push(formatUnterminated({ event: fields.event, data: fields.data }, this.#eol));
    }
    return out;
  }
}

const doneSentinel = "[DONE]";

function canonicalData(data: string, maxJsonDepth: number): string {
  if (data === doneSentinel) return data;
  return JSON.stringify(readJson(data, maxJsonDepth, "an event's data"));
}

function strictFields(event: SseEvent): { event: string | undefined; data: string | undefined } {
  if (event.unreadable) throw event.unreadable;
  return { event: event.event, data: event.data };
}

/**
 * A byte stream without the one BOM that may open it. Clients decode an event stream with
 * TextDecoder (the MCP SDK's TextDecoderStream), which drops a leading BOM, so a reader that keeps
 * it would see a `\uFEFFdata` field where the client sees `data`: a parser differential.
 */
export async function* withoutLeadingBom(source: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  let head: Buffer | undefined = Buffer.alloc(0);
  for await (const chunk of source) {
    if (head === undefined) {
      yield chunk;
      continue;
    }
    const bytes: Buffer = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
    if (bytes.length < utf8Bom.length && utf8Bom.subarray(0, bytes.length).equals(bytes)) {
      head = bytes;
      continue;
    }
    head = undefined;
    yield bytes.subarray(0, utf8Bom.length).equals(utf8Bom) ? bytes.subarray(utf8Bom.length) : bytes;
  }
  if (head?.length) yield head;
}
