import fc from "fast-check";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { openaiChatResponse } from "../../src/dialects/openai-chat/response.ts";
import {
  type ExtractedCall,
  expectRefusal,
  fetchReturning,
  type RecordingTurn,
  recordingTurn,
  rewriteBody,
  rewriteStream,
  sse,
  unjudgedCalls,
  unreadable,
} from "./rewriter.ts";

/**
 * OpenAI Chat Completions semantics (issue 10, classes 6, 7, 9 and "a decision is final"): the
 * rewriter's output read by the official SDK — its ChatCompletionStream and a hand-written loop that
 * accumulates `tool_calls[index]` the way agent frameworks do — holds no call that was not judged and
 * allowed as read.
 */

const envelope = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m" };
type Chunk = Record<string, unknown>;
const chunk = (choices: unknown): Chunk => ({ ...envelope, choices });
const delta = (d: unknown, finish: string | null = null, index: unknown = 0) =>
  chunk([{ index, delta: d, finish_reason: finish }]);
const first = (index: unknown, name: string, id = `call_${name}`, args = "") =>
  delta({ tool_calls: [{ index, id, type: "function", function: { name, arguments: args } }] });
const more = (index: unknown, args: string, extra: Record<string, unknown> = {}) =>
  delta({ tool_calls: [{ index, ...extra, function: { arguments: args, ...(extra.function as object) } }] });
const finish = (reason = "tool_calls") => delta({}, reason);
const rmArgs = JSON.stringify({ command: "rm -rf /" });
const lsArgs = JSON.stringify({ command: "ls" });

function stream(chunks: readonly (Chunk | string)[]): string {
  return sse([...chunks.map((c) => [undefined, c] as const), [undefined, "[DONE]"]]);
}

function parsed(name: string, text: string | undefined): ExtractedCall {
  try {
    return { name, args: JSON.parse(text ?? "") };
  } catch {
    return { name, args: unreadable };
  }
}

/** A loop as agent frameworks write it: `calls[index]` accumulates id, name and argument fragments. */
function accumulate(chunks: OpenAI.ChatCompletionChunk[]): ExtractedCall[] {
  const calls: Record<string, { name: string; args: string }> = {};
  for (const c of chunks) {
    for (const choice of c.choices ?? []) {
      for (const call of choice.delta?.tool_calls ?? []) {
        const key = String(call.index);
        calls[key] ??= { name: "", args: "" };
        const slot = calls[key];
        if (call.function?.name) slot.name = call.function.name;
        if (call.function?.arguments) slot.args += call.function.arguments;
      }
    }
  }
  return Object.values(calls).map((call) => parsed(call.name, call.args));
}

async function sdkCalls(output: Buffer) {
  const client = new OpenAI({
    apiKey: "k",
    baseURL: "http://rewriter.test/v1",
    maxRetries: 0,
    fetch: fetchReturning(output),
  });
  const request = { model: "m", messages: [{ role: "user" as const, content: "hi" }] };
  const calls: ExtractedCall[] = [];
  let error: string | undefined;
  let complete = false;
  try {
    const final = await client.chat.completions.stream(request).finalChatCompletion();
    complete = true;
    for (const choice of final.choices) {
      for (const call of choice.message.tool_calls ?? []) {
        if (call.type === "function") calls.push(parsed(call.function.name, call.function.arguments));
      }
      const legacy = choice.message.function_call;
      if (legacy) calls.push(parsed(legacy.name, legacy.arguments));
    }
  } catch (caught) {
    error = (caught as Error).message;
  }
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  try {
    for await (const c of await client.chat.completions.create({ ...request, stream: true })) chunks.push(c);
  } catch {
    // The loop keeps what it collected before the error.
  }
  return { calls: [...calls, ...accumulate(chunks)], complete, ...(error === undefined ? {} : { error }) };
}

async function run(chunks: readonly (Chunk | string)[], turn: RecordingTurn = recordingTurn("openai-chat")) {
  const output = await rewriteStream(openaiChatResponse, turn, stream(chunks));
  return { turn, output: output.toString(), ...(await sdkCalls(output)) };
}

async function expectRefused(chunks: readonly (Chunk | string)[], reason: RegExp) {
  const result = await run(chunks);
  expectRefusal(result, reason);
  return result;
}

describe("Chat: indices (class 6)", () => {
  for (const index of ["1", "0", null, undefined, 0.5, -1]) {
    it(`refuses a tool call index ${JSON.stringify(index) ?? "missing"}`, async () => {
      await expectRefused(
        [first(0, "Bash"), more(0, lsArgs.slice(0, 5)), more(index, "} "), finish()],
        /index .* is not a non-negative integer/,
      );
    });
  }

  it("refuses a choice index of another type and calls out of order", async () => {
    await expectRefused(
      [delta({ content: "x" }, null, "0"), first(0, "Bash"), finish()],
      /choice: index "0"/,
    );
    await expectRefused(
      [first(1, "Bash"), more(1, rmArgs), finish()],
      /tool call index 1 where call 0 comes next/,
    );
  });
});

describe("Chat: a decision is final (class 7)", () => {
  it("refuses a name in a later delta", async () => {
    await expectRefused(
      [first(0, "get_weather"), more(0, rmArgs, { function: { name: "Bash" } }), finish()],
      /renamed from 'get_weather' to 'Bash'/,
    );
  });

  it("refuses a changed id", async () => {
    await expectRefused(
      [first(0, "Bash", "call_a"), more(0, rmArgs, { id: "call_b" }), finish()],
      /changes its id/,
    );
  });

  it("refuses a duplicate index after another call started", async () => {
    await expectRefused(
      [first(0, "Bash", "a", lsArgs), first(1, "get_weather", "b", "{}"), more(0, "x"), finish()],
      /a delta for tool call 0 after it was decided/,
    );
  });

  it("refuses a renamed legacy function_call", async () => {
    await expectRefused(
      [
        delta({ function_call: { name: "get_weather", arguments: "" } }),
        delta({ function_call: { name: "Bash", arguments: rmArgs } }),
        finish("function_call"),
      ],
      /renamed from 'get_weather' to 'Bash'/,
    );
  });

  it("refuses one entry that is both custom:{Read} and function:{Bash}", async () => {
    const both = delta({
      tool_calls: [
        {
          index: 0,
          id: "c",
          type: "function",
          custom: { name: "Read", input: "x" },
          function: { name: "Bash", arguments: rmArgs },
        },
      ],
    });
    await expectRefused([both, finish()], /both a custom and a function call/);
  });

  it("refuses an object where the tool_calls array goes, and a chunk without choices", async () => {
    await expectRefused(
      [delta({ tool_calls: { 0: { index: 0, function: { name: "Bash", arguments: rmArgs } } } }), finish()],
      /tool_calls is not an array/,
    );
    await expectRefused(
      [{ ...envelope, choices: { 0: { index: 0, delta: {} } } }],
      /choices is not an array/,
    );
  });

  it("refuses a whole message inside a streamed choice (the SDK copies it over what it accumulated)", async () => {
    const message = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "x", type: "function", function: { name: "Bash", arguments: rmArgs } }],
    };
    const smuggled = chunk([{ index: 0, delta: {}, message, finish_reason: "stop" }]);
    await expectRefused(
      [delta({ role: "assistant", content: "hi" }), smuggled],
      /a streamed choice carries a whole message/,
    );
  });

  it("refuses data after [DONE]", async () => {
    const output = await rewriteStream(
      openaiChatResponse,
      recordingTurn("openai-chat"),
      sse([
        [undefined, "[DONE]"],
        [undefined, first(0, "Bash", "c", rmArgs)],
      ]),
    );
    expect(output.toString()).not.toContain("Bash");
  });

  it("judges an escaped key the text pre-filter used to miss", async () => {
    const escaped = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool\\u005fcalls":[{"index":0,"id":"c","type":"function","function":{"name":"Bash","arguments":${JSON.stringify(rmArgs)}}}]},"finish_reason":null}]}`;
    const result = await run([escaped as unknown as Chunk, finish()]);
    expect(result.calls).toEqual([]);
    expect(result.turn.judged).toMatchObject([{ name: "Bash", allowed: false }]);
  });
});

describe("Chat: non-streaming (class 9)", () => {
  const completion = (message: unknown, choices?: unknown) => ({
    id: "c",
    object: "chat.completion",
    choices: choices ?? [{ index: 0, message, finish_reason: "tool_calls" }],
  });
  const bash = { id: "c1", type: "function", function: { name: "Bash", arguments: rmArgs } };

  it("refuses objects where arrays go and entries both custom and function", async () => {
    const turn = recordingTurn("openai-chat");
    const message = { role: "assistant", content: null, tool_calls: [bash] };
    expect(
      await rewriteBody(openaiChatResponse, turn, completion(message, { 0: { index: 0, message } })),
    ).toEqual({ refused: "completion choices is not an array" });
    expect(
      await rewriteBody(openaiChatResponse, turn, completion({ ...message, tool_calls: { 0: bash } })),
    ).toMatchObject({ refused: /tool_calls is not an array/ });
    expect(
      await rewriteBody(
        openaiChatResponse,
        turn,
        completion({ ...message, tool_calls: [{ ...bash, custom: { name: "Read", input: "" } }] }),
      ),
    ).toMatchObject({ refused: /both a custom and a function call/ });
    expect(turn.judged).toEqual([]);
  });

  it("judges arguments that are JSON but not an object as unreadable", async () => {
    const turn = recordingTurn("openai-chat");
    const text = JSON.stringify("rm -rf /");
    const message = {
      role: "assistant",
      content: null,
      tool_calls: [{ ...bash, function: { name: "Bash", arguments: text } }],
    };
    await rewriteBody(openaiChatResponse, turn, completion(message));
    expect(turn.judged).toEqual([{ name: "Bash", args: "rm -rf /", allowed: false }]);
  });

  it("judges a legacy function_call next to tool_calls", async () => {
    const turn = recordingTurn("openai-chat");
    const message = {
      role: "assistant",
      content: null,
      tool_calls: [{ ...bash, function: { name: "get_weather", arguments: "{}" } }],
      function_call: { name: "Bash", arguments: rmArgs },
    };
    const result = await rewriteBody(openaiChatResponse, turn, completion(message));
    expect(turn.judged.map((j) => [j.name, j.allowed])).toEqual([
      ["get_weather", true],
      ["Bash", false],
    ]);
    expect(result).toMatchObject({
      body: { choices: [{ message: { tool_calls: [{ function: { name: "get_weather" } }] } }] },
    });
    expect(JSON.stringify(result)).not.toContain("rm -rf");
  });
});

describe("Chat: property — every call the SDK extracts was judged and allowed as extracted", () => {
  const names = fc.constantFrom("get_weather", "delete_file", "Bash");
  const args = fc.constantFrom(lsArgs, rmArgs, '{"city":"Paris"}');
  const call = fc.record({ name: names, args, split: fc.nat(20) });
  const perturbation = fc.oneof(
    fc.record({
      kind: fc.constant("index" as const),
      at: fc.nat(30),
      index: fc.constantFrom("0", "1", null, 0, 1, 2, 0.5, undefined),
    }),
    fc.record({ kind: fc.constant("rename" as const), at: fc.nat(30), name: names }),
    fc.record({ kind: fc.constant("id" as const), at: fc.nat(30) }),
    fc.record({ kind: fc.constant("reopen" as const), index: fc.nat(3), args }),
    fc.record({ kind: fc.constant("both" as const), at: fc.nat(30) }),
    fc.record({ kind: fc.constant("duplicate" as const), at: fc.nat(30) }),
    fc.record({ kind: fc.constant("drop" as const), at: fc.nat(30) }),
  );

  it("holds for generated streams with perturbations", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(call, { maxLength: 3 }),
        fc.array(perturbation, { maxLength: 3 }),
        async (calls, perturbations) => {
          let body: Chunk[] = [delta({ role: "assistant", content: "" })];
          calls.forEach((c, index) => {
            body.push(
              first(index, c.name, `call_${index}`, c.args.slice(0, c.split)),
              more(index, c.args.slice(c.split)),
            );
          });
          body.push(finish());
          const entryOf = (c: Chunk) =>
            ((c.choices as { delta: { tool_calls?: Record<string, unknown>[] } }[])[0]?.delta.tool_calls ??
              [])[0];
          for (const p of perturbations) {
            const at = "at" in p ? p.at % Math.max(body.length, 1) : 0;
            const target = body[at];
            const entry = target ? entryOf(target) : undefined;
            if (p.kind === "index" && entry) body[at] = delta({ tool_calls: [{ ...entry, index: p.index }] });
            else if (p.kind === "rename" && entry)
              body[at] = delta({
                tool_calls: [{ ...entry, function: { ...(entry.function as object), name: p.name } }],
              });
            else if (p.kind === "id" && entry)
              body[at] = delta({ tool_calls: [{ ...entry, id: "call_other" }] });
            else if (p.kind === "reopen") body.splice(body.length - 1, 0, more(p.index, p.args));
            else if (p.kind === "both" && entry)
              body[at] = delta({ tool_calls: [{ ...entry, custom: { name: "Read", input: "x" } }] });
            else if (p.kind === "duplicate" && target) body.splice(at, 0, target);
            else if (p.kind === "drop") body = body.filter((_, i) => i !== at);
          }
          const result = await run(body);
          expect(unjudgedCalls(result.calls, result.turn, result.complete)).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });
});
