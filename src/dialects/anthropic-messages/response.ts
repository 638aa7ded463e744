import type { Emit, ResponseSide, StreamRewriter, Turn } from "../../proxy/dialect.ts";
import { HeldCall } from "../../proxy/held-call.ts";
import {
  arrayAt,
  isObject,
  type JsonObject,
  numberAt,
  objectAt,
  stringAt,
  tryParse,
} from "../../proxy/json-values.ts";
import { formatEvent, type SseEvent, SseParser } from "../../proxy/sse.ts";

/**
 * Anthropic Messages responses. Streaming: blocks arrive one after another
 * (`content_block_start` → deltas → `content_block_stop`, each with its `index`); only a `tool_use`
 * block is held. A blocked one is replaced at the same index by a text block carrying the block
 * message, and `message_delta`'s `stop_reason` turns from `tool_use` to `end_turn` when no call
 * was let through.
 */

interface OpenToolBlock {
  index: number;
  call: HeldCall;
  /** Raw events held while the decision waits for the arguments. */
  held: Buffer[];
  /** Arguments given whole in `content_block_start` (some recordings), used when no delta comes. */
  initialInput: unknown;
}

class AnthropicStreamRewriter implements StreamRewriter {
  readonly #turn: Turn;
  readonly #emit: Emit;
  readonly #parser = new SseParser();
  #open: OpenToolBlock | undefined;
  #callsLetThrough = 0;
  #callsBlocked = 0;

  constructor(turn: Turn, emit: Emit) {
    this.#turn = turn;
    this.#emit = emit;
  }

  async push(chunk: Buffer): Promise<void> {
    for (const event of this.#parser.push(chunk)) await this.#onEvent(event);
  }

  async end(): Promise<void> {
    for (const event of this.#parser.end()) await this.#onEvent(event);
    if (this.#open) await this.#closeToolBlock(undefined, true);
  }

  #replacement(index: number, message: string, withStop: boolean): void {
    const eol = this.#parser.lineEnding;
    this.#emit(
      formatEvent(
        {
          event: "content_block_start",
          data: JSON.stringify({
            type: "content_block_start",
            index,
            content_block: { type: "text", text: "" },
          }),
        },
        eol,
      ),
    );
    this.#emit(
      formatEvent(
        {
          event: "content_block_delta",
          data: JSON.stringify({
            type: "content_block_delta",
            index,
            delta: { type: "text_delta", text: message },
          }),
        },
        eol,
      ),
    );
    if (withStop) this.#emitStop(index);
  }

  #emitStop(index: number): void {
    this.#emit(
      formatEvent(
        { event: "content_block_stop", data: JSON.stringify({ type: "content_block_stop", index }) },
        this.#parser.lineEnding,
      ),
    );
  }

  async #onEvent(event: SseEvent): Promise<void> {
    if (event.data === undefined) {
      this.#emit(event.raw);
      return;
    }
    const name = event.event ?? stringAt(tryParse(event.data), "type");
    const open = this.#open;
    if (open && (name === "content_block_delta" || name === "content_block_stop")) {
      const data = tryParse(event.data);
      if (numberAt(data, "index") === open.index || !event.complete) {
        if (name === "content_block_stop") {
          await this.#closeToolBlock(event, false);
          return;
        }
        const partial = stringAt(objectAt(data, "delta"), "partial_json");
        if (partial !== undefined) open.call.appendArguments(partial);
        if (open.call.mode === "hold") open.held.push(event.raw);
        else if (open.call.mode === "pass") this.#emit(event.raw);
        return;
      }
    }
    if (open && name !== "ping" && name !== "content_block_delta") {
      // The stream moved on without closing the tool block (max_tokens, an error): decide what arrived.
      await this.#closeToolBlock(undefined, true);
    }
    if (name === "content_block_start") {
      const data = tryParse(event.data);
      const block = objectAt(data, "content_block");
      const index = numberAt(data, "index");
      if (stringAt(block, "type") === "tool_use" && index !== undefined) {
        const toolName = stringAt(block, "name") ?? "";
        const call = await HeldCall.start(this.#turn, toolName, { callId: stringAt(block, "id") ?? "" });
        this.#open = { index, call, held: [], initialInput: block?.input };
        if (call.mode === "hold") this.#open.held.push(event.raw);
        else if (call.mode === "pass") {
          this.#callsLetThrough++;
          this.#emit(event.raw);
        } else {
          this.#callsBlocked++;
          this.#replacement(index, call.earlyMessage, false);
        }
        return;
      }
    } else if (name === "message_delta" && this.#callsBlocked > 0 && this.#callsLetThrough === 0) {
      const data = tryParse(event.data);
      const delta = objectAt(data, "delta");
      if (isObject(data) && delta && delta.stop_reason === "tool_use") {
        delta.stop_reason = "end_turn";
        this.#emit(formatEvent({ event: event.event, data: JSON.stringify(data) }, this.#parser.lineEnding));
        return;
      }
    }
    this.#emit(event.raw);
  }

  async #closeToolBlock(stop: SseEvent | undefined, truncated: boolean): Promise<void> {
    const open = this.#open!;
    this.#open = undefined;
    const initial =
      open.call.argumentText === "" &&
      isObject(open.initialInput) &&
      Object.keys(open.initialInput).length > 0
        ? JSON.stringify(open.initialInput)
        : undefined;
    const outcome = await open.call.finish(truncated, initial);
    if (open.call.mode === "pass") {
      if (stop) this.#emit(stop.raw);
      return;
    }
    if (open.call.mode === "drop") {
      this.#emitStop(open.index);
      return;
    }
    if (outcome.allowed) {
      this.#callsLetThrough++;
      for (const raw of open.held) this.#emit(raw);
      if (stop) this.#emit(stop.raw);
      return;
    }
    this.#callsBlocked++;
    this.#replacement(open.index, outcome.message, true);
  }
}

async function rewriteMessage(body: JsonObject, turn: Turn): Promise<JsonObject | undefined> {
  const content = arrayAt(body, "content");
  if (!content) return undefined;
  let blocked = 0;
  let kept = 0;
  const rewritten: unknown[] = [];
  for (const block of content) {
    if (stringAt(block, "type") !== "tool_use") {
      rewritten.push(block);
      continue;
    }
    const input = isObject(block) ? block.input : undefined;
    const decided = await turn.decide(stringAt(block, "name") ?? "", input ?? {}, {
      detail: { callId: stringAt(block, "id") ?? "" },
    });
    if (decided.blocked) {
      blocked++;
      rewritten.push({ type: "text", text: decided.message });
    } else {
      kept++;
      rewritten.push(block);
    }
  }
  if (blocked === 0) return undefined;
  const result: JsonObject = { ...body, content: rewritten };
  if (kept === 0 && body.stop_reason === "tool_use") result.stop_reason = "end_turn";
  return result;
}

export const anthropicResponse: ResponseSide = {
  rewriteJson: (body, turn) => (isObject(body) ? rewriteMessage(body, turn) : Promise.resolve(undefined)),
  streamRewriter: (turn, emit) => new AnthropicStreamRewriter(turn, emit),
};
