import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AdversarialRig,
  canonicalContentType,
  runSdk,
  type SdkClient,
  type SdkOutcome,
  sseEvent,
  startAdversarialRig,
} from "../adversarial/sdk.ts";
import { rawAnswer } from "../adversarial/upstream.ts";

/**
 * Issue 10 classes 5–9 end to end: a raw upstream writes each attack byte for byte, the official SDK
 * reads it through the proxy, and what the SDK finally holds contains no call the policy denies. The
 * policy holds `Bash` until its arguments are complete (an argument rule) and denies `delete_repo` by
 * name, so both a renamed call and changed arguments would show.
 */

const policy = `
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: semantics, namespace: agents }
spec:
  toolPolicy:
    rules:
      - { action: Deny, tools: [delete_repo], reason: denied by name }
      - action: Deny
        tools: [Bash]
        when: { any: [{ path: command, op: Matches, value: "rm\\\\s+-rf" }] }
        reason: dangerous shell command
`;

let rig: AdversarialRig;
beforeAll(async () => {
  rig = await startAdversarialRig({ policy });
});
afterAll(() => rig.close());

function deniedHeld(outcome: SdkOutcome): unknown[] {
  return outcome.calls.filter(
    (call) =>
      call.name === "delete_repo" ||
      (call.name === "Bash" && /rm\s+-rf/.test(JSON.stringify(call.arguments ?? ""))),
  );
}

async function attack(client: SdkClient, body: string): Promise<SdkOutcome> {
  const before = rig.audit.events.length;
  rig.upstream.respond = () => rawAnswer({ headers: [["content-type", canonicalContentType(client)]], body });
  const outcome = await runSdk(rig, client);
  expect(deniedHeld(outcome), `${client} holds a denied call`).toEqual([]);
  expect(outcome.error).toMatch(/Toolwall refused the model's response/);
  expect(rig.audit.events.slice(before).filter((e) => e.type === "llm_response_refused")).toHaveLength(1);
  return outcome;
}

const rm = JSON.stringify({ command: "rm -rf /" });
const ls = JSON.stringify({ command: "ls" });

const anthropic = {
  start: (content: unknown[] = []) =>
    sseEvent(
      {
        type: "message_start",
        message: {
          id: "m",
          type: "message",
          role: "assistant",
          model: "c",
          content,
          stop_reason: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      },
      "message_start",
    ),
  tool: (name: string, index: unknown = 0, event = "content_block_start") =>
    sseEvent(
      { type: "content_block_start", index, content_block: { type: "tool_use", id: "t", name, input: {} } },
      event,
    ),
  delta: (partial: string, index: unknown = 0) =>
    sseEvent(
      { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: partial } },
      "content_block_delta",
    ),
  stop: (index = 0) => sseEvent({ type: "content_block_stop", index }, "content_block_stop"),
  end:
    sseEvent(
      {
        type: "message_delta",
        delta: { stop_reason: "tool_use", stop_sequence: null },
        usage: { output_tokens: 1 },
      },
      "message_delta",
    ) + sseEvent({ type: "message_stop" }, "message_stop"),
};

describe("Anthropic SDK (messages.stream)", () => {
  it("class 5: a block start sent under another event name", async () => {
    await attack(
      "anthropic.stream",
      anthropic.start() +
        anthropic.tool("delete_repo", 0, "content_block_delta") +
        anthropic.stop() +
        anthropic.end,
    );
  });

  it("class 5: a NUL-suffixed event name", async () => {
    await attack(
      "anthropic.stream",
      anthropic.start() +
        anthropic.tool("delete_repo", 0, "content_block_start\u0000") +
        anthropic.stop() +
        anthropic.end,
    );
  });

  // Bash judged with no arguments ({}), then arguments aimed at it after the decision: the SDK
  // applies a delta to content.at(index), "0" included.
  for (const index of ["0", 0]) {
    it(`classes 6 and 7: an argument delta with index ${JSON.stringify(index)} after content_block_stop`, async () => {
      await attack(
        "anthropic.stream",
        anthropic.start() +
          anthropic.tool("Bash") +
          anthropic.stop() +
          anthropic.delta(rm, index) +
          anthropic.end,
      );
    });
  }

  it('class 6: an argument delta with index "0" inside the block', async () => {
    await attack(
      "anthropic.stream",
      anthropic.start() +
        anthropic.tool("Bash") +
        anthropic.delta(rm, "0") +
        anthropic.stop() +
        anthropic.end,
    );
  });

  it("class 8: a tool_use block in message_start's snapshot is judged", async () => {
    rig.upstream.respond = () =>
      rawAnswer({
        headers: [["content-type", "text/event-stream"]],
        body:
          anthropic.start([{ type: "tool_use", id: "t", name: "delete_repo", input: {} }]) + anthropic.end,
      });
    const outcome = await runSdk(rig, "anthropic.stream");
    expect(deniedHeld(outcome)).toEqual([]);
    expect(outcome.error).toBeUndefined();
  });

  it("class 9: content as an object in a whole message", async () => {
    const message = {
      id: "m",
      type: "message",
      role: "assistant",
      model: "c",
      content: { 0: { type: "tool_use", id: "t", name: "delete_repo", input: {} } },
      stop_reason: "tool_use",
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    await attack("anthropic.create", JSON.stringify(message));
  });
});

describe("OpenAI Responses SDK (responses.stream)", () => {
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>, name = type) =>
    sseEvent({ type, sequence_number: sequence++, ...fields }, name);
  const item = (name: string, args: string, status = "completed") => ({
    type: "function_call",
    id: "fc_1",
    call_id: "call_1",
    name,
    arguments: args,
    status,
  });
  const body = (status: string, output: unknown[]) => ({
    id: "r",
    object: "response",
    created_at: 1,
    status,
    model: "g",
    output,
  });
  const created = () => {
    sequence = 0;
    return event("response.created", { response: body("in_progress", []) });
  };

  it("class 5: an output item added under another event name", async () => {
    await attack(
      "openai.responses.stream",
      created() +
        event(
          "response.output_item.added",
          { output_index: 0, item: item("delete_repo", "", "in_progress") },
          "response.output_text.delta",
        ) +
        event("response.completed", { response: body("completed", [item("delete_repo", "{}")]) }),
    );
  });

  it('class 6: output_index "0"', async () => {
    await attack(
      "openai.responses.stream",
      created() +
        event("response.output_item.added", { output_index: 0, item: item("Bash", "", "in_progress") }) +
        event("response.function_call_arguments.delta", { item_id: "fc_1", output_index: "0", delta: rm }) +
        event("response.output_item.done", { output_index: 0, item: item("Bash", rm) }),
    );
  });

  it("class 7: function_call_arguments.done and output_item.done changing the arguments", async () => {
    await attack(
      "openai.responses.stream",
      created() +
        event("response.output_item.added", { output_index: 0, item: item("Bash", "", "in_progress") }) +
        event("response.function_call_arguments.delta", { item_id: "fc_1", output_index: 0, delta: ls }) +
        event("response.function_call_arguments.done", { item_id: "fc_1", output_index: 0, arguments: rm }) +
        event("response.output_item.done", { output_index: 0, item: item("Bash", rm) }) +
        event("response.completed", { response: body("completed", [item("Bash", rm)]) }),
    );
  });

  it("class 8: response.completed renaming a decided call", async () => {
    await attack(
      "openai.responses.stream",
      created() +
        event("response.output_item.added", {
          output_index: 0,
          item: item("get_weather", "", "in_progress"),
        }) +
        event("response.function_call_arguments.delta", { item_id: "fc_1", output_index: 0, delta: "{}" }) +
        event("response.output_item.done", { output_index: 0, item: item("get_weather", "{}") }) +
        event("response.completed", { response: body("completed", [item("delete_repo", "{}")]) }),
    );
  });
});

describe("OpenAI Responses SDK, routes that answer with a stored response", () => {
  const stored = {
    id: "resp_1",
    object: "response",
    created_at: 1,
    status: "completed",
    model: "g",
    output: [
      {
        type: "function_call",
        id: "fc_1",
        call_id: "call_1",
        name: "delete_repo",
        arguments: "{}",
        status: "completed",
      },
    ],
  };
  const openai = () =>
    new OpenAI({ apiKey: "sk-test", baseURL: `${rig.proxy.url}/openai/v1`, maxRetries: 0 });
  const names = (response: { output: { type: string; name?: string }[] }) =>
    response.output.filter((item) => item.type === "function_call").map((item) => item.name);

  it("judges retrieve and cancel (background mode polls them)", async () => {
    rig.upstream.respond = () =>
      rawAnswer({ headers: [["content-type", "application/json"]], body: JSON.stringify(stored) });
    expect(names(await openai().responses.retrieve("resp_1"))).toEqual([]);
    expect(names(await openai().responses.cancel("resp_1"))).toEqual([]);
  });

  it("judges a stream resumed by response_id", async () => {
    let sequence = 0;
    const event = (type: string, fields: Record<string, unknown>) =>
      sseEvent({ type, sequence_number: sequence++, ...fields }, type);
    const body =
      event("response.created", { response: { ...stored, status: "in_progress", output: [] } }) +
      event("response.output_item.added", {
        output_index: 0,
        item: { ...stored.output[0], arguments: "", status: "in_progress" },
      }) +
      event("response.output_item.done", { output_index: 0, item: stored.output[0] }) +
      event("response.completed", { response: stored });
    rig.upstream.respond = () => rawAnswer({ headers: [["content-type", "text/event-stream"]], body });
    expect(names(await openai().responses.stream({ response_id: "resp_1" }).finalResponse())).toEqual([]);
  });
});

describe("OpenAI Chat SDK", () => {
  const chunk = (delta: unknown, finish: string | null = null) =>
    sseEvent({
      id: "c",
      object: "chat.completion.chunk",
      created: 1,
      model: "g",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });

  it("class 7: a name in a later delta", async () => {
    await attack(
      "openai.chat.stream",
      chunk({
        role: "assistant",
        tool_calls: [
          { index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: "" } },
        ],
      }) +
        chunk({ tool_calls: [{ index: 0, function: { name: "delete_repo", arguments: "{}" } }] }) +
        chunk({}, "tool_calls") +
        sseEvent("[DONE]"),
    );
  });

  it("class 7: one entry both custom:{get_weather} and function:{delete_repo}", async () => {
    await attack(
      "openai.chat.stream",
      chunk({
        tool_calls: [
          {
            index: 0,
            id: "call_1",
            type: "function",
            custom: { name: "get_weather", input: "" },
            function: { name: "delete_repo", arguments: "{}" },
          },
        ],
      }) +
        chunk({}, "tool_calls") +
        sseEvent("[DONE]"),
    );
  });

  it("judges a stored completion retrieved by id", async () => {
    const completion = {
      id: "c",
      object: "chat.completion",
      created: 1,
      model: "g",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "t", type: "function", function: { name: "delete_repo", arguments: "{}" } }],
          },
          finish_reason: "tool_calls",
        },
      ],
    };
    rig.upstream.respond = () =>
      rawAnswer({ headers: [["content-type", "application/json"]], body: JSON.stringify(completion) });
    const openai = new OpenAI({ apiKey: "sk-test", baseURL: `${rig.proxy.url}/openai/v1`, maxRetries: 0 });
    const retrieved = await openai.chat.completions.retrieve("c");
    expect(retrieved.choices[0]?.message.tool_calls ?? []).toEqual([]);
  });

  it("class 9: choices as an object in a whole completion", async () => {
    const message = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c", type: "function", function: { name: "delete_repo", arguments: "{}" } }],
    };
    await attack(
      "openai.chat",
      JSON.stringify({
        id: "c",
        object: "chat.completion",
        created: 1,
        model: "g",
        choices: { 0: { index: 0, message, finish_reason: "tool_calls" } },
      }),
    );
  });
});

describe("Gemini SDK", () => {
  const candidates = {
    0: { content: { role: "model", parts: [{ functionCall: { name: "delete_repo", args: {} } }] }, index: 0 },
  };

  it("class 9: candidates as an object, whole and streamed", async () => {
    await attack("gemini.generate", JSON.stringify({ candidates }));
    await attack("gemini.stream", sseEvent({ candidates }));
  });
});
