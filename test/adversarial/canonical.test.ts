import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkJsonDepth, readJson } from "../../src/codecs/framing.ts";
import { JsonArrayCanonicaliser } from "../../src/codecs/json-array.ts";
import { SseCanonicaliser, SseParser } from "../../src/codecs/sse.ts";
import { ResponseRefused } from "../../src/engine/refusal.ts";
import { cutAt } from "../helpers/replay.ts";
import { canonicalStream, readEvents } from "../helpers/sse.ts";

/** The framing layer alone, bytes in and bytes out. */

const limits = { maxEventBytes: 1024 * 1024, maxJsonDepth: 64 };

/** Cut points taken modulo the length, so generated numbers land inside the bytes. */
function cut(bytes: Buffer, points: readonly number[]): Buffer[] {
  return cutAt(
    bytes,
    points.map((p) => p % (bytes.length + 1)),
  );
}

function canonicalSse(pieces: readonly Buffer[]): string {
  const canonicaliser = new SseCanonicaliser(limits);
  const out = [...pieces.flatMap((piece) => canonicaliser.push(piece)), ...canonicaliser.end()];
  return Buffer.concat(out).toString("utf8");
}

function canonicalArray(pieces: readonly Buffer[]): string {
  const canonicaliser = new JsonArrayCanonicaliser(limits);
  const out = [...pieces.flatMap((piece) => canonicaliser.push(piece)), ...canonicaliser.end()];
  return Buffer.concat(out).toString("utf8");
}

const jsonValue = fc.jsonValue({ maxDepth: 4 });
const eventName = fc.option(
  fc.constantFrom("message_start", "content_block_delta", "response.completed", ""),
  {
    nil: undefined,
  },
);
const events = fc.array(fc.record({ event: eventName, data: jsonValue }), { maxLength: 6 });
const eol = fc.constantFrom("\n", "\r\n", "\r");

/** A well-formed stream with the quirks the SSE standard allows (comments, ids, multi-line data). */
function looseStream(
  list: readonly { event: string | undefined; data: unknown }[],
  ending: string,
  pretty: boolean,
  bom: boolean,
): Buffer {
  let text = bom ? "\uFEFF" : "";
  for (const { event, data } of list) {
    text += `: comment${ending}id: 1${ending}`;
    if (event !== undefined) text += `event:${event}${ending}`;
    for (const line of JSON.stringify(data, null, pretty ? 1 : 0).split("\n"))
      text += `data:${line}${ending}`;
    text += ending;
  }
  return Buffer.from(text);
}

describe("SseCanonicaliser", () => {
  it("writes every event of a well-formed stream once, canonically, under any chunking", () => {
    fc.assert(
      fc.property(
        events,
        eol,
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 20 }),
        (list, ending, pretty, bom, points) => {
          const input = looseStream(list, ending, pretty, bom);
          const output = canonicalSse(cut(input, points));
          expect(output).toBe(canonicalSse([input]));
          expect(output.replaceAll("\r\n", "\n").replaceAll("\r", "\n")).toMatch(canonicalStream);
          expect(readEvents(output)).toEqual(
            list.map(({ event, data }) => ({ event, data: JSON.parse(JSON.stringify(data)) })),
          );
          // Canonical output is a fixed point.
          expect(canonicalSse([Buffer.from(output)])).toBe(output);
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    ["a BOM at the start of a later line", "data: {}\n\n\uFEFFdata: {}\n\n", "byte order mark"],
    ["a BOM-only line", 'event: a\ndata: {"a":1}\n\uFEFF\ndata: {}\n\n', "byte order mark"],
    ["a continuation line without a field", 'data: {"a":\n 1}\n\n', "unknown field"],
    ["data that is not JSON", "data: hello\n\n", "not JSON"],
    [
      "data nested too deep",
      `data: ${"[".repeat(65)}${"]".repeat(65)}\n\n`,
      "nested deeper than the limit of 64",
    ],
  ])("refuses %s", (_, text, message) => {
    expect(() => canonicalSse([Buffer.from(text)])).toThrow(message);
    expect(() => canonicalSse([Buffer.from(text)])).toThrow(ResponseRefused);
  });

  it("keeps [DONE] and drops events without data", () => {
    expect(canonicalSse([Buffer.from("event: ping\n\n: hi\n\ndata: [DONE]\n\n")])).toBe("data: [DONE]\n\n");
  });

  it("completes an unterminated last event that reads as JSON and leaves a cut one unterminated", () => {
    expect(canonicalSse([Buffer.from('data: {"a": 1}')])).toBe('data: {"a":1}\n\n');
    expect(canonicalSse([Buffer.from('event: x\ndata: {"a": ')])).toBe('event: x\ndata: {"a": \n');
  });
});

describe("SseParser bounds", () => {
  it("reads a 16 MiB event in 16 KiB chunks in linear time and refuses one over its limit", () => {
    const event = Buffer.from(`data: "${"z".repeat(16 * 1024 * 1024)}"\n\n`);
    const parser = new SseParser({ maxEventBytes: 32 * 1024 * 1024 });
    const started = performance.now();
    let found = 0;
    for (let at = 0; at < event.length; at += 16 * 1024)
      found += parser.push(event.subarray(at, at + 16 * 1024)).length;
    expect(found).toBe(1);
    expect(performance.now() - started).toBeLessThan(2000);
    const small = new SseParser({ maxEventBytes: 1000 });
    expect(() => {
      for (let at = 0; at < 5000; at += 100) small.push(event.subarray(at, at + 100));
    }).toThrow("an event is larger than the limit of 1000 bytes");
  });
});

describe("JsonArrayCanonicaliser", () => {
  it("writes every element once, canonically, under any chunking", () => {
    fc.assert(
      fc.property(
        fc.array(jsonValue, { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (elements, points) => {
          const input = Buffer.from(JSON.stringify(elements, null, 2).replaceAll("\n", "\r\n"));
          const output = canonicalArray(cut(input, points));
          expect(output).toBe(JSON.stringify(elements));
          expect(JSON.parse(output)).toEqual(JSON.parse(input.toString()));
          expect(canonicalArray([Buffer.from(output)])).toBe(output);
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    ["bytes between elements", '[{"a":1} x {"b":2}]', "an array element is not JSON"],
    ["an element that is not JSON", "[{\"a\":1},{'b':2}]", "not JSON"],
    ["more after the closing bracket", '[{"a":1}] {"b":2}', "bytes outside its elements"],
    ["a second array", '[{"a":1}] [{"b":2}]', "after its closing bracket"],
  ])("refuses %s", (_, text, message) => {
    expect(() => canonicalArray([Buffer.from(text)])).toThrow(message);
  });
});

describe("readJson", () => {
  it("reads one leading BOM like response.json() and refuses what JSON.parse refuses", () => {
    expect(readJson('\uFEFF{"a":1}', 8, "body")).toEqual({ a: 1 });
    expect(() => readJson('\uFEFF\uFEFF{"a":1}', 8, "the body")).toThrow("the body is not JSON");
  });

  it("counts nesting outside strings only", () => {
    expect(() => checkJsonDepth(`{"a":"${"[".repeat(100)}"}`, 2)).not.toThrow();
    expect(() => checkJsonDepth(`{"a":"\\"[[[", "b":[[]]}`, 2)).toThrow("nested deeper than the limit of 2");
  });
});

describe("JsonArraySplitter bounds", () => {
  it("splits a 16 MiB element arriving in 16 KiB chunks in linear time", () => {
    const array = Buffer.from(`[{"text":"${"z".repeat(16 * 1024 * 1024)}"},{"b":1}]`);
    const canonicaliser = new JsonArrayCanonicaliser({ maxEventBytes: 32 * 1024 * 1024, maxJsonDepth: 8 });
    const started = performance.now();
    const out: Buffer[] = [];
    for (let at = 0; at < array.length; at += 16 * 1024)
      out.push(...canonicaliser.push(array.subarray(at, at + 16 * 1024)));
    out.push(...canonicaliser.end());
    expect(performance.now() - started).toBeLessThan(3000);
    expect(Buffer.concat(out).equals(array)).toBe(true);
  });
});
