import { formatEvent, type LineEnding, type SseEvent, SseParser } from "../../codecs/sse.ts";
import type { Emit, ResponseSide, StreamRewriter, Turn } from "../../engine/dialect.ts";
import { HeldCall, objectArguments } from "../../engine/held-call.ts";
import { isObject, type JsonObject, stringAt } from "../../engine/json-values.ts";
import { indexAt, parseEventData, refuse, refusing } from "../../engine/refusal.ts";

/**
 * Anthropic Messages responses. Streaming: blocks arrive one after another
 * (`content_block_start` → deltas → `content_block_stop`, each with its `index`); only a `tool_use`
 * block is held. A blocked one is replaced at the same index by a text block carrying the block
 * message, and `message_delta`'s `stop_reason` turns from `tool_use` to `end_turn` when no call
 * was let through.
 *
 * The SDK dispatches on `data.type` (any `event:` name but `ping`/`error` is parsed), appends every
 * started block whatever its `index`, and applies a delta to `content.at(index)` — so "0", null,
 * -1 or 0.5 all reach a block. The proxy therefore reads the stream as a strict grammar: the
 * `event:` name equal to `data.type`, known types only, integral indices that name the block being
 * streamed, one message; anything else is refused. A held call that is allowed goes out as one
 * canonical argument delta: the client receives exactly the arguments that were judged.
 */

/** Block types a response may carry; only `tool_use` is a call the client runs. */
const knownBlockTypes = new Set([
  "text",
  "thinking",
  "redacted_thinking",
  "tool_use",
  "server_tool_use",
  "web_search_tool_result",
  "web_fetch_tool_result",
  "advisor_tool_result",
  "code_execution_tool_result",
  "bash_code_execution_tool_result",
  "text_editor_code_execution_tool_result",
  "tool_search_tool_result",
  "mcp_tool_use",
  "mcp_tool_result",
  "mcp_tool_listing",
  "container_upload",
  "compaction",
  "fallback",
]);
const knownDeltaTypes = new Set([
  "text_delta",
  "input_json_delta",
  "citations_delta",
  "thinking_delta",
  "signature_delta",
  "compaction_delta",
]);
const knownEventTypes = new Set([
  "message_start",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "message_delta",
  "message_stop",
  "ping",
  "error",
]);

interface OpenBlock {
  index: number;
  /** The tool call, for a `tool_use` block. */
  call: HeldCall | undefined;
  /** The start event, rewritten to the canonical form when a held call is let through. */
  start: JsonObject;
  /** Raw events held while the decision waits for the arguments. */
  held: Buffer[];
  /** `content_block_start`'s own `input`: what the client keeps when no argument delta follows. */
  initialInput: unknown;
  deltaSeen: boolean;
}

function textBlockEvents(index: number, message: string, withStop: boolean, eol: LineEnding): Buffer[] {
  const events = [
    { type: "content_block_start", index, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index, delta: { type: "text_delta", text: message } },
  ];
  if (withStop) events.push({ type: "content_block_stop", index } as (typeof events)[number]);
  return events.map((data) => writeEvent(data, eol));
}

function writeEvent(data: JsonObject & { type: string }, eol: LineEnding): Buffer {
  return formatEvent({ event: data.type, data: JSON.stringify(data) }, eol);
}

function blockType(block: unknown, where: string): string {
  const type = stringAt(block, "type");
  if (type === undefined) refuse(`${where}: a content block without a string type`);
  if (!knownBlockTypes.has(type)) refuse(`${where}: unknown content block type '${type}'`);
  return type;
}

/** A `tool_use` block's name, required to be a string. */
function toolName(block: JsonObject, where: string): string {
  const name = block.name;
  if (typeof name !== "string") refuse(`${where}: a tool_use block without a string name`);
  return name;
}

class AnthropicStreamRewriter implements StreamRewriter {
  readonly #turn: Turn;
  readonly #emit: Emit;
  readonly #parser = new SseParser();
  #started = false;
  #stopped = false;
  /** The index the next `content_block_start` must carry (blocks of message_start's snapshot count). */
  #nextIndex = 0;
  #open: OpenBlock | undefined;
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
    if (this.#open?.call) await this.#closeToolBlock(undefined, true);
  }

  get #eol(): LineEnding {
    return this.#parser.lineEnding;
  }

  async #onEvent(event: SseEvent): Promise<void> {
    // An event the stream ended in the middle of is never dispatched by the SDK; one without data
    // (a comment, a keep-alive) carries nothing it reads.
    if (!event.complete) return;
    if (event.data === undefined) {
      this.#emit(event.raw);
      return;
    }
    const { data, type } = parseEventData(event, knownEventTypes);
    if (type === "ping") {
      this.#emit(event.raw);
      return;
    }
    if (type === "error") {
      if (this.#open?.call) await this.#closeToolBlock(undefined, true);
      this.#emit(event.raw);
      return;
    }
    if (this.#stopped) refuse(`'${type}' after message_stop`);
    if (type === "message_start") {
      if (this.#started) refuse("a second message_start");
      this.#started = true;
      await this.#onMessageStart(event, data);
      return;
    }
    if (!this.#started) refuse(`'${type}' before message_start`);
    switch (type) {
      case "content_block_start":
        await this.#onBlockStart(event, data);
        return;
      case "content_block_delta":
        this.#onBlockDelta(event, data);
        return;
      case "content_block_stop":
        await this.#onBlockStop(event, data);
        return;
      case "message_delta":
        await this.#onMessageDelta(event, data);
        return;
      default:
        // message_stop
        if (this.#open) refuse(`message_stop inside content block ${this.#open.index}`);
        this.#stopped = true;
        this.#emit(event.raw);
    }
  }

  /** The snapshot's blocks are judged like a non-streamed message; deltas may not touch them. */
  async #onMessageStart(event: SseEvent, data: JsonObject): Promise<void> {
    const message = data.message;
    if (!isObject(message)) refuse("message_start without a message object");
    const judged = await judgeContent(message.content ?? [], this.#turn, "message_start.message.content");
    this.#nextIndex = judged.content.length;
    this.#callsBlocked += judged.blocked;
    this.#callsLetThrough += judged.kept;
    if (judged.blocked === 0) {
      this.#emit(event.raw);
      return;
    }
    this.#emit(
      writeEvent(
        { ...data, type: "message_start", message: { ...message, content: judged.content } },
        this.#eol,
      ),
    );
  }

  async #onBlockStart(event: SseEvent, data: JsonObject): Promise<void> {
    if (this.#open) refuse(`content_block_start while block ${this.#open.index} is open`);
    const index = indexAt(data, "index", "content_block_start");
    if (index !== this.#nextIndex) {
      refuse(`content_block_start index ${index} where block ${this.#nextIndex} comes next`);
    }
    this.#nextIndex++;
    const block = data.content_block;
    if (!isObject(block)) refuse("content_block_start without a content_block object");
    const type = blockType(block, "content_block_start");
    if (type !== "tool_use") {
      this.#open = {
        index,
        call: undefined,
        start: data,
        held: [],
        initialInput: undefined,
        deltaSeen: false,
      };
      this.#emit(event.raw);
      return;
    }
    const call = await HeldCall.start(this.#turn, toolName(block, "content_block_start"), {
      callId: stringAt(block, "id") ?? "",
    });
    this.#open = { index, call, start: data, held: [], initialInput: block.input, deltaSeen: false };
    if (call.mode === "pass") {
      this.#callsLetThrough++;
      this.#emit(event.raw);
    } else if (call.mode === "drop") {
      this.#callsBlocked++;
      for (const bytes of textBlockEvents(index, call.earlyMessage, false, this.#eol)) this.#emit(bytes);
    }
  }

  #onBlockDelta(event: SseEvent, data: JsonObject): void {
    const open = this.#requireOpen(data, "content_block_delta");
    const delta = data.delta;
    const deltaType = stringAt(delta, "type");
    if (!isObject(delta) || deltaType === undefined) refuse("content_block_delta without a typed delta");
    if (!knownDeltaTypes.has(deltaType)) refuse(`unknown delta type '${deltaType}'`);
    if (!open.call) {
      this.#emit(event.raw);
      return;
    }
    if (deltaType !== "input_json_delta" || typeof delta.partial_json !== "string") {
      refuse(`a '${deltaType}' delta inside tool_use block ${open.index}`);
    }
    open.deltaSeen = true;
    open.call.appendArguments(delta.partial_json);
    if (open.call.mode === "hold") open.held.push(event.raw);
    else if (open.call.mode === "pass") this.#emit(event.raw);
  }

  async #onBlockStop(event: SseEvent, data: JsonObject): Promise<void> {
    const open = this.#requireOpen(data, "content_block_stop");
    if (open.call) await this.#closeToolBlock(event, false);
    else {
      this.#open = undefined;
      this.#emit(event.raw);
    }
  }

  async #onMessageDelta(event: SseEvent, data: JsonObject): Promise<void> {
    // The stream moved on without closing the tool block (max_tokens): decide what arrived.
    if (this.#open?.call) await this.#closeToolBlock(undefined, true);
    else if (this.#open) refuse(`message_delta inside content block ${this.#open.index}`);
    const delta = data.delta;
    if (!isObject(delta)) refuse("message_delta without a delta object");
    if (this.#callsBlocked > 0 && this.#callsLetThrough === 0 && delta.stop_reason === "tool_use") {
      this.#emit(
        writeEvent(
          { ...data, type: "message_delta", delta: { ...delta, stop_reason: "end_turn" } },
          this.#eol,
        ),
      );
      return;
    }
    this.#emit(event.raw);
  }

  /** The block a delta or stop names: it must be the open one, by an integral index. */
  #requireOpen(data: JsonObject, where: string): OpenBlock {
    const index = indexAt(data, "index", where);
    const open = this.#open;
    if (!open) refuse(`${where} for block ${index}, which is not open`);
    if (index !== open.index) refuse(`${where} for block ${index} while block ${open.index} is open`);
    return open;
  }

  async #closeToolBlock(stop: SseEvent | undefined, truncated: boolean): Promise<void> {
    const open = this.#open!;
    const call = open.call!;
    this.#open = undefined;
    // Without a delta the client keeps the start's `input`; after one, only the deltas count.
    const whole =
      !open.deltaSeen && open.initialInput !== undefined ? JSON.stringify(open.initialInput) : undefined;
    const outcome = await call.finish(truncated, whole);
    if (call.mode === "pass") {
      // The SDK reads streamed input with a lenient partial parser: a finished block whose arguments
      // are not JSON would reach the client as something nobody read.
      if (stop && outcome.unreadable)
        refuse(`tool_use block ${open.index} ends with arguments that are not JSON`);
      if (stop) this.#emit(stop.raw);
      return;
    }
    if (call.mode === "drop") {
      this.#emit(writeEvent({ type: "content_block_stop", index: open.index }, this.#eol));
      return;
    }
    if (!outcome.allowed) {
      this.#callsBlocked++;
      for (const bytes of textBlockEvents(open.index, outcome.message, true, this.#eol)) this.#emit(bytes);
      return;
    }
    this.#callsLetThrough++;
    const block = open.start.content_block as JsonObject;
    this.#emit(
      writeEvent(
        { ...open.start, type: "content_block_start", content_block: { ...block, input: {} } },
        this.#eol,
      ),
    );
    this.#emit(
      writeEvent(
        {
          type: "content_block_delta",
          index: open.index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(outcome.judged) },
        },
        this.#eol,
      ),
    );
    if (stop) this.#emit(stop.raw);
  }
}

interface JudgedContent {
  content: unknown[];
  blocked: number;
  kept: number;
}

/** Decides every `tool_use` block of a message's content; blocked ones become text blocks. */
async function judgeContent(content: unknown, turn: Turn, where: string): Promise<JudgedContent> {
  if (!Array.isArray(content)) refuse(`${where} is not an array`);
  const judged: JudgedContent = { content: [], blocked: 0, kept: 0 };
  for (const block of content) {
    if (!isObject(block)) refuse(`${where}: a content block that is not an object`);
    if (blockType(block, where) !== "tool_use") {
      judged.content.push(block);
      continue;
    }
    const args = objectArguments(block.input);
    const decided = await turn.decide(toolName(block, where), args.value, {
      detail: { callId: stringAt(block, "id") ?? "" },
      ...(args.unreadable ? { argumentsUnreadable: true } : {}),
    });
    if (decided.blocked) {
      judged.blocked++;
      judged.content.push({ type: "text", text: decided.message });
    } else {
      judged.kept++;
      judged.content.push(block);
    }
  }
  return judged;
}

async function rewriteMessage(body: JsonObject, turn: Turn): Promise<JsonObject | undefined> {
  const judged = await judgeContent(body.content, turn, "message content");
  if (judged.blocked === 0) return undefined;
  const result: JsonObject = { ...body, content: judged.content };
  if (judged.kept === 0 && body.stop_reason === "tool_use") result.stop_reason = "end_turn";
  return result;
}

function errorBody(message: string): JsonObject {
  return { type: "error", error: { type: "api_error", message } };
}

export const anthropicResponse: ResponseSide = {
  rewriteJson: (body, turn) => (isObject(body) ? rewriteMessage(body, turn) : Promise.resolve(undefined)),
  streamRewriter: (turn, emit) =>
    refusing(new AnthropicStreamRewriter(turn, emit), turn, emit, (message) =>
      writeEvent({ ...errorBody(message), type: "error" }, "\n"),
    ),
  refusalBody: errorBody,
};
