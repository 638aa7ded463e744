/**
 * Routes that answer with model output no dialect judges (batch results, stored messages,
 * conversation items) were relayed untouched: a raw upstream's denied `Bash` call reached the
 * official SDKs' results. Build item 1 — what could carry a tool call and is not understood is
 * refused, never relayed unread. Found in the audit of issue 10; each case fails on main.
 */
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AdversarialRig, startAdversarialRig } from "./sdk.ts";
import { rawAnswer } from "./upstream.ts";

const bash = { type: "tool_use", id: "t", name: "Bash", input: { command: "rm -rf /" } };
const fnCall = { type: "function_call", id: "fc", call_id: "c", name: "Bash", arguments: '{"command":"id"}' };
const toolCalls = [{ id: "c", type: "function", function: { name: "Bash", arguments: '{"command":"id"}' } }];

let rig: AdversarialRig;
beforeAll(async () => {
  rig = await startAdversarialRig();
  rig.upstream.respond = (request) => {
    const path = request.path;
    const json = (body: unknown) => rawAnswer({ body: JSON.stringify(body) });
    if (path.includes("/messages/batches/b1/results"))
      return rawAnswer({
        headers: [["content-type", "application/binary"]],
        body: `${JSON.stringify({ custom_id: "a", result: { type: "succeeded", message: { id: "m", type: "message", role: "assistant", content: [bash] } } })}\n`,
      });
    if (path.includes("/messages/batches/b1"))
      return json({
        id: "b1",
        type: "message_batch",
        processing_status: "ended",
        results_url: `${rig.proxy.url}/anthropic/v1/messages/batches/b1/results`,
      });
    if (path.includes("/chat/completions/cc/messages"))
      return json({
        object: "list",
        data: [{ id: "m", role: "assistant", content: null, tool_calls: toolCalls }],
        has_more: false,
      });
    if (path.includes("/responses/r1/input_items") || path.includes("/conversations/conv/items"))
      return json({ object: "list", data: [fnCall], has_more: false });
    if (path.includes("/threads/th/runs"))
      return json({
        id: "run",
        object: "thread.run",
        status: "requires_action",
        required_action: { type: "submit_tool_outputs", submit_tool_outputs: { tool_calls: toolCalls } },
      });
    if (path.includes("/batches/g1"))
      return json({
        name: "batches/g1",
        metadata: {
          state: "BATCH_STATE_SUCCEEDED",
          output: {
            inlinedResponses: {
              inlinedResponses: [
                {
                  response: {
                    candidates: [
                      {
                        content: {
                          role: "model",
                          parts: [{ functionCall: { name: "Bash", args: { command: "id" } } }],
                        },
                      },
                    ],
                  },
                },
              ],
            },
          },
        },
      });
    return rawAnswer({ status: 404, body: "{}" });
  };
});
afterAll(() => rig.close());

/** What the SDK call returned (as JSON), or the error it threw. */
async function outcome(run: () => Promise<unknown>): Promise<{ held: string; error: string | undefined }> {
  try {
    return { held: JSON.stringify(await run()), error: undefined };
  } catch (error) {
    return { held: "", error: (error as Error).message };
  }
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const options = { maxRetries: 0, timeout: 10_000 };

describe("routes whose answers carry tool calls no dialect judges are refused", () => {
  const cases: [string, () => Promise<unknown>][] = [
    [
      "Anthropic messages.batches.results",
      async () => {
        const client = new Anthropic({ apiKey: "k", baseURL: `${rig.proxy.url}/anthropic`, ...options });
        return all(await client.messages.batches.results("b1"));
      },
    ],
    [
      "OpenAI chat.completions.messages.list",
      async () => {
        const client = new OpenAI({ apiKey: "k", baseURL: `${rig.proxy.url}/openai/v1`, ...options });
        return all(client.chat.completions.messages.list("cc"));
      },
    ],
    [
      "OpenAI responses.inputItems.list",
      async () => {
        const client = new OpenAI({ apiKey: "k", baseURL: `${rig.proxy.url}/openai/v1`, ...options });
        return all(client.responses.inputItems.list("r1"));
      },
    ],
    [
      "OpenAI conversations.items.list",
      async () => {
        const client = new OpenAI({ apiKey: "k", baseURL: `${rig.proxy.url}/openai/v1`, ...options });
        return all(client.conversations.items.list("conv"));
      },
    ],
    [
      "OpenAI beta.threads.runs.create (Assistants)",
      async () => {
        const client = new OpenAI({ apiKey: "k", baseURL: `${rig.proxy.url}/openai/v1`, ...options });
        return client.beta.threads.runs.create("th", { assistant_id: "a" });
      },
    ],
    [
      "Gemini batches.get",
      async () => {
        const client = new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl: `${rig.proxy.url}/gemini` } });
        return client.batches.get({ name: "batches/g1" });
      },
    ],
  ];

  it.each(cases)("%s: the SDK holds no denied call and raises the refusal", async (_name, run) => {
    const before = rig.upstream.requests.length;
    const result = await outcome(run);
    expect(result.held).not.toContain("Bash");
    expect(result.error).toMatch(/Toolwall|toolwall/);
    // Refused before anything went upstream, and audited.
    expect(rig.upstream.requests.length).toBe(before);
    expect(rig.audit.events.at(-1)).toMatchObject({ type: "llm_response_refused", rule: "unjudged route" });
  });
});
