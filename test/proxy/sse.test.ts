import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonArraySplitter } from "../../src/codecs/json-array.ts";
import { formatEvent, type SseEvent, SseParser } from "../../src/codecs/sse.ts";

function cut(bytes: Buffer, points: number[]): Buffer[] {
  const sorted = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const point of sorted) {
    pieces.push(bytes.subarray(start, point));
    start = point;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

function parseAll(pieces: Buffer[]): SseEvent[] {
  const parser = new SseParser();
  const events = pieces.flatMap((piece) => parser.push(piece));
  return [...events, ...parser.end()];
}

const sample = (eol: string) =>
  Buffer.from(
    [
      `event: message_start${eol}data: {"type":"message_start"}${eol}${eol}`,
      `: a comment${eol}${eol}`,
      `event: content_block_delta${eol}data: {"text":"héllo wörld 日本語 🎉"}${eol}${eol}`,
      `data: line one${eol}data: line two${eol}${eol}`,
      `event: ping${eol}data: {"type": "ping"}${eol}${eol}`,
    ].join(""),
  );

describe("SseParser", () => {
  for (const [name, eol] of [
    ["LF", "\n"],
    ["CRLF", "\r\n"],
    ["CR", "\r"],
  ] as const) {
    it(`finds the same events under any re-chunking with ${name} framing, bytes intact`, () => {
      const bytes = sample(eol);
      const whole = parseAll([bytes]);
      expect(whole.filter((e) => e.data !== undefined).map((e) => e.data)).toEqual([
        '{"type":"message_start"}',
        '{"text":"héllo wörld 日本語 🎉"}',
        "line one\nline two",
        '{"type": "ping"}',
      ]);
      expect(whole[0]!.event).toBe("message_start");
      fc.assert(
        fc.property(fc.array(fc.nat(), { maxLength: 40 }), (points) => {
          const events = parseAll(cut(bytes, points));
          expect(events.map((e) => [e.event, e.data])).toEqual(whole.map((e) => [e.event, e.data]));
          expect(Buffer.concat(events.map((e) => e.raw)).equals(bytes)).toBe(true);
        }),
        { numRuns: 300 },
      );
    });
  }

  it("returns an unterminated last event as incomplete", () => {
    const parser = new SseParser();
    expect(parser.push(Buffer.from('data: {"a":1}\n\ndata: {"b"'))).toHaveLength(1);
    const [last] = parser.end();
    expect(last).toMatchObject({ data: '{"b"', complete: false });
  });

  it("formats events with the stream's own line ending", () => {
    const parser = new SseParser();
    parser.push(Buffer.from("data: x\r\n\r\n"));
    expect(formatEvent({ event: "e", data: "a\nb" }, parser.lineEnding).toString()).toBe(
      "event: e\r\ndata: a\r\ndata: b\r\n\r\n",
    );
  });
});

describe("JsonArraySplitter", () => {
  const array = Buffer.from(
    '[{"candidates":[{"content":{"parts":[{"text":"a]},{\\"x"}]}}]}\n,\r\n{"b":[1,2,{"c":"日本"}]}\n,{"d":"🎉"}]',
  );
  it("splits elements under any re-chunking and keeps every byte", () => {
    const split = (pieces: Buffer[]) => {
      const splitter = new JsonArraySplitter();
      return [...pieces.flatMap((p) => splitter.push(p)), ...splitter.end()];
    };
    const whole = split([array]);
    const elements = whole.filter((p) => p.kind === "element").map((p) => JSON.parse(p.raw.toString()));
    expect(elements).toHaveLength(3);
    expect(elements[1]).toEqual({ b: [1, 2, { c: "日本" }] });
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 30 }), (points) => {
        const pieces = split(cut(array, points));
        const texts = pieces.filter((p) => p.kind === "element").map((p) => p.raw.toString());
        expect(texts).toEqual(whole.filter((p) => p.kind === "element").map((p) => p.raw.toString()));
        expect(Buffer.concat(pieces.map((p) => p.raw)).equals(array)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
