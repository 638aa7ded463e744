import { formatEvent, type SseEvent, SseParser } from "../../codecs/sse.ts";
import type { Emit, ResponseSide, StreamRewriter, Turn } from "../../engine/dialect.ts";
import { HeldCall, readArguments } from "../../engine/held-call.ts";
import { isObject, type JsonObject, stringAt } from "../../engine/json-values.ts";
import { indexAt, openaiError, parseEventData, printable, refuse, refusing } from "../../engine/refusal.ts";

/**
 * OpenAI Responses. A function call is an output item: `response.output_item.added` →
 * `response.function_call_arguments.delta`… → `.done` → `response.output_item.done`. Only that
 * item's events are held. A blocked call becomes a message item at the same `output_index` (the six
 * events of a text item), the snapshots (`response.created` … `response.completed`) get the same
 * replacement, and every event written carries the next `sequence_number`, so numbering stays
 * contiguous.
 *
 * The SDK dispatches on `data.type` whatever the `event:` name, lets `.done` events and the terminal
 * snapshot replace an item's arguments, and takes its final output from `response.completed`. So the
 * stream is read strictly: name equal to type, known types, integral `output_index` appended in
 * order, and every later word about a decided call — `.done` arguments, the done item, a snapshot —
 * must repeat what was decided (name, ids, arguments), or the response is cut.
 */

const lifecycleEvents = new Set(["response.created", "response.queued", "response.in_progress"]);
const terminalEvents = new Set(["response.completed", "response.incomplete", "response.failed"]);
const sequencePattern = /"sequence_number":\s*(\d+)/;

/** Client tool calls among output items, with the field holding their arguments. */
const callItems: ReadonlyMap<string, { field: "arguments" | "input"; delta: string; done: string }> = new Map(
  [
    [
      "function_call",
      {
        field: "arguments",
        delta: "response.function_call_arguments.delta",
        done: "response.function_call_arguments.done",
      },
    ],
    [
      "custom_tool_call",
      {
        field: "input",
        delta: "response.custom_tool_call_input.delta",
        done: "response.custom_tool_call_input.done",
      },
    ],
  ],
);

/**
 * Output items the proxy understands that are not calls the client runs: the provider runs them, or
 * they are results. Client-run calls of other kinds (computer_call, local_shell_call, shell_call,
 * apply_patch_call, program) and tool lists (additional_tools) are not judged yet, so refused.
 */
const providerItemTypes = new Set([
  "message",
  "reasoning",
  "file_search_call",
  "web_search_call",
  "tool_search_call",
  "tool_search_output",
  "image_generation_call",
  "code_interpreter_call",
  "mcp_call",
  "mcp_list_tools",
  "mcp_approval_request",
  "mcp_approval_response",
  "compaction",
  "function_call_output",
  "custom_tool_call_output",
  "computer_call_output",
  "local_shell_call_output",
  "shell_call_output",
  "apply_patch_call_output",
  "program_output",
]);

/** Events about the response as a whole, not about one output item (no `output_index`). */
const responseWideEvents = new Set([
  "response.audio.delta",
  "response.audio.done",
  "response.audio.transcript.delta",
  "response.audio.transcript.done",
  "response.compaction.compacting",
]);

/** The stream event types of the SDK's accumulator (its own list: it throws on any other). */
const knownEventTypes = new Set([
  ...lifecycleEvents,
  ...terminalEvents,
  "response.output_item.added",
  "response.output_item.done",
  "response.content_part.added",
  "response.content_part.done",
  "response.output_text.delta",
  "response.output_text.done",
  "response.output_text.annotation.added",
  "response.refusal.delta",
  "response.refusal.done",
  "response.function_call_arguments.delta",
  "response.function_call_arguments.done",
  "response.custom_tool_call_input.delta",
  "response.custom_tool_call_input.done",
  "response.mcp_call_arguments.delta",
  "response.mcp_call_arguments.done",
  "response.reasoning_text.delta",
  "response.reasoning_text.done",
  "response.reasoning_summary_part.added",
  "response.reasoning_summary_part.done",
  "response.reasoning_summary_text.delta",
  "response.reasoning_summary_text.done",
  "response.code_interpreter_call_code.delta",
  "response.code_interpreter_call_code.done",
  "response.code_interpreter_call.in_progress",
  "response.code_interpreter_call.interpreting",
  "response.code_interpreter_call.completed",
  "response.file_search_call.in_progress",
  "response.file_search_call.searching",
  "response.file_search_call.completed",
  "response.web_search_call.in_progress",
  "response.web_search_call.searching",
  "response.web_search_call.completed",
  "response.image_generation_call.in_progress",
  "response.image_generation_call.generating",
  "response.image_generation_call.completed",
  "response.image_generation_call.partial_image",
  "response.mcp_call.in_progress",
  "response.mcp_call.completed",
  "response.mcp_call.failed",
  "response.mcp_list_tools.in_progress",
  "response.mcp_list_tools.completed",
  "response.mcp_list_tools.failed",
  ...responseWideEvents,
  "keepalive",
  "error",
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

/** A call item as the client will run it. */
interface CallIdentity {
  type: string;
  id: string | undefined;
  callId: string | undefined;
  name: string;
}

/** An output item's type, refused unless the proxy knows what it is. */
function itemType(item: unknown, where: string): string {
  if (!isObject(item)) refuse(`${where}: an output item that is not an object`);
  const type = item.type;
  if (typeof type !== "string") refuse(`${where}: an output item without a string type`);
  if (!callItems.has(type) && !providerItemTypes.has(type)) {
    refuse(`${where}: output item type '${printable(type)}' is not a call the proxy can judge`);
  }
  return type;
}

function callIdentity(item: JsonObject, type: string, where: string): CallIdentity {
  const name = item.name;
  if (typeof name !== "string") refuse(`${where}: a ${type} item without a string name`);
  for (const key of ["id", "call_id"]) {
    if (item[key] !== undefined && typeof item[key] !== "string")
      refuse(`${where}: ${type} ${key} is not a string`);
  }
  return { type, id: stringAt(item, "id"), callId: stringAt(item, "call_id"), name };
}

/** The argument text of a call item; a non-string is refused (the client would not read it as judged). */
function callArguments(item: JsonObject, type: string, where: string): string {
  const field = callItems.get(type)!.field;
  const value = item[field] ?? "";
  if (typeof value !== "string") refuse(`${where}: ${type} ${field} is not a string`);
  return value;
}

function sameIdentity(a: CallIdentity, b: CallIdentity): boolean {
  return a.type === b.type && a.id === b.id && a.callId === b.callId && a.name === b.name;
}

interface JudgedOutput {
  output: unknown[];
  changed: boolean;
}

/** Decides every call item of an output array not decided before; blocked ones become message items. */
async function judgeOutput(
  output: unknown,
  turn: Turn,
  where: string,
  known: (item: JsonObject, identity: CallIdentity, args: string) => JsonObject | undefined = () => undefined,
): Promise<JudgedOutput> {
  if (!Array.isArray(output)) refuse(`${where} is not an array`);
  const judged: JudgedOutput = { output: [], changed: false };
  for (const item of output) {
    const type = itemType(item, where);
    if (!callItems.has(type)) {
      judged.output.push(item);
      continue;
    }
    const call = item as JsonObject;
    const identity = callIdentity(call, type, where);
    const text = callArguments(call, type, where);
    const decidedBefore = known(call, identity, text);
    if (decidedBefore) {
      judged.changed ||= decidedBefore !== call;
      judged.output.push(decidedBefore);
      continue;
    }
    const args = readArguments(text, type === "custom_tool_call");
    const decided = await turn.decide(identity.name, args.value, {
      detail: { callId: identity.callId ?? "" },
      ...(args.unreadable ? { argumentsUnreadable: true } : {}),
    });
    if (decided.blocked) {
      judged.changed = true;
      judged.output.push(
        messageItem(`msg_toolwall_${identity.id ?? identity.callId ?? ""}`, decided.message, true),
      );
    } else judged.output.push(item);
  }
  return judged;
}

interface ItemState {
  outputIndex: number;
  type: string;
  id: string | undefined;
  /** For a call item: what the client will run, and how it is being decided. */
  identity: CallIdentity | undefined;
  call: HeldCall | undefined;
  /** The argument text as the SDK accumulates it: the added item's own text, then the deltas. */
  argumentText: string;
  held: SseEvent[];
  done: boolean;
  /** Once decided: the item as let through, or the message item that replaced it. */
  outcome: { allowed: boolean; replacement: JsonObject | undefined; argumentText: string } | undefined;
}

class ResponsesStreamRewriter implements StreamRewriter {
  readonly #turn: Turn;
  readonly #emit: Emit;
  readonly #parser = new SseParser();
  readonly #items = new Map<number, ItemState>();
  #started = false;
  #finished = false;
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
    await this.#closeOpenCalls();
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
    const data = JSON.stringify({ type, ...fields, sequence_number: this.#nextSequence++ });
    this.#emit(formatEvent({ event: type, data }, this.#parser.lineEnding));
  }

  #writeReplacement(outputIndex: number, itemId: string, text: string): JsonObject {
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
    return done;
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
    if (type === "keepalive") {
      this.#pass(event);
      return;
    }
    if (type === "error") {
      await this.#closeOpenCalls();
      this.#pass(event);
      return;
    }
    if (this.#finished) refuse(`'${type}' after the response ended`);
    if (lifecycleEvents.has(type) || terminalEvents.has(type)) {
      if (type === "response.created") {
        if (this.#started) refuse("a second response.created");
        this.#started = true;
      } else if (!this.#started) refuse(`'${type}' before response.created`);
      await this.#onSnapshot(event, data, type);
      return;
    }
    if (!this.#started) refuse(`'${type}' before response.created`);
    if (responseWideEvents.has(type)) {
      this.#pass(event);
      return;
    }
    const outputIndex = indexAt(data, "output_index", type);
    if (type === "response.output_item.added") {
      await this.#onItemAdded(event, data, outputIndex);
      return;
    }
    const item = this.#items.get(outputIndex);
    if (!item) refuse(`'${type}' for output ${outputIndex}, which was never added`);
    if (item.done) refuse(`'${type}' for output ${outputIndex} after its output_item.done`);
    if (data.item_id !== undefined && data.item_id !== item.id) {
      refuse(
        `'${type}' names item ${printable(String(data.item_id))} at output ${outputIndex}, which is ${printable(item.id)}`,
      );
    }
    if (!item.identity) {
      if (type === "response.output_item.done") this.#onProviderItemDone(data, item);
      this.#pass(event);
      return;
    }
    await this.#onCallEvent(event, data, type, item, item.identity);
  }

  async #onItemAdded(event: SseEvent, data: JsonObject, outputIndex: number): Promise<void> {
    if (this.#items.has(outputIndex)) refuse(`output ${outputIndex} added twice`);
    if (outputIndex !== this.#items.size) {
      refuse(`output_item.added at output ${outputIndex} where output ${this.#items.size} comes next`);
    }
    const item = data.item;
    const type = itemType(item, "response.output_item.added");
    const object = item as JsonObject;
    const state: ItemState = {
      outputIndex,
      type,
      id: stringAt(object, "id"),
      identity: undefined,
      call: undefined,
      argumentText: "",
      held: [],
      done: false,
      outcome: undefined,
    };
    this.#items.set(outputIndex, state);
    if (!callItems.has(type)) {
      this.#pass(event);
      return;
    }
    state.identity = callIdentity(object, type, "response.output_item.added");
    state.argumentText = callArguments(object, type, "response.output_item.added");
    state.call = await HeldCall.start(
      this.#turn,
      state.identity.name,
      { callId: state.identity.callId ?? "" },
      {
        freeText: type === "custom_tool_call",
      },
    );
    state.call.appendArguments(state.argumentText);
    if (state.call.mode === "hold") state.held.push(event);
    else if (state.call.mode === "pass") this.#pass(event);
    else {
      const replacement = this.#writeReplacement(
        outputIndex,
        state.id ?? state.identity.callId ?? "",
        state.call.earlyMessage,
      );
      state.outcome = { allowed: false, replacement, argumentText: "" };
    }
  }

  #onProviderItemDone(data: JsonObject, item: ItemState): void {
    const done = data.item;
    const type = itemType(done, "response.output_item.done");
    if (type !== item.type || stringAt(done, "id") !== item.id) {
      refuse(`output_item.done at output ${item.outputIndex} swaps the ${item.type} item for a ${type}`);
    }
    item.done = true;
  }

  async #onCallEvent(
    event: SseEvent,
    data: JsonObject,
    type: string,
    item: ItemState,
    identity: CallIdentity,
  ) {
    const kind = callItems.get(item.type)!;
    const call = item.call!;
    if (call.mode === "drop") {
      // Blocked at its start and already replaced: nothing it says later reaches the client, its
      // arguments only go to the audit trail.
      if (type === kind.delta && typeof data.delta === "string") call.appendArguments(data.delta);
      if (type === "response.output_item.done") await this.#close(item, event, false);
      return;
    }
    if (type === kind.delta) {
      const delta = data.delta;
      if (typeof delta !== "string") refuse(`${type} without a string delta`);
      item.argumentText += delta;
      call.appendArguments(delta);
    } else if (type === kind.done) {
      const whole = data[kind.field];
      if (whole !== item.argumentText) {
        refuse(`${type} at output ${item.outputIndex} changes the arguments that streamed`);
      }
    } else if (type === "response.output_item.done") {
      const done = data.item;
      const doneType = itemType(done, "response.output_item.done");
      if (
        !callItems.has(doneType) ||
        !sameIdentity(callIdentity(done as JsonObject, doneType, type), identity)
      ) {
        refuse(
          `output_item.done at output ${item.outputIndex} renames or swaps the call '${printable(identity.name)}'`,
        );
      }
      if (callArguments(done as JsonObject, doneType, type) !== item.argumentText) {
        refuse(`output_item.done at output ${item.outputIndex} changes the arguments that streamed`);
      }
      await this.#close(item, event, false);
      return;
    } else refuse(`'${type}' inside the ${item.type} at output ${item.outputIndex}`);
    if (call.mode === "hold") item.held.push(event);
    else if (call.mode === "pass") this.#pass(event);
  }

  async #closeOpenCalls(): Promise<void> {
    for (const item of this.#items.values())
      if (item.identity && !item.done) await this.#close(item, undefined, true);
  }

  async #close(item: ItemState, done: SseEvent | undefined, truncated: boolean): Promise<void> {
    item.done = true;
    const call = item.call!;
    const outcome = await call.finish(truncated);
    if (call.mode === "drop") return;
    item.outcome = { allowed: outcome.allowed, replacement: undefined, argumentText: item.argumentText };
    if (call.mode === "pass") {
      if (done) this.#pass(done);
      return;
    }
    if (outcome.allowed) {
      for (const event of item.held) this.#pass(event);
      if (done) this.#pass(done);
      return;
    }
    item.outcome.replacement = this.#writeReplacement(
      item.outputIndex,
      item.id ?? item.identity!.callId ?? "",
      outcome.message,
    );
  }

  /**
   * A snapshot of the whole response: its call items are the ones decided in the stream (same
   * identity and arguments, replaced when blocked), or new ones judged here.
   */
  async #onSnapshot(event: SseEvent, data: JsonObject, type: string): Promise<void> {
    if (terminalEvents.has(type)) {
      await this.#closeOpenCalls();
      this.#finished = true;
    }
    const response = data.response;
    if (!isObject(response)) refuse(`${type} without a response object`);
    const judged = await judgeOutput(
      response.output ?? [],
      this.#turn,
      `${type} response.output`,
      (call, identity, text) => this.#decidedItem(call, identity, text, type),
    );
    if (type === "response.created") {
      // The snapshot's items take the first output indices; the stream can only add after them.
      judged.output.forEach((item, outputIndex) => {
        this.#items.set(outputIndex, {
          outputIndex,
          type: stringAt(item, "type") ?? "",
          id: stringAt(item, "id"),
          identity: undefined,
          call: undefined,
          argumentText: "",
          held: [],
          done: true,
          outcome: undefined,
        });
      });
    }
    if (!judged.changed) {
      this.#pass(event);
      return;
    }
    const { type: _type, sequence_number: _sequence, ...fields } = data;
    this.#write(type, { ...fields, response: { ...response, output: judged.output } });
  }

  /** A call item of a snapshot that the stream already decided: the same call, or a refusal. */
  #decidedItem(
    call: JsonObject,
    identity: CallIdentity,
    text: string,
    where: string,
  ): JsonObject | undefined {
    for (const item of this.#items.values()) {
      if (!item.identity || (item.id ?? item.identity.callId) !== (identity.id ?? identity.callId)) continue;
      if (!item.outcome)
        refuse(`${where} carries the call at output ${item.outputIndex} before it was decided`);
      if (!sameIdentity(item.identity, identity)) {
        refuse(
          `${where} renames or swaps the call '${printable(item.identity.name)}' at output ${item.outputIndex}`,
        );
      }
      if (item.outcome.replacement) return item.outcome.replacement;
      if (text !== item.outcome.argumentText) {
        refuse(`${where} changes the arguments of the call at output ${item.outputIndex}`);
      }
      return call;
    }
    return undefined;
  }
}

async function rewriteResponse(body: JsonObject, turn: Turn): Promise<JsonObject | undefined> {
  const judged = await judgeOutput(body.output, turn, "response output");
  return judged.changed ? { ...body, output: judged.output } : undefined;
}

export const openaiResponsesResponse: ResponseSide = {
  rewriteJson: (body, turn) => (isObject(body) ? rewriteResponse(body, turn) : Promise.resolve(undefined)),
  refusalBody: openaiError,
  streamRewriter: (turn, emit) =>
    refusing(new ResponsesStreamRewriter(turn, emit), turn, emit, (message) =>
      formatEvent(
        {
          event: "error",
          data: JSON.stringify({
            type: "error",
            code: "response_refused",
            message,
            param: null,
            sequence_number: 0,
          }),
        },
        "\n",
      ),
    ),
};
