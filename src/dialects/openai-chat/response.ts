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
 * OpenAI Chat Completions responses. Streaming: `data:` chunks, a tool call's id and name only in its
 * first delta (per `tool_calls[].index`), argument fragments after it, `finish_reason` in its own
 * chunk, `[DONE]` last. A call is complete when the next call starts, the choice finishes or the
 * stream ends. A blocked call's deltas are removed, a content delta carries the block message, the
 * calls let through are renumbered from 0 and `finish_reason` becomes `stop` when none is left.
 */

interface OpenCall {
  index: number;
  /** Index the call has in the rewritten stream (calls before it may have been removed). */
  outIndex: number;
  call: HeldCall;
  held: SseEvent[];
}

interface ChoiceState {
  open: OpenCall | undefined;
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

/** The call fragments of one choice's delta: `tool_calls[]` entries and a legacy `function_call`. */
function callDeltas(
  delta: JsonObject | undefined,
): { index: number; id: string; fn: JsonObject | undefined; custom: boolean }[] {
  const found = (arrayAt(delta, "tool_calls") ?? []).map((call) => {
    const custom = objectAt(call, "custom");
    return {
      index: numberAt(call, "index") ?? 0,
      id: stringAt(call, "id") ?? "",
      fn: custom ?? objectAt(call, "function"),
      custom: custom !== undefined,
    };
  });
  const legacy = objectAt(delta, "function_call");
  if (legacy) found.push({ index: legacyIndex, id: "", fn: legacy, custom: false });
  return found;
}

function mightConcernTools(data: string): boolean {
  return (
    data.includes('"tool_calls"') || /"finish_reason":\s*"/.test(data) || data.includes('"function_call"')
  );
}

class ChatStreamRewriter implements StreamRewriter {
  readonly #turn: Turn;
  readonly #emit: Emit;
  readonly #parser = new SseParser();
  readonly #choices = new Map<number, ChoiceState>();
  #lastEnvelope: JsonObject = { object: "chat.completion.chunk" };

  constructor(turn: Turn, emit: Emit) {
    this.#turn = turn;
    this.#emit = emit;
  }

  #choice(index: number): ChoiceState {
    let state = this.#choices.get(index);
    if (!state) {
      state = { open: undefined, letThrough: 0, blocked: 0, finished: false };
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
    const data = event.data;
    if (data === undefined || !mightConcernTools(data)) {
      if (data?.trim() === "[DONE]") await this.#closeAll(true);
      this.#emit(event.raw);
      return;
    }
    const chunk = tryParse(data);
    const choices = arrayAt(chunk, "choices");
    if (!isObject(chunk) || !choices) {
      this.#emit(event.raw);
      return;
    }
    this.#lastEnvelope = envelope(chunk);
    let holdBy: OpenCall | undefined;
    let rewrite = false;
    for (const choice of choices) {
      const choiceIndex = numberAt(choice, "index") ?? 0;
      const state = this.#choice(choiceIndex);
      for (const { index, id, fn, custom } of callDeltas(objectAt(choice, "delta"))) {
        if (!state.open || state.open.index !== index) {
          if (state.open) await this.#close(choiceIndex, state, false);
          const call = await HeldCall.start(
            this.#turn,
            stringAt(fn, "name") ?? "",
            { callId: id },
            { freeText: custom },
          );
          const outIndex = index === legacyIndex ? legacyIndex : state.letThrough;
          state.open = { index, outIndex, call, held: [] };
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
        }
        const open = state.open;
        const fragment = stringAt(fn, "arguments") ?? stringAt(fn, "input");
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

async function rewriteCompletion(body: JsonObject, turn: Turn): Promise<JsonObject | undefined> {
  let changed = false;
  const choices: unknown[] = [];
  for (const choice of arrayAt(body, "choices") ?? []) {
    const message = objectAt(choice, "message");
    const legacy = objectAt(message, "function_call");
    const calls =
      arrayAt(message, "tool_calls") ?? (legacy ? [{ id: "", function: legacy, legacy: true }] : undefined);
    if (!message || !calls) {
      choices.push(choice);
      continue;
    }
    const kept: unknown[] = [];
    const messages: string[] = [];
    for (const call of calls) {
      const fn = objectAt(call, "function") ?? objectAt(call, "custom");
      const custom = objectAt(call, "custom") !== undefined;
      const text = stringAt(fn, "arguments") ?? stringAt(fn, "input") ?? "";
      const parsed = custom ? { input: text } : text.trim() === "" ? {} : tryParse(text);
      const decided = await turn.decide(stringAt(fn, "name") ?? "", parsed ?? text, {
        detail: { callId: stringAt(call, "id") ?? "" },
        ...(parsed === undefined ? { argumentsUnreadable: true } : {}),
      });
      if (decided.blocked) messages.push(decided.message);
      else kept.push(call);
    }
    if (messages.length === 0) {
      choices.push(choice);
      continue;
    }
    changed = true;
    const content = typeof message.content === "string" && message.content !== "" ? [message.content] : [];
    const next: JsonObject = { ...message, content: [...content, ...messages].join("\n") };
    if (legacy) delete next.function_call;
    else if (kept.length > 0) next.tool_calls = kept;
    else delete next.tool_calls;
    const finish = (choice as JsonObject).finish_reason;
    choices.push({
      ...(choice as JsonObject),
      message: next,
      finish_reason: kept.length === 0 && callFinishReasons.has(finish as string) ? "stop" : finish,
    });
  }
  return changed ? { ...body, choices } : undefined;
}

export const openaiChatResponse: ResponseSide = {
  rewriteJson: (body, turn) => (isObject(body) ? rewriteCompletion(body, turn) : Promise.resolve(undefined)),
  refusalBody: openaiError,
  streamRewriter: (turn, emit) => new ChatStreamRewriter(turn, emit),
};
