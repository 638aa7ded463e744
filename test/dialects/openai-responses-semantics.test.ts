import fc from "fast-check";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { openaiResponsesResponse } from "../../src/dialects/openai-responses/response.ts";
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
 * OpenAI Responses semantics (issue 10, classes 5–9 and "a decision is final"): the rewriter's output
 * read by the official SDK — its strict ResponseStream and a plain iteration of the raw events, as a
 * hand-written agent loop would read them — holds no call that was not judged and allowed as read.
 */

type Event = readonly [string | undefined, Record<string, unknown>];

const response = (output: unknown[] = [], status = "in_progress") => ({
  id: "resp_1",
  object: "response",
  created_at: 1,
  status,
  model: "m",
  output,
  tools: [],
  parallel_tool_calls: true,
});
const created = (output: unknown[] = []): Event => [
  "response.created",
  { type: "response.created", response: response(output) },
];
const functionCall = (name: string, args: string, id = `fc_${name}`) => ({
  id,
  type: "function_call",
  status: "completed",
  arguments: args,
  call_id: `call_${id}`,
  name,
});
const added = (index: unknown, name: string, id = `fc_${name}`): Event => [
  "response.output_item.added",
  {
    type: "response.output_item.added",
    output_index: index,
    item: { ...functionCall(name, "", id), status: "in_progress" },
  },
];
const argsDelta = (index: unknown, delta: string, id: string): Event => [
  "response.function_call_arguments.delta",
  { type: "response.function_call_arguments.delta", output_index: index, item_id: id, delta },
];
const argsDone = (index: unknown, args: string, id: string): Event => [
  "response.function_call_arguments.done",
  { type: "response.function_call_arguments.done", output_index: index, item_id: id, arguments: args },
];
const itemDone = (index: unknown, item: unknown): Event => [
  "response.output_item.done",
  { type: "response.output_item.done", output_index: index, item },
];
const completed = (output: unknown[]): Event => [
  "response.completed",
  { type: "response.completed", response: response(output, "completed") },
];
const rmArgs = JSON.stringify({ command: "rm -rf /" });
const lsArgs = JSON.stringify({ command: "ls" });

/** One whole function call item at `index`, streamed in one delta. */
function call(index: number, name: string, args: string, id = `fc_${name}`): Event[] {
  return [
    added(index, name, id),
    argsDelta(index, args, id),
    argsDone(index, args, id),
    itemDone(index, functionCall(name, args, id)),
  ];
}

function numbered(events: readonly Event[]): string {
  return sse(events.map(([name, data], sequence) => [name, { ...data, sequence_number: sequence }] as const));
}

function extracted(item: unknown): ExtractedCall | undefined {
  const value = item as { type?: string; name?: string; arguments?: string; input?: string };
  if (value.type === "custom_tool_call") return { name: value.name ?? "", args: { input: value.input } };
  if (value.type !== "function_call") return undefined;
  try {
    return { name: value.name ?? "", args: JSON.parse(value.arguments ?? "") };
  } catch {
    return { name: value.name ?? "", args: unreadable };
  }
}

/** The calls the strict ResponseStream ends with, and the calls a plain event loop collects. */
async function sdkCalls(output: Buffer) {
  const client = new OpenAI({
    apiKey: "k",
    baseURL: "http://rewriter.test/v1",
    maxRetries: 0,
    fetch: fetchReturning(output),
  });
  const request = { model: "m", input: "hi" };
  let error: string | undefined;
  const calls: ExtractedCall[] = [];
  let complete = false;
  try {
    const final = await client.responses.stream(request).finalResponse();
    complete = true;
    for (const item of final.output) {
      const found = extracted(item);
      if (found) calls.push(found);
    }
  } catch (caught) {
    error = (caught as Error).message;
  }
  const raw: ExtractedCall[] = [];
  try {
    for await (const event of await client.responses.create({ ...request, stream: true })) {
      const items =
        event.type === "response.output_item.done"
          ? [event.item]
          : event.type === "response.completed"
            ? event.response.output
            : [];
      for (const item of items) {
        const found = extracted(item);
        if (found) raw.push(found);
      }
    }
  } catch {
    // The raw loop keeps what it collected before the error.
  }
  return { calls: [...calls, ...raw], complete, ...(error === undefined ? {} : { error }) };
}

async function run(
  input: readonly Event[] | string,
  turn: RecordingTurn = recordingTurn("openai-responses"),
) {
  const output = await rewriteStream(
    openaiResponsesResponse,
    turn,
    typeof input === "string" ? input : numbered(input),
  );
  return { turn, output: output.toString(), ...(await sdkCalls(output)) };
}

async function expectRefused(events: readonly Event[] | string, reason: RegExp) {
  const result = await run(events);
  expectRefusal(result, reason);
  return result;
}

describe("Responses: event name versus data.type (class 5)", () => {
  it("refuses an event whose name disagrees with its data.type, NUL-suffixed or missing names", async () => {
    const events = [created(), ...call(0, "Bash", rmArgs), completed([functionCall("Bash", rmArgs)])];
    for (const name of ["response.output_text.delta", "response.output_item.added\u0000", undefined]) {
      const renamed = events.map((e, i) => (i === 1 ? ([name, e[1]] as Event) : e));
      await expectRefused(renamed, /disagrees with data.type 'response.output_item.added'/);
    }
  });

  it("refuses an unknown event type and an output item type the proxy cannot judge", async () => {
    await expectRefused(
      [created(), ["response.tool_call", { type: "response.tool_call", name: "Bash" }]],
      /unknown event type/,
    );
    const shell = {
      type: "local_shell_call",
      id: "ls_1",
      call_id: "c",
      action: { command: ["rm", "-rf", "/"] },
      status: "completed",
    };
    await expectRefused(
      [
        created(),
        ["response.output_item.added", { type: "response.output_item.added", output_index: 0, item: shell }],
      ],
      /'local_shell_call' is not a call the proxy can judge/,
    );
  });
});

describe("Responses: indices (class 6)", () => {
  for (const index of ["0", null, undefined, 1.5, -1]) {
    it(`refuses output_index ${JSON.stringify(index) ?? "missing"}`, async () => {
      const events = [
        created(),
        added(0, "Bash", "fc_1"),
        argsDelta(index, rmArgs, "fc_1"),
        argsDone(0, rmArgs, "fc_1"),
        itemDone(0, functionCall("Bash", rmArgs, "fc_1")),
      ];
      await expectRefused(events, /output_index .* is not a non-negative integer/);
    });
  }

  it("refuses an item added out of order or twice", async () => {
    await expectRefused([created(), added(1, "Bash")], /at output 1 where output 0 comes next/);
    await expectRefused(
      [created(), ...call(0, "get_weather", "{}"), added(0, "Bash")],
      /output 0 added twice/,
    );
  });
});

describe("Responses: a decision is final (class 7)", () => {
  it("refuses .done arguments that differ from the deltas", async () => {
    const events = [
      created(),
      added(0, "Bash", "fc_1"),
      argsDelta(0, lsArgs, "fc_1"),
      argsDone(0, rmArgs, "fc_1"),
      itemDone(0, functionCall("Bash", rmArgs, "fc_1")),
    ];
    await expectRefused(events, /function_call_arguments.done at output 0 changes the arguments/);
  });

  it("refuses output_item.done renaming or swapping the call", async () => {
    const base = [
      created(),
      added(0, "get_weather", "fc_1"),
      argsDelta(0, rmArgs, "fc_1"),
      argsDone(0, rmArgs, "fc_1"),
    ];
    await expectRefused(
      [...base, itemDone(0, functionCall("Bash", rmArgs, "fc_1"))],
      /renames or swaps the call 'get_weather'/,
    );
    await expectRefused(
      [...base, itemDone(0, { ...functionCall("get_weather", rmArgs, "fc_1"), call_id: "other" })],
      /renames or swaps/,
    );
    await expectRefused(
      [
        ...base,
        itemDone(0, {
          type: "custom_tool_call",
          id: "fc_1",
          call_id: "call_fc_1",
          name: "get_weather",
          input: rmArgs,
        }),
      ],
      /renames or swaps/,
    );
  });

  it("refuses events for a call after its output_item.done", async () => {
    await expectRefused(
      [created(), ...call(0, "Bash", lsArgs, "fc_1"), argsDelta(0, "x", "fc_1")],
      /after its output_item.done/,
    );
  });

  it("refuses an event naming another item than the one at its output_index", async () => {
    await expectRefused(
      [created(), added(0, "Bash", "fc_1"), argsDelta(0, rmArgs, "fc_2")],
      /names item fc_2 at output 0, which is fc_1/,
    );
  });
});

describe("Responses: snapshots (class 8)", () => {
  it("judges call items in response.created and rewrites denied ones", async () => {
    const result = await run([
      created([functionCall("Bash", rmArgs, "fc_s")]),
      completed([functionCall("Bash", rmArgs, "fc_s")]),
    ]);
    expect(result.turn.judged).toMatchObject([
      { name: "Bash", allowed: false },
      { name: "Bash", allowed: false },
    ]);
    expect(result.calls).toEqual([]);
    expect(result.turn.refusals).toEqual([]);
  });

  it("refuses a completed snapshot that renames or changes a decided call", async () => {
    const stream = [created(), ...call(0, "get_weather", lsArgs, "fc_1")];
    await expectRefused(
      [...stream, completed([functionCall("Bash", lsArgs, "fc_1")])],
      /response.completed renames or swaps the call .get_weather./,
    );
    const bash = [created(), ...call(0, "Bash", lsArgs, "fc_1")];
    await expectRefused(
      [...bash, completed([functionCall("Bash", rmArgs, "fc_1")])],
      /changes the arguments of the call at output 0/,
    );
  });

  it("puts the replacement into the completed snapshot of a call blocked in the stream", async () => {
    const result = await run([
      created(),
      ...call(0, "Bash", rmArgs, "fc_1"),
      completed([functionCall("Bash", rmArgs, "fc_1")]),
    ]);
    expect(result.error).toBeUndefined();
    expect(result.calls).toEqual([]);
    expect(result.output).toContain("msg_toolwall_fc_1");
  });

  it("judges a call that appears only in the completed snapshot", async () => {
    const result = await run([created(), completed([functionCall("delete_file", "{}", "fc_9")])]);
    expect(result.calls).toEqual([]);
    expect(result.turn.judged).toMatchObject([{ name: "delete_file", allowed: false }]);
  });
});

describe("Responses: non-streaming (class 9)", () => {
  it("refuses output that is not an array and items it cannot judge", async () => {
    const turn = recordingTurn("openai-responses");
    const bash = functionCall("Bash", rmArgs);
    expect(
      await rewriteBody(openaiResponsesResponse, turn, response({ 0: bash } as unknown as unknown[])),
    ).toEqual({ refused: "response output is not an array" });
    expect(
      await rewriteBody(
        openaiResponsesResponse,
        turn,
        response([{ ...bash, arguments: { command: "rm -rf /" } }]),
      ),
    ).toMatchObject({ refused: /arguments is not a string/ });
    expect(
      await rewriteBody(openaiResponsesResponse, turn, response([{ ...bash, name: null }])),
    ).toMatchObject({ refused: /without a string name/ });
    expect(turn.judged).toEqual([]);
  });
});

describe("Responses: property — every call the SDK extracts was judged and allowed as extracted", () => {
  const names = fc.constantFrom("get_weather", "delete_file", "Bash");
  const args = fc.constantFrom(lsArgs, rmArgs, '{"city":"Paris"}');
  const item = fc.record({ kind: fc.constantFrom("text", "call"), name: names, args, split: fc.nat(20) });
  const perturbation = fc.oneof(
    fc.record({
      kind: fc.constant("rename-event" as const),
      at: fc.nat(60),
      name: fc.constantFrom(
        "response.output_text.delta",
        "x",
        "response.function_call_arguments.delta\u0000",
      ),
    }),
    fc.record({
      kind: fc.constant("index" as const),
      at: fc.nat(60),
      index: fc.constantFrom("0", null, 0, 1, 2, 0.5, undefined),
    }),
    fc.record({ kind: fc.constant("done-args" as const), at: fc.nat(60), args }),
    fc.record({ kind: fc.constant("done-name" as const), at: fc.nat(60), name: names }),
    fc.record({ kind: fc.constant("late-delta" as const), at: fc.nat(60), args }),
    fc.record({ kind: fc.constant("snapshot" as const), name: names, args }),
    fc.record({ kind: fc.constant("duplicate" as const), at: fc.nat(60) }),
    fc.record({ kind: fc.constant("drop" as const), at: fc.nat(60) }),
  );

  it("holds for generated streams with perturbations", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(item, { maxLength: 4 }),
        fc.array(perturbation, { maxLength: 3 }),
        async (items, perturbations) => {
          let body: Event[] = [];
          const final: unknown[] = [];
          items.forEach((it, index) => {
            if (it.kind === "text") {
              const message = {
                id: `msg_${index}`,
                type: "message",
                status: "completed",
                role: "assistant",
                content: [{ type: "output_text", text: "hi", annotations: [] }],
              };
              body.push(
                [
                  "response.output_item.added",
                  {
                    type: "response.output_item.added",
                    output_index: index,
                    item: { ...message, status: "in_progress", content: [] },
                  },
                ],
                itemDone(index, message),
              );
              final.push(message);
              return;
            }
            const id = `fc_${index}`;
            body.push(
              added(index, it.name, id),
              argsDelta(index, it.args.slice(0, it.split), id),
              argsDelta(index, it.args.slice(it.split), id),
              argsDone(index, it.args, id),
              itemDone(index, functionCall(it.name, it.args, id)),
            );
            final.push(functionCall(it.name, it.args, id));
          });
          let first = created();
          let last = completed(final);
          for (const p of perturbations) {
            const at = "at" in p ? p.at % Math.max(body.length, 1) : 0;
            const target = body[at];
            if (p.kind === "rename-event" && target) body[at] = [p.name, target[1]];
            else if (p.kind === "index" && target)
              body[at] = [target[0], { ...target[1], output_index: p.index }];
            else if (p.kind === "done-args" && target?.[0] === "response.function_call_arguments.done")
              body[at] = [target[0], { ...target[1], arguments: p.args }];
            else if (p.kind === "done-name" && target?.[0] === "response.output_item.done")
              body[at] = [target[0], { ...target[1], item: { ...(target[1].item as object), name: p.name } }];
            else if (p.kind === "late-delta")
              body.push(
                argsDelta(Math.max(0, items.length - 1), p.args, `fc_${Math.max(0, items.length - 1)}`),
              );
            else if (p.kind === "snapshot") {
              first = created([functionCall(p.name, p.args, "fc_snap")]);
              last = completed([functionCall(p.name, p.args, "fc_snap"), ...final]);
            } else if (p.kind === "duplicate" && target) body.splice(at, 0, target);
            else if (p.kind === "drop") body = body.filter((_, i) => i !== at);
          }
          const result = await run([first, ...body, last]);
          expect(unjudgedCalls(result.calls, result.turn, result.complete)).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });
});
