/**
 * Incremental Server-Sent Events parsing that keeps each event's original bytes, so an event the
 * proxy lets through is written out byte-identical and only rewritten events are serialised anew.
 * Works on bytes: line terminators (CRLF, LF, CR) are ASCII, so a multi-byte UTF-8 character split
 * across network chunks is only decoded once its event is complete.
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
}

const LF = 0x0a;
const CR = 0x0d;

export type LineEnding = "\n" | "\r\n";

export class SseParser {
  #pending: Buffer = Buffer.alloc(0);
  /** Bytes of #pending already scanned without finding an event end. */
  #scanned = 0;
  /** Offset in #pending where the current line starts. */
  #lineStart = 0;
  #eol: LineEnding | undefined;

  /** The framing the stream uses (its first line ending), for events the proxy writes itself. */
  get lineEnding(): LineEnding {
    return this.#eol ?? "\n";
  }

  push(chunk: Buffer): SseEvent[] {
    const buffer = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const events: SseEvent[] = [];
    let eventStart = 0;
    let lineStart = this.#pending.length === 0 ? 0 : this.#lineStart;
    let i = this.#pending.length === 0 ? 0 : this.#scanned;
    while (i < buffer.length) {
      const byte = buffer[i]!;
      if (byte !== LF && byte !== CR) {
        i++;
        continue;
      }
      let end = i + 1;
      if (byte === CR) {
        // A CR at the end of the bytes so far may be the first half of a CRLF: wait for the next byte.
        if (end === buffer.length) break;
        if (buffer[end] === LF) end++;
      }
      this.#eol ??= end - i === 2 ? "\r\n" : "\n";
      const emptyLine = i === lineStart;
      i = end;
      lineStart = end;
      if (emptyLine) {
        // Every byte belongs to some event, stray blank lines included, so output can be byte-identical.
        events.push(parseEvent(buffer.subarray(eventStart, i), true));
        eventStart = i;
      }
    }
    this.#pending = eventStart === buffer.length ? Buffer.alloc(0) : buffer.subarray(eventStart);
    this.#scanned = i - eventStart;
    this.#lineStart = lineStart - eventStart;
    return events;
  }

  /** The stream ended: whatever bytes are left form one incomplete event (or nothing). */
  end(): SseEvent[] {
    const rest = this.#pending;
    this.#pending = Buffer.alloc(0);
    this.#scanned = 0;
    this.#lineStart = 0;
    return rest.length === 0 ? [] : [parseEvent(rest, false)];
  }
}

const lineSplit = /\r\n|\r|\n/;

export function parseEvent(raw: Buffer, complete: boolean): SseEvent {
  const text = raw.toString("utf8");
  let event: string | undefined;
  let data: string | undefined;
  for (const line of text.split(lineSplit)) {
    if (line === "" || line.charCodeAt(0) === 0x3a) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    if (field === "data") data = data === undefined ? value : `${data}\n${value}`;
    else if (field === "event") event = value;
  }
  return { raw, event, data, complete };
}

/** One event in SSE framing; `data` may hold newlines (one `data:` line each). */
export function formatEvent(fields: { event?: string | undefined; data: string }, eol: LineEnding): Buffer {
  let text = fields.event === undefined ? "" : `event: ${fields.event}${eol}`;
  for (const line of fields.data.split(lineSplit)) text += `data: ${line}${eol}`;
  return Buffer.from(text + eol);
}
