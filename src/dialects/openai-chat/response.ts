import { formatEvent, type SseEvent, SseParser } from "../../codecs/sse.ts";
import type { Emit, ResponseSide, StreamRewriter, Turn } from "../../engine/dialect.ts";
import { HeldCall, readArguments } from "../../engine/held-call.ts";
import {
  arrayAt,
  isObject,
  type JsonObject,
  numberAt,
  objectAt,
  tryParse,
} from "../../engine/json-values.ts";
import { indexAt, openaiError, printable, refuse, refusing } from "../../engine/refusal.ts";

/**
 * OpenAI Chat Completions responses. Streaming: `data:` chunks, a tool call's id and name only in its
 * first delta (per `tool_calls[].index`), argument fragments after it, `finish_reason` in its own
 * chunk, `[DONE]` last. A call is complete when the next call starts, the choice finishes or the
 * stream ends. A blocked call's deltas are removed, a content delta carries the block message, the
 * calls let through are renumbered from 0 and `finish_reason` becomes `stop` when none is left.
 */

interface OpenCall {
  index: number;
  id: string | undefined;
  custom: boolean;
  /** Index the call has in the rewritten stream (calls before it may have been removed). */
  outIndex: number;
  call: HeldCall;
  held: SseEvent[];
}

interface ChoiceState {
  open: OpenCall | undefined;
  /** Calls started in this choice (the next index) and the indices already decided. */
  started: number;
  closed: Set<number>;
  letThrough: number;
  blocked: number;
  finished: boolean;
}

/** The chunk fields repeated in every chunk, for chunks the proxy writes itself. */
function envelope(chunk: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of ["id", "object", "created", "model", "service_tier", "system_fingerprint"]) {
    if (chunk[key] !== undefined) out[key] = chunk[key];
  }
  return out;
}

/** The index a legacy `function_call` (the deprecated `functions` parameter) is tracked under. */
const legacyIndex = -1;
const callFinishReasons = new Set(["tool_calls", "function_call"]);

interface CallDelta {
  index: number;
  id: string | undefined;
  name: string | undefined;
  fn: JsonObject | undefined;
  custom: boolean;
}

/** A string field that may be absent (or null) but nothing else. */
function optionalString(value: JsonObject | undefined, key: string, where: string): string | undefined {
  const field = value?.[key];
  if (field === undefined || field === null) return undefined;
  if (typeof field !== "string") refuse(`${where}: ${key} is not a string`);
  return field;
}

/** An object field that may be absent (or null) but nothing else: objects where arrays go are refused. */
function optionalObject(value: JsonObject | undefined, key: string, where: string): JsonObject | undefined {
  const field = value?.[key];
  if (field === undefined || field === null) return undefined;
  if (!isObject(field)) refuse(`${where}: ${key} is not an object`);
  return field;
}

function optionalArray(value: JsonObject | undefined, key: string, where: string): unknown[] | undefined {
  const field = value?.[key];
  if (field === undefined || field === null) return undefined;
  if (!Array.isArray(field)) refuse(`${where}: ${key} is not an array`);
  return field;
}

/**
 * The call fragments of one choice's delta, read strictly: `tool_calls[]` entries with integral
 * indices and one kind each (`function` or `custom`, never both), and a legacy `function_call`.
 */
function callDeltas(delta: JsonObject | undefined): CallDelta[] {
  const found = (optionalArray(delta, "tool_calls", "delta") ?? []).map((entry): CallDelta => {
    if (!isObject(entry)) refuse("delta.tool_calls holds an entry that is not an object");
    const index = indexAt(entry, "index", "delta.tool_calls[]");
    const where = `tool call ${index}`;
    const custom = optionalObject(entry, "custom", where);
    const fn = optionalObject(entry, "function", where);
    if (custom && fn) refuse(`${where} is both a custom and a function call`);
    const body = custom ?? fn;
    return {
      index,
      id: optionalString(entry, "id", where),
      name: optionalString(body, "name", where),
      fn: body,
      custom: custom !== undefined,
    };
  });
  const legacy = optionalObject(delta, "function_call", "delta");
  if (legacy) {
    found.push({
      index: legacyIndex,
      id: undefined,
      name: optionalString(legacy, "name", "function_call"),
      fn: legacy,
      custom: false,
    });
  }
  return found;
}

/** A choice that starts, continues or ends calls; validated on the way (a plain text delta is not). */
function mayConcernTools(choice: unknown): boolean {
  if (!isObject(choice)) refuse("a choice that is not an object");
  indexAt(choice, "index", "choice");
  // The SDK copies a chunk choice's other keys onto its snapshot: a `message` would replace
  // everything accumulated from the deltas.
  if (choice.message !== undefined) refuse("a streamed choice carries a whole message");
  const delta = optionalObject(choice, "delta", "choice");
  const finish = optionalString(choice, "finish_reason", "choice");
  return callDeltas(delta).length > 0 || finish !== undefined;
}

class ChatStreamRewriter implements StreamRewriter {
  readonly #turn: Turn;
  readonly #emit: Emit;
  readonly #parser = new SseParser();
  readonly #choices = new Map<number, ChoiceState>();
  #lastEnvelope: JsonObject = { object: "chat.completion.chunk" };
  #done = false;

  constructor(turn: Turn, emit: Emit) {
    this.#turn = turn;
    this.#emit = emit;
  }

  #choice(index: number): ChoiceState {
    let state = this.#choices.get(index);
    if (!state) {
      state = { open: undefined, started: 0, closed: new Set(), letThrough: 0, blocked: 0, finished: false };
      this.#choices.set(index, state);
    }
    return state;
  }

  async push(chunk: Buffer): Promise<void> {
    for (const event of this.#parser.push(chunk)) await this.#onEvent(event);
  }

  async end(): Promise<void> {
    for (const event of this.#parser.end()) await this.#onEvent(event);
    await this.#closeAll(true);
  }

  async #closeAll(truncated: boolean): Promise<void> {
    for (const [index, state] of this.#choices) {
      if (state.open) await this.#close(index, state, truncated && !state.finished);
      if (truncated && !state.finished && state.blocked > 0 && state.letThrough === 0) {
        // The stream broke off inside a call that was blocked: end the choice cleanly as a text answer.
        state.finished = true;
        this.#write({
          ...this.#lastEnvelope,
          choices: [{ index, delta: {}, logprobs: null, finish_reason: "stop" }],
        });
      }
    }
  }

  #write(chunk: JsonObject): void {
    this.#emit(formatEvent({ data: JSON.stringify(chunk) }, this.#parser.lineEnding));
  }

  async #onEvent(event: SseEvent): Promise<void> {
    // An event the stream ended in the middle of is never dispatched by the SDK; one without data
    // (a comment, a keep-alive) carries nothing it reads.
    if (!event.complete) return;
    const data = event.data;
    if (data === undefined) {
      this.#emit(event.raw);
      return;
    }
    if (this.#done) refuse("data after [DONE]");
    if (data === "[DONE]") {
      this.#done = true;
      await this.#closeAll(true);
      this.#emit(event.raw);
      return;
    }
    const chunk = tryParse(data);
    if (!isObject(chunk)) refuse("a chunk that is not a JSON object");
    if (chunk.error !== undefined && chunk.error !== null) {
      // The SDK raises it; what is held is decided on what arrived.
      await this.#closeAll(true);
      this.#emit(event.raw);
      return;
    }
    const choices = chunk.choices;
    if (!Array.isArray(choices)) refuse("chunk choices is not an array");
    if (!choices.map(mayConcernTools).includes(true)) {
      this.#emit(event.raw);
      return;
    }
    this.#lastEnvelope = envelope(chunk);
    let holdBy: OpenCall | undefined;
    let rewrite = false;
    for (const choice of choices) {
      const choiceIndex = numberAt(choice, "index") ?? 0;
      const state = this.#choice(choiceIndex);
      for (const { index, id, name, fn, custom } of callDeltas(objectAt(choice, "delta"))) {
        if (!state.open || state.open.index !== index) {
          if (state.open) await this.#close(choiceIndex, state, false);
          if (state.closed.has(index)) refuse(`a delta for tool call ${index} after it was decided`);
          if (index !== legacyIndex && index !== state.started) {
            refuse(`tool call index ${index} where call ${state.started} comes next`);
          }
          if (name === undefined) refuse(`tool call ${index} starts without a name`);
          if (index !== legacyIndex) state.started++;
          const call = await HeldCall.start(this.#turn, name, { callId: id ?? "" }, { freeText: custom });
          const outIndex = index === legacyIndex ? legacyIndex : state.letThrough;
          state.open = { index, id, custom, outIndex, call, held: [] };
          if (call.mode === "pass") state.letThrough++;
          if (call.mode === "drop") {
            state.blocked++;
            this.#write({
              ...envelope(chunk),
              choices: [
                {
                  index: choiceIndex,
                  delta: { content: call.earlyMessage },
                  logprobs: null,
                  finish_reason: null,
                },
              ],
            });
          }
        } else {
          // A decision is final: a later delta may only add arguments to the call it continues.
          const open = state.open;
          if (name !== undefined && name !== open.call.name) {
            refuse(`tool call ${index} renamed from '${printable(open.call.name)}' to '${printable(name)}'`);
          }
          if (id !== undefined && open.id !== undefined && id !== open.id) {
            refuse(`tool call ${index} changes its id`);
          }
          if (custom !== open.custom) refuse(`tool call ${index} changes between function and custom`);
          open.id ??= id;
        }
        const open = state.open;
        const fragment = optionalString(fn, custom ? "input" : "arguments", `tool call ${index}`);
        if (fragment !== undefined) open.call.appendArguments(fragment);
        if (open.call.mode === "hold") holdBy = open;
        else if (open.call.mode === "drop" || open.outIndex !== open.index) rewrite = true;
      }
      if (typeof (choice as JsonObject).finish_reason === "string") {
        state.finished = true;
        if (holdBy && state.open === holdBy) {
          holdBy.held.push(event);
          await this.#close(choiceIndex, state, false);
          return;
        }
        if (state.open) await this.#close(choiceIndex, state, false);
        if (
          callFinishReasons.has((choice as JsonObject).finish_reason as string) &&
          state.letThrough === 0 &&
          state.blocked > 0
        ) {
          rewrite = true;
        }
      }
    }
    if (holdBy) {
      holdBy.held.push(event);
      return;
    }
    if (rewrite) {
      const rewritten = this.#rewriteChunk(chunk);
      if (rewritten) this.#write(rewritten);
      return;
    }
    this.#emit(event.raw);
  }

  /**
   * The chunk without the deltas of removed calls, with calls renumbered and finish_reason adjusted;
   * undefined when nothing is left worth sending.
   */
  #rewriteChunk(chunk: JsonObject, removing?: { choice: number; index: number }): JsonObject | undefined {
    const original = arrayAt(chunk, "choices") ?? [];
    const choices: unknown[] = [];
    for (const choice of original) {
      if (!isObject(choice)) continue;
      const choiceIndex = numberAt(choice, "index") ?? 0;
      const state = this.#choice(choiceIndex);
      const delta: JsonObject = { ...(objectAt(choice, "delta") ?? {}) };
      const calls = arrayAt(delta, "tool_calls");
      if (calls) {
        const kept: unknown[] = [];
        for (const call of calls) {
          const index = numberAt(call, "index") ?? 0;
          if (removing && removing.choice === choiceIndex && removing.index === index) continue;
          const open = state.open?.index === index ? state.open : undefined;
          if (open && open.call.mode === "drop") continue;
          kept.push(
            open && open.outIndex !== index ? { ...(call as JsonObject), index: open.outIndex } : call,
          );
        }
        if (kept.length > 0) delta.tool_calls = kept;
        else delete delta.tool_calls;
      }
      if (delta.function_call !== undefined) {
        const removed = removing?.choice === choiceIndex && removing.index === legacyIndex;
        if (removed || (state.open?.index === legacyIndex && state.open.call.mode === "drop")) {
          delete delta.function_call;
        }
      }
      let finish = choice.finish_reason;
      if (callFinishReasons.has(finish as string) && state.letThrough === 0 && state.blocked > 0) {
        finish = "stop";
      }
      if (Object.keys(delta).length > 0 || (finish !== null && finish !== undefined)) {
        choices.push({ ...choice, delta, finish_reason: finish });
      }
    }
    if (choices.length === 0 && original.length > 0 && chunk.usage === undefined) return undefined;
    return { ...chunk, choices };
  }

  async #close(choiceIndex: number, state: ChoiceState, truncated: boolean): Promise<void> {
    const open = state.open!;
    state.open = undefined;
    state.closed.add(open.index);
    const outcome = await open.call.finish(truncated);
    if (open.call.mode !== "hold") return;
    if (outcome.allowed) {
      if (open.index !== legacyIndex) open.outIndex = state.letThrough;
      state.letThrough++;
      for (const event of open.held) {
        if (open.outIndex === open.index) this.#emit(event.raw);
        else {
          state.open = open;
          const rewritten = this.#rewriteChunk(tryParse(event.data) as JsonObject);
          state.open = undefined;
          if (rewritten) this.#write(rewritten);
        }
      }
      return;
    }
    state.blocked++;
    const first = tryParse(open.held[0]?.data);
    this.#write({
      ...(isObject(first) ? envelope(first) : this.#lastEnvelope),
      choices: [
        { index: choiceIndex, delta: { content: outcome.message }, logprobs: null, finish_reason: null },
      ],
    });
    for (const event of open.held) {
      const rewritten = this.#rewriteChunk(tryParse(event.data) as JsonObject, {
        choice: choiceIndex,
        index: open.index,
      });
      if (rewritten) this.#write(rewritten);
    }
  }
}

/** One call of a whole message: its name and argument text, read strictly. */
function wholeCall(
  call: unknown,
  where: string,
): { name: string; text: string; custom: boolean; id: string } {
  if (!isObject(call)) refuse(`${where}: a tool call that is not an object`);
  const custom = optionalObject(call, "custom", where);
  const fn = optionalObject(call, "function", where);
  if (custom && fn) refuse(`${where}: a tool call that is both a custom and a function call`);
  const body = custom ?? fn;
  const name = body?.name;
  if (typeof name !== "string") refuse(`${where}: a tool call without a string name`);
  const text = optionalString(body, custom ? "input" : "arguments", where) ?? "";
  return { name, text, custom: custom !== undefined, id: optionalString(call, "id", where) ?? "" };
}

async function rewriteCompletion(body: JsonObject, turn: Turn): Promise<JsonObject | undefined> {
  let changed = false;
  const choices: unknown[] = [];
  const original = body.choices;
  if (!Array.isArray(original)) refuse("completion choices is not an array");
  for (const choice of original) {
    if (!isObject(choice)) refuse("a choice that is not an object");
    const message = optionalObject(choice, "message", "choice");
    const legacy = optionalObject(message, "function_call", "message");
    const listed = optionalArray(message, "tool_calls", "message");
    const calls = [...(listed ?? []), ...(legacy ? [{ id: "", function: legacy }] : [])];
    if (!message || calls.length === 0) {
      choices.push(choice);
      continue;
    }
    const kept: unknown[] = [];
    const messages: string[] = [];
    let legacyBlocked = false;
    for (const [position, call] of calls.entries()) {
      const { name, text, custom, id } = wholeCall(call, "message.tool_calls");
      const args = readArguments(text, custom);
      const decided = await turn.decide(name, args.value, {
        detail: { callId: id },
        ...(args.unreadable ? { argumentsUnreadable: true } : {}),
      });
      const isLegacy = legacy !== undefined && position === calls.length - 1;
      if (decided.blocked) {
        messages.push(decided.message);
        if (isLegacy) legacyBlocked = true;
      } else if (!isLegacy) kept.push(call);
    }
    if (messages.length === 0) {
      choices.push(choice);
      continue;
    }
    changed = true;
    const content = typeof message.content === "string" && message.content !== "" ? [message.content] : [];
    const next: JsonObject = { ...message, content: [...content, ...messages].join("\n") };
    if (legacyBlocked) delete next.function_call;
    if (kept.length > 0) next.tool_calls = kept;
    else delete next.tool_calls;
    const callsLeft = kept.length > 0 || (legacy !== undefined && !legacyBlocked);
    const finish = choice.finish_reason;
    choices.push({
      ...choice,
      message: next,
      finish_reason: !callsLeft && callFinishReasons.has(finish as string) ? "stop" : finish,
    });
  }
  return changed ? { ...body, choices } : undefined;
}

export const openaiChatResponse: ResponseSide = {
  rewriteJson: (body, turn) => (isObject(body) ? rewriteCompletion(body, turn) : Promise.resolve(undefined)),
  refusalBody: openaiError,
  streamRewriter: (turn, emit) =>
    refusing(new ChatStreamRewriter(turn, emit), turn, emit, (message) =>
      formatEvent({ data: JSON.stringify(openaiError(message)) }, "\n"),
    ),
};
