import { GenerateContentResponse } from "@google/genai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { geminiResponse } from "../../src/dialects/gemini/response.ts";
import {
  type ExtractedCall,
  type RecordingTurn,
  recordingTurn,
  rewriteBody,
  rewriteStream,
  sse,
  unjudgedCalls,
} from "./rewriter.ts";

/**
 * Gemini response semantics (issue 10, class 9 and escaped keys): what the SDK's accessor
 * (`GenerateContentResponse.functionCalls`, which indexes `candidates[0]` whatever its type) and a
 * loose loop over every candidate's parts read from the rewriter's output was judged and allowed.
 */

const rmArgs = { command: "rm -rf /" };
const call = (name: string, args: unknown = {}) => ({ functionCall: { name, args } });
const response = (candidates: unknown) => ({ candidates, modelVersion: "gemini-test" });
const candidate = (parts: unknown) => ({ content: { role: "model", parts }, index: 0 });

/** Calls a client reads from one response object, through the SDK class and a loose loop. */
function readCalls(body: unknown): ExtractedCall[] {
  if (body === null || typeof body !== "object") return [];
  const sdk = Object.assign(new GenerateContentResponse(), body);
  const calls: ExtractedCall[] = [];
  try {
    for (const fc of sdk.functionCalls ?? []) calls.push({ name: fc.name ?? "", args: fc.args ?? {} });
  } catch {
    // The accessor threw on the shape: the client gets an exception, not a call.
  }
  const candidates = (body as { candidates?: unknown }).candidates;
  for (const c of Object.values(candidates ?? {})) {
    const parts = (c as { content?: { parts?: unknown } })?.content?.parts;
    for (const part of Object.values(parts ?? {})) {
      const found = (part as { functionCall?: { name?: unknown; args?: unknown } })?.functionCall;
      if (found) calls.push({ name: String(found.name), args: found.args ?? {} });
    }
  }
  return calls;
}

function streamCalls(output: Buffer): { calls: ExtractedCall[]; error: boolean } {
  const calls: ExtractedCall[] = [];
  for (const line of output.toString().split("\n")) {
    if (!line.startsWith("data: ")) continue;
    let body: unknown;
    try {
      body = JSON.parse(line.slice(6));
    } catch {
      continue;
    }
    if ((body as { error?: unknown }).error) return { calls, error: true };
    calls.push(...readCalls(body));
  }
  return { calls, error: false };
}

async function run(events: readonly unknown[] | string, turn: RecordingTurn = recordingTurn("gemini")) {
  const input = typeof events === "string" ? events : sse(events.map((e) => [undefined, e] as const));
  const output = await rewriteStream(geminiResponse, turn, input);
  return { turn, output: output.toString(), ...streamCalls(output) };
}

describe("Gemini: objects where arrays are expected (class 9)", () => {
  const shapes: [string, unknown, RegExp][] = [
    [
      "candidates as an object",
      response({ 0: candidate([call("Bash", rmArgs)]) }),
      /response.candidates is not an array/,
    ],
    [
      "parts as an object",
      response([candidate({ 0: call("Bash", rmArgs) })]),
      /candidate.content.parts is not an array/,
    ],
    [
      "content as an array",
      response([{ content: [call("Bash", rmArgs)] }]),
      /candidate.content is not an object/,
    ],
    [
      "functionCall as an array",
      response([candidate([{ functionCall: [{ name: "Bash" }] }])]),
      /part.functionCall is not an object/,
    ],
    [
      "a name that is not a string",
      response([candidate([{ functionCall: { name: ["Bash"], args: rmArgs } }])]),
      /without a string name/,
    ],
  ];

  for (const [label, body, reason] of shapes) {
    it(`non-streaming: refuses ${label}`, async () => {
      const turn = recordingTurn("gemini");
      expect(await rewriteBody(geminiResponse, turn, body)).toMatchObject({
        refused: expect.stringMatching(reason),
      });
    });

    it(`streaming: refuses ${label} and cuts the stream with an error chunk`, async () => {
      const result = await run([
        response([candidate([{ text: "hi" }])]),
        body,
        response([candidate([call("Bash", rmArgs)])]),
      ]);
      expect(result.turn.refusals).toEqual([expect.stringMatching(reason)]);
      expect(result.error).toBe(true);
      expect(unjudgedCalls(result.calls, result.turn)).toEqual([]);
    });
  }

  it("refuses a JSON-array stream element of another shape and closes the array with an error", async () => {
    const turn = recordingTurn("gemini");
    const input = JSON.stringify([
      response([candidate([{ text: "hi" }])]),
      response({ 0: candidate([call("Bash", rmArgs)]) }),
    ]);
    const output = await rewriteStream(geminiResponse, turn, input, { framing: "json-array" });
    const parsed = JSON.parse(output.toString()) as unknown[];
    expect(parsed.at(-1)).toMatchObject({ error: { message: expect.stringMatching(/Toolwall refused/) } });
    expect(parsed.flatMap(readCalls)).toEqual([]);
  });
});

describe("Gemini: arguments", () => {
  it("judges args that are not an object as unreadable: denied when a rule needs them", async () => {
    const turn = recordingTurn("gemini");
    await rewriteBody(
      geminiResponse,
      turn,
      response([candidate([{ functionCall: { name: "Bash", args: ["rm", "-rf", "/"] } }])]),
    );
    expect(turn.judged).toEqual([{ name: "Bash", args: ["rm", "-rf", "/"], allowed: false }]);
  });
});

describe("Gemini: every streamed chunk is read, not pre-filtered by text", () => {
  it("judges a call behind an escaped key", async () => {
    const escaped = `{"candidates":[{"content":{"role":"model","parts":[{"function\\u0043all":{"name":"Bash","args":{"command":"rm -rf /"}}}]}}]}`;
    const result = await run(`data: ${escaped}\n\n`);
    expect(result.calls).toEqual([]);
    expect(result.turn.judged).toMatchObject([{ name: "Bash", allowed: false }]);
  });
});

describe("Gemini: property — every call a client reads was judged and allowed as read", () => {
  const names = fc.constantFrom("get_weather", "delete_file", "Bash");
  const args = fc.constantFrom(rmArgs, { command: "ls" }, { city: "Paris" });
  const part = fc.oneof(
    fc.record({ text: fc.constant("hi") }),
    fc.tuple(names, args).map(([n, a]) => call(n, a)),
  );
  const asObject = <T>(items: T[]) => Object.fromEntries(items.map((item, i) => [String(i), item]));
  const chunk = fc
    .record({
      parts: fc.array(part, { maxLength: 3 }),
      partsAsObject: fc.boolean(),
      candidatesAsObject: fc.boolean(),
      snake: fc.boolean(),
    })
    .map(({ parts, partsAsObject, candidatesAsObject, snake }) => {
      const renamed: unknown[] = snake
        ? parts.map((p) => ("functionCall" in p ? { function_call: p.functionCall } : p))
        : parts;
      const c = candidate(partsAsObject ? asObject(renamed) : renamed);
      return response(candidatesAsObject ? asObject([c]) : [c]);
    });

  it("holds for generated chunks, streamed and whole", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(chunk, { minLength: 1, maxLength: 4 }), async (chunks) => {
        const streamed = await run(chunks);
        expect(unjudgedCalls(streamed.calls, streamed.turn)).toEqual([]);
        const turn = recordingTurn("gemini");
        const whole = await rewriteBody(geminiResponse, turn, chunks[0]);
        if ("body" in whole) expect(unjudgedCalls(readCalls(whole.body), turn)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
