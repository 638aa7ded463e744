import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anthropicResponse } from "../../src/dialects/anthropic-messages/response.ts";
import { geminiResponse } from "../../src/dialects/gemini/response.ts";
import { openaiChatResponse } from "../../src/dialects/openai-chat/response.ts";
import { openaiResponsesResponse } from "../../src/dialects/openai-responses/response.ts";
import type { ResponseSide } from "../../src/engine/dialect.ts";
import { recordingTurn, rewriteBody, rewriteStream, sse } from "./rewriter.ts";

/**
 * Whatever JSON the upstream sends in whatever event, a dialect either judges it or refuses it with a
 * named reason: it never throws anything else (which would reach the client as a cut connection and
 * the log as a stack trace).
 */

const dialects: [string, ResponseSide, string[]][] = [
  [
    "anthropic-messages",
    anthropicResponse,
    [
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
      "ping",
      "error",
    ],
  ],
  [
    "openai-responses",
    openaiResponsesResponse,
    [
      "response.created",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
      "error",
    ],
  ],
  ["openai-chat", openaiChatResponse, []],
  ["gemini", geminiResponse, []],
];

/** JSON shaped like the dialect's events: known keys with values of any JSON type. */
function eventData(types: string[]) {
  const value = fc.jsonValue({ maxDepth: 3 });
  const keys = [
    "type",
    "index",
    "output_index",
    "item_id",
    "delta",
    "content_block",
    "message",
    "item",
    "response",
    "choices",
    "candidates",
    "tool_calls",
    "function",
    "custom",
    "name",
    "arguments",
    "partial_json",
    "content",
    "parts",
    "functionCall",
    "output",
  ];
  const known = types.length > 0 ? fc.constantFrom(...types) : fc.string();
  return fc.dictionary(fc.constantFrom(...keys), fc.oneof(value, known, fc.nat(3)), { maxKeys: 6 });
}

describe.each(dialects)("%s never throws on any JSON", (dialect, side, types) => {
  it("streamed", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.option(types.length > 0 ? fc.constantFrom(...types) : fc.constant(undefined), {
              nil: undefined,
            }),
            eventData(types),
          ),
          { maxLength: 8 },
        ),
        async (events) => {
          const turn = recordingTurn(dialect);
          await expect(rewriteStream(side, turn, sse(events))).resolves.toBeInstanceOf(Buffer);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("whole", async () => {
    await fc.assert(
      fc.asyncProperty(eventData(types), async (body) => {
        await expect(rewriteBody(side, recordingTurn(dialect), body)).resolves.toBeDefined();
      }),
      { numRuns: 300 },
    );
  });
});
