import Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anthropicResponse } from "../../src/dialects/anthropic-messages/response.ts";
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
 * Anthropic response semantics (issue 10, classes 5–9 and "a decision is final"): the rewriter's output
 * read by the official SDK holds no call that was not judged and allowed as the SDK sees it.
 */

type Event = readonly [string | undefined, unknown];

const start = (content: unknown[] = []): Event => [
  "message_start",
  {
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "m",
      content,
      stop_reason: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    },
  },
];
const toolStart = (index: unknown, name: string, id = `toolu_${name}`): Event => [
  "content_block_start",
  { type: "content_block_start", index, content_block: { type: "tool_use", id, name, input: {} } },
];
const textStart = (index: unknown): Event => [
  "content_block_start",
  { type: "content_block_start", index, content_block: { type: "text", text: "" } },
];
const jsonDelta = (index: unknown, partial: string): Event => [
  "content_block_delta",
  { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: partial } },
];
const textDelta = (index: unknown, text: string): Event => [
  "content_block_delta",
  { type: "content_block_delta", index, delta: { type: "text_delta", text } },
];
const stop = (index: unknown): Event => ["content_block_stop", { type: "content_block_stop", index }];
const messageEnd: Event[] = [
  [
    "message_delta",
    {
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { output_tokens: 5 },
    },
  ],
  ["message_stop", { type: "message_stop" }],
];
const rmArgs = JSON.stringify({ command: "rm -rf /" });
const lsArgs = JSON.stringify({ command: "ls" });

/** What the SDK's message stream ends up with: the final message's calls, or the snapshot's on error. */
async function sdkCalls(
  output: Buffer,
): Promise<{ calls: ExtractedCall[]; error?: string; complete: boolean }> {
  const client = new Anthropic({
    apiKey: "k",
    baseURL: "http://rewriter.test",
    maxRetries: 0,
    fetch: fetchReturning(output),
  });
  const stream = client.messages.stream({
    model: "m",
    max_tokens: 10,
    messages: [{ role: "user", content: "hi" }],
  });
  let snapshot: Anthropic.Message | undefined;
  stream.on("streamEvent", (_event, message) => {
    snapshot = message;
  });
  let error: string | undefined;
  try {
    await stream.done();
  } catch (caught) {
    error = (caught as Error).message;
  }
  const final = stream.receivedMessages.at(-1);
  const message = final ?? snapshot;
  const calls = (message?.content ?? [])
    .filter((block) => block.type === "tool_use")
    .map((block) => ({ name: block.name, args: readInput(block) }));
  return { calls, complete: final !== undefined, ...(error === undefined ? {} : { error }) };
}

/** The SDK parses streamed input lazily and throws on bytes it cannot read: no call, not a bypass. */
function readInput(block: Anthropic.ToolUseBlock): unknown {
  try {
    return block.input;
  } catch {
    return unreadable;
  }
}

async function run(
  events: readonly Event[] | string,
  turn: RecordingTurn = recordingTurn("anthropic-messages"),
) {
  const output = await rewriteStream(
    anthropicResponse,
    turn,
    typeof events === "string" ? events : sse(events),
  );
  const seen = await sdkCalls(output);
  return { turn, output: output.toString(), ...seen };
}

/** A denied Bash call dressed in `dress`; the SDK must end with no unjudged call and the turn refused. */
async function expectRefused(events: readonly Event[] | string, reason: RegExp) {
  const result = await run(events);
  expectRefusal(result, reason);
  return result;
}

describe("Anthropic: event name versus data.type (class 5)", () => {
  const renamed = (name: string): Event[] => [
    start(),
    toolStart(0, "Bash"),
    [name, jsonDelta(0, rmArgs)[1]],
    stop(0),
    ...messageEnd,
  ];

  it("refuses an event whose name disagrees with its data.type", async () => {
    await expectRefused(renamed("ping"), /event name 'ping' disagrees with data.type 'content_block_delta'/);
    await expectRefused(renamed("content_block_deltax"), /disagrees/);
  });

  it("refuses a NUL-suffixed event name", async () => {
    await expectRefused(renamed("content_block_delta\u0000"), /'content_block_delta\\u0000' disagrees/);
  });

  it("refuses an event that names itself twice", async () => {
    const twice =
      sse([start()]) +
      `event: ping\nevent: content_block_start\ndata: ${JSON.stringify(toolStart(0, "Bash")[1])}\n\n`;
    await expectRefused(
      twice + sse([jsonDelta(0, rmArgs), stop(0), ...messageEnd]),
      /names itself more than once/,
    );
  });

  it("refuses an event without a name, and an unknown type", async () => {
    await expectRefused(renamed(undefined as unknown as string), /event name '\(none\)'/);
    await expectRefused(
      [start(), ["tool_call", { type: "tool_call", name: "Bash" }], ...messageEnd],
      /unknown event type 'tool_call'/,
    );
  });

  it("refuses a block start dispatched under another name (the SDK appends it)", async () => {
    const hidden: Event = ["content_block_delta", toolStart(0, "Bash")[1]];
    await expectRefused([start(), hidden, jsonDelta(0, rmArgs), stop(0), ...messageEnd], /disagrees/);
  });

  it("refuses an unknown content block type", async () => {
    const odd: Event = [
      "content_block_start",
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use2", name: "Bash", input: {} },
      },
    ];
    await expectRefused([start(), odd, stop(0), ...messageEnd], /unknown content block type 'tool_use2'/);
  });
});

describe("Anthropic: indices (class 6)", () => {
  for (const index of ["0", null, undefined, -1, 0.5, 1]) {
    it(`refuses a delta with index ${JSON.stringify(index) ?? "missing"}`, async () => {
      const events = [
        start(),
        toolStart(0, "Bash"),
        jsonDelta(0, lsArgs.slice(0, -1)),
        jsonDelta(index, "} "),
        stop(0),
        ...messageEnd,
      ];
      await expectRefused(events, /index|not open|while block 0 is open/);
    });
  }

  it("refuses a start whose index is not the next block's (the SDK appends whatever the index)", async () => {
    await expectRefused(
      [start(), toolStart(5, "Bash"), jsonDelta(0, rmArgs), stop(0), ...messageEnd],
      /index 5 where block 0/,
    );
    await expectRefused(
      [start(), toolStart("0", "Bash"), jsonDelta(0, rmArgs), stop(0), ...messageEnd],
      /not a non-negative integer/,
    );
  });
});

describe("Anthropic: a decision is final (class 7)", () => {
  it("refuses argument deltas after content_block_stop", async () => {
    const result = await expectRefused(
      [start(), toolStart(0, "Bash"), jsonDelta(0, lsArgs), stop(0), jsonDelta(0, "x"), ...messageEnd],
      /content_block_delta for block 0, which is not open/,
    );
    expect(result.turn.judged).toEqual([{ name: "Bash", args: { command: "ls" }, allowed: true }]);
  });

  it("refuses a delta aimed at another block than the open one", async () => {
    await expectRefused(
      [
        start(),
        textStart(0),
        textDelta(0, "hi"),
        stop(0),
        toolStart(1, "Bash"),
        jsonDelta(0, rmArgs),
        stop(1),
        ...messageEnd,
      ],
      /block 0 while block 1 is open/,
    );
  });

  it("sends an allowed held call as the one canonical argument delta that was judged", async () => {
    // Duplicate keys: JSON.parse and the SDK's partial parser may disagree on which one wins.
    const tricky = '{"command":"ls","command":"ls -la"}';
    const result = await run([start(), toolStart(0, "Bash"), jsonDelta(0, tricky), stop(0), ...messageEnd]);
    expect(result.turn.judged).toEqual([{ name: "Bash", args: { command: "ls -la" }, allowed: true }]);
    expect(result.calls).toEqual([{ name: "Bash", args: { command: "ls -la" } }]);
    expect(result.output).toContain(
      `"partial_json":${JSON.stringify(JSON.stringify({ command: "ls -la" }))}`,
    );
  });

  it("judges the start's input when no delta follows, and the deltas alone when one does", async () => {
    const withInput: Event = [
      "content_block_start",
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "t", name: "Bash", input: { command: "rm -rf /" } },
      },
    ];
    const alone = await run([start(), withInput, stop(0), ...messageEnd]);
    expect(alone.calls).toEqual([]);
    const emptyDelta = await run([start(), withInput, jsonDelta(0, ""), stop(0), ...messageEnd]);
    expect(unjudgedCalls(emptyDelta.calls, emptyDelta.turn)).toEqual([]);
    expect(emptyDelta.calls).toEqual([{ name: "Bash", args: {} }]);
  });

  it("refuses a second message_start and events after message_stop", async () => {
    await expectRefused(
      [start(), ...messageEnd, start(), toolStart(0, "Bash"), stop(0)],
      /'message_start' after message_stop/,
    );
    await expectRefused([start(), textStart(0), stop(0), start()], /a second message_start/);
  });
});

describe("Anthropic: snapshots (class 8)", () => {
  it("judges tool_use blocks in message_start.message.content", async () => {
    const denied = { type: "tool_use", id: "t1", name: "Bash", input: { command: "rm -rf /" } };
    const allowed = { type: "tool_use", id: "t2", name: "get_weather", input: { city: "Paris" } };
    const result = await run([start([denied, allowed]), ...messageEnd]);
    expect(result.calls).toEqual([{ name: "get_weather", args: { city: "Paris" } }]);
    expect(result.turn.judged.map((j) => [j.name, j.allowed])).toEqual([
      ["Bash", false],
      ["get_weather", true],
    ]);
    expect(result.turn.refusals).toEqual([]);
  });

  it("counts snapshot blocks in the next index and refuses deltas into them", async () => {
    const snapshot = { type: "tool_use", id: "t1", name: "Bash", input: {} };
    await expectRefused([start([snapshot]), jsonDelta(0, rmArgs), ...messageEnd], /not open/);
    await expectRefused(
      [start([snapshot]), toolStart(0, "Bash"), stop(0), ...messageEnd],
      /index 0 where block 1/,
    );
    await expectRefused(
      [start({ 0: snapshot } as unknown as unknown[]), ...messageEnd],
      /content is not an array/,
    );
  });
});

describe("Anthropic: non-streaming (classes 8, 9)", () => {
  const message = (content: unknown) => ({
    id: "m",
    type: "message",
    role: "assistant",
    content,
    stop_reason: "tool_use",
  });

  it("refuses content that is not an array, and blocks of unknown or missing types", async () => {
    const turn = recordingTurn("anthropic-messages");
    const bash = { type: "tool_use", id: "t", name: "Bash", input: { command: "rm -rf /" } };
    expect(await rewriteBody(anthropicResponse, turn, message({ 0: bash }))).toEqual({
      refused: "message content is not an array",
    });
    expect(
      await rewriteBody(anthropicResponse, turn, message([{ ...bash, type: "tool_usе" }])),
    ).toMatchObject({ refused: /unknown content block type/ });
    expect(await rewriteBody(anthropicResponse, turn, message([{ ...bash, name: ["Bash"] }]))).toMatchObject({
      refused: /without a string name/,
    });
    expect(turn.judged).toEqual([]);
  });

  it("judges input that is not a JSON object as unreadable: denied when a rule needs it", async () => {
    const turn = recordingTurn("anthropic-messages");
    const stringInput = { type: "tool_use", id: "t", name: "Bash", input: "rm -rf /" };
    const result = await rewriteBody(anthropicResponse, turn, message([stringInput]));
    expect(turn.judged).toEqual([{ name: "Bash", args: "rm -rf /", allowed: false }]);
    expect(JSON.stringify(result)).not.toContain('"tool_use"');
  });

  it("the SDK raises the refusal body as an API error", () => {
    expect(anthropicResponse.refusalBody("no")).toEqual({
      type: "error",
      error: { type: "api_error", message: "no" },
    });
  });
});

describe("Anthropic: property — every call the SDK extracts was judged and allowed as extracted", () => {
  const names = fc.constantFrom("get_weather", "delete_file", "Bash");
  const args = fc.constantFrom(lsArgs, rmArgs, '{"city":"Paris"}', '{"command":"ls","command":"rm -rf /"}');
  const block = fc.record({
    kind: fc.constantFrom("text", "tool"),
    name: names,
    args,
    cuts: fc.array(fc.nat(30), { maxLength: 3 }),
  });
  const perturbation = fc.oneof(
    fc.constant({ kind: "none" as const }),
    fc.record({
      kind: fc.constant("rename" as const),
      at: fc.nat(40),
      name: fc.constantFrom(
        "ping",
        "content_block_delta",
        "content_block_start",
        "x",
        "content_block_delta\u0000",
      ),
    }),
    fc.record({
      kind: fc.constant("index" as const),
      at: fc.nat(40),
      index: fc.constantFrom("0", null, -1, 0.5, 0, 1, 2, undefined),
    }),
    fc.record({ kind: fc.constant("late-delta" as const), at: fc.nat(40), args }),
    fc.record({ kind: fc.constant("snapshot" as const), name: names, args }),
    fc.record({ kind: fc.constant("duplicate" as const), at: fc.nat(40) }),
    fc.record({ kind: fc.constant("drop" as const), at: fc.nat(40) }),
  );

  function sequence(blocks: { kind: string; name: string; args: string; cuts: number[] }[]): Event[] {
    const events: Event[] = [];
    blocks.forEach((b, index) => {
      if (b.kind === "text") {
        events.push(textStart(index), textDelta(index, "hello"), stop(index));
        return;
      }
      events.push(toolStart(index, b.name));
      let from = 0;
      for (const cut of [...b.cuts].sort((x, y) => x - y)) {
        events.push(jsonDelta(index, b.args.slice(from, cut)));
        from = Math.max(from, cut);
      }
      events.push(jsonDelta(index, b.args.slice(from)), stop(index));
    });
    return events;
  }

  it("holds for generated streams with perturbations", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(block, { maxLength: 4 }),
        fc.array(perturbation, { maxLength: 3 }),
        async (blocks, perturbations) => {
          let body = sequence(blocks);
          let first = start();
          for (const p of perturbations) {
            const at = "at" in p ? p.at % Math.max(body.length, 1) : 0;
            const target = body[at];
            if (p.kind === "rename" && target) body[at] = [p.name, target[1]];
            else if (p.kind === "index" && target)
              body[at] = [target[0], { ...(target[1] as object), index: p.index }];
            else if (p.kind === "late-delta")
              body.splice(at, 0, jsonDelta(Math.max(0, blocks.length - 1), p.args));
            else if (p.kind === "snapshot")
              first = start([{ type: "tool_use", id: "s", name: p.name, input: JSON.parse(p.args) }]);
            else if (p.kind === "duplicate" && target) body.splice(at, 0, target);
            else if (p.kind === "drop") body = body.filter((_, i) => i !== at);
          }
          const result = await run([first, ...body, ...messageEnd]);
          expect(
            unjudgedCalls(result.calls, result.turn, result.complete && result.error === undefined),
          ).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });
});
