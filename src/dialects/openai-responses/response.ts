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
import { openaiError } from "../../proxy/refusal.ts";
import { formatEvent, type SseEvent, SseParser } from "../../proxy/sse.ts";

/**
 * OpenAI Responses. A function call is an output item: `response.output_item.added` →
 * `response.function_call_arguments.delta`… → `.done` → `response.output_item.done`. Only that
 * item's events are held. A blocked call becomes a message item at the same `output_index` (the six
 * events of a text item), the terminal `response.completed`'s `output` gets the same replacement, and
 * every event written carries the next `sequence_number`, so numbering stays contiguous.
 */

const terminalEvents = new Set(["response.completed", "response.incomplete", "response.failed"]);
const sequencePattern = /"sequence_number":\s*(\d+)/;
/** Client tool calls among output items: JSON arguments, or free-form input (custom tools). */
const callItemTypes = new Set(["function_call", "custom_tool_call"]);
const argumentDeltaEvents = new Set([
  "response.function_call_arguments.delta",
  "response.custom_tool_call_input.delta",
]);

function messageItem(id: string, text: string, done: boolean): JsonObject {
  return {
    id,
    type: "message",
    status: done ? "completed" : "in_progress",
    content: done ? [{ type: "output_text", annotations: [], logprobs: [], text }] : [],
    role: "assistant",
  };
}

interface OpenItem {
  outputIndex: number;
  call: HeldCall;
  itemId: string;
  callId: string;
  held: SseEvent[];
}

class ResponsesStreamRewriter implements StreamRewriter {
  readonly #turn: Turn;
  readonly #emit: Emit;
  readonly #parser = new SseParser();
  readonly #open = new Map<number, OpenItem>();
  /** Replacement message items by the blocked call's item id. */
  readonly #replaced = new Map<string, JsonObject>();
  #nextSequence = 0;
  #sequenced = false;

  constructor(turn: Turn, emit: Emit) {
    this.#turn = turn;
    this.#emit = emit;
  }

  async push(chunk: Buffer): Promise<void> {
    for (const event of this.#parser.push(chunk)) await this.#onEvent(event);
  }

  async end(): Promise<void> {
    for (const event of this.#parser.end()) await this.#onEvent(event);
    for (const item of [...this.#open.values()]) await this.#close(item, undefined, true);
  }

  /** Writes an upstream event, renumbered when insertions or removals shifted the numbering. */
  #pass(event: SseEvent): void {
    const data = event.data;
    const match = data === undefined ? null : sequencePattern.exec(data);
    if (!match || data === undefined) {
      this.#emit(event.raw);
      return;
    }
    if (!this.#sequenced) {
      this.#sequenced = true;
      this.#nextSequence = Number(match[1]);
    }
    const sequence = this.#nextSequence++;
    if (Number(match[1]) === sequence) {
      this.#emit(event.raw);
      return;
    }
    const renumbered = data.replace(sequencePattern, `"sequence_number":${sequence}`);
    this.#emit(formatEvent({ event: event.event, data: renumbered }, this.#parser.lineEnding));
  }

  #write(type: string, fields: JsonObject): void {
    const data = JSON.stringify({ type, sequence_number: this.#nextSequence++, ...fields });
    this.#emit(formatEvent({ event: type, data }, this.#parser.lineEnding));
  }

  #writeReplacement(outputIndex: number, itemId: string, text: string): void {
    const id = `msg_toolwall_${itemId}`;
    const part = { type: "output_text", annotations: [], logprobs: [], text: "" };
    const common = { item_id: id, output_index: outputIndex, content_index: 0 };
    this.#write("response.output_item.added", {
      output_index: outputIndex,
      item: messageItem(id, "", false),
    });
    this.#write("response.content_part.added", { ...common, part });
    this.#write("response.output_text.delta", { ...common, delta: text, logprobs: [] });
    this.#write("response.output_text.done", { ...common, text, logprobs: [] });
    this.#write("response.content_part.done", { ...common, part: { ...part, text } });
    const done = messageItem(id, text, true);
    this.#write("response.output_item.done", { output_index: outputIndex, item: done });
    this.#replaced.set(itemId, done);
  }

  async #onEvent(event: SseEvent): Promise<void> {
    if (event.data === undefined) {
      this.#emit(event.raw);
      return;
    }
    const name = event.event ?? stringAt(tryParse(event.data), "type");
    if (this.#open.size > 0 && name !== "response.output_item.added") {
      const data = tryParse(event.data);
      const outputIndex = numberAt(data, "output_index");
      const open = outputIndex === undefined ? undefined : this.#open.get(outputIndex);
      if (open) {
        const delta = stringAt(data, "delta");
        if (argumentDeltaEvents.has(name ?? "") && delta !== undefined) {
          open.call.appendArguments(delta);
        }
        if (name === "response.output_item.done") {
          await this.#close(open, event, false);
          return;
        }
        if (open.call.mode === "hold") open.held.push(event);
        else if (open.call.mode === "pass") this.#pass(event);
        return;
      }
      if (terminalEvents.has(name ?? "") || name === "error") {
        for (const item of [...this.#open.values()]) await this.#close(item, undefined, true);
      }
    }
    if (name === "response.output_item.added") {
      const data = tryParse(event.data);
      const item = objectAt(data, "item");
      const outputIndex = numberAt(data, "output_index");
      if (callItemTypes.has(stringAt(item, "type") ?? "") && outputIndex !== undefined) {
        const callId = stringAt(item, "call_id") ?? "";
        const freeText = stringAt(item, "type") === "custom_tool_call";
        const call = await HeldCall.start(this.#turn, stringAt(item, "name") ?? "", { callId }, { freeText });
        const open: OpenItem = {
          outputIndex,
          call,
          itemId: stringAt(item, "id") ?? callId,
          callId,
          held: [event],
        };
        this.#open.set(outputIndex, open);
        if (call.mode === "pass") this.#pass(event);
        else if (call.mode === "drop") this.#writeReplacement(outputIndex, open.itemId, call.earlyMessage);
        return;
      }
    }
    if (terminalEvents.has(name ?? "") && this.#replaced.size > 0) {
      const data = tryParse(event.data);
      const response = objectAt(data, "response");
      const output = arrayAt(response, "output");
      if (isObject(data) && response && output) {
        response.output = output.map((item) => this.#replaced.get(stringAt(item, "id") ?? "") ?? item);
        data.sequence_number = this.#nextSequence++;
        this.#emit(formatEvent({ event: event.event, data: JSON.stringify(data) }, this.#parser.lineEnding));
        return;
      }
    }
    this.#pass(event);
  }

  async #close(open: OpenItem, done: SseEvent | undefined, truncated: boolean): Promise<void> {
    this.#open.delete(open.outputIndex);
    const item = objectAt(tryParse(done?.data), "item");
    const outcome = await open.call.finish(truncated, stringAt(item, "arguments") ?? stringAt(item, "input"));
    if (open.call.mode === "pass") {
      if (done) this.#pass(done);
      return;
    }
    if (open.call.mode === "drop") return;
    if (outcome.allowed) {
      for (const event of open.held) this.#pass(event);
      if (done) this.#pass(done);
      return;
    }
    this.#writeReplacement(open.outputIndex, open.itemId, outcome.message);
  }
}

async function rewriteResponse(body: JsonObject, turn: Turn): Promise<JsonObject | undefined> {
  const output = arrayAt(body, "output");
  if (!output) return undefined;
  let changed = false;
  const rewritten: unknown[] = [];
  for (const item of output) {
    if (!callItemTypes.has(stringAt(item, "type") ?? "")) {
      rewritten.push(item);
      continue;
    }
    const custom = stringAt(item, "type") === "custom_tool_call";
    const text = stringAt(item, "arguments") ?? stringAt(item, "input") ?? "";
    const parsed = custom ? { input: text } : text.trim() === "" ? {} : tryParse(text);
    const callId = stringAt(item, "call_id") ?? "";
    const decided = await turn.decide(stringAt(item, "name") ?? "", parsed ?? text, {
      detail: { callId },
      ...(parsed === undefined ? { argumentsUnreadable: true } : {}),
    });
    if (decided.blocked) {
      changed = true;
      rewritten.push(messageItem(`msg_toolwall_${stringAt(item, "id") ?? callId}`, decided.message, true));
    } else rewritten.push(item);
  }
  return changed ? { ...body, output: rewritten } : undefined;
}

export const openaiResponsesResponse: ResponseSide = {
  rewriteJson: (body, turn) => (isObject(body) ? rewriteResponse(body, turn) : Promise.resolve(undefined)),
  refusalBody: openaiError,
  streamRewriter: (turn, emit) => new ResponsesStreamRewriter(turn, emit),
};
