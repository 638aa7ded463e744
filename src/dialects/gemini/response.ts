import type { Emit, ResponseSide, StreamRewriter, Turn } from "../../proxy/dialect.ts";
import { JsonArraySplitter } from "../../proxy/json-array.ts";
import { arrayAt, isObject, type JsonObject, objectAt, stringAt, tryParse } from "../../proxy/json-values.ts";
import { formatEvent, SseParser } from "../../proxy/sse.ts";

/**
 * Gemini GenerateContentResponse. Function calls arrive whole, as `functionCall` parts, so nothing is
 * held beyond the one event (or array element) that carries them. A blocked call's part becomes a text
 * part with the block message (its thoughtSignature goes with it); `finishReason` stays `STOP`.
 * Vertex's streamed `partialArgs` are not assembled: such a call is decided on its name alone, and
 * denied when a rule needs its arguments.
 */

const functionCallKeys = ["functionCall", "function_call"] as const;

function functionCallOf(part: unknown): JsonObject | undefined {
  for (const key of functionCallKeys) {
    const call = objectAt(part, key);
    if (call) return call;
  }
  return undefined;
}

function mentionsFunctionCall(text: string): boolean {
  return text.includes('"functionCall"') || text.includes('"function_call"');
}

/** Decides every call in one response object; the rewritten object, or undefined when all pass. */
async function rewriteCandidates(body: JsonObject, turn: Turn): Promise<JsonObject | undefined> {
  let changed = false;
  const candidates: unknown[] = [];
  for (const candidate of arrayAt(body, "candidates") ?? []) {
    const content = objectAt(candidate, "content");
    const parts = arrayAt(content, "parts");
    if (!content || !parts) {
      candidates.push(candidate);
      continue;
    }
    const rewritten: unknown[] = [];
    let candidateChanged = false;
    for (const part of parts) {
      const call = functionCallOf(part);
      if (!call) {
        rewritten.push(part);
        continue;
      }
      const streamedArgs = call.partialArgs !== undefined || call.willContinue !== undefined;
      const decided = await turn.decide(stringAt(call, "name") ?? "", call.args ?? {}, {
        detail: { callId: stringAt(call, "id") ?? "" },
        ...(streamedArgs ? { argumentsUnreadable: true } : {}),
      });
      if (decided.blocked) {
        candidateChanged = true;
        rewritten.push({ text: decided.message });
      } else rewritten.push(part);
    }
    if (candidateChanged) {
      changed = true;
      candidates.push({ ...(candidate as JsonObject), content: { ...content, parts: rewritten } });
    } else candidates.push(candidate);
  }
  return changed ? { ...body, candidates } : undefined;
}

const callNamePattern = /"function_?[cC]all"\s*:\s*\{\s*"name"\s*:\s*"((?:[^"\\]|\\.)*)"/;

/**
 * A response object cut off mid-way that mentions a call: decided on the name (fail closed when a rule
 * needs the arguments). Returns the replacement object, or undefined to let the bytes through.
 */
async function decideCutShort(text: string, turn: Turn): Promise<JsonObject | "drop" | undefined> {
  const name = callNamePattern.exec(text)?.[1];
  if (name === undefined) return "drop";
  const decided = await turn.decide(name, text, { argumentsUnreadable: true, detail: { truncated: true } });
  if (!decided.blocked) return undefined;
  return { candidates: [{ content: { parts: [{ text: decided.message }], role: "model" }, index: 0 }] };
}

class GeminiSseRewriter implements StreamRewriter {
  readonly #turn: Turn;
  readonly #emit: Emit;
  readonly #parser = new SseParser();

  constructor(turn: Turn, emit: Emit) {
    this.#turn = turn;
    this.#emit = emit;
  }

  async push(chunk: Buffer): Promise<void> {
    for (const event of this.#parser.push(chunk)) {
      if (event.data === undefined || !mentionsFunctionCall(event.data)) {
        this.#emit(event.raw);
        continue;
      }
      const body = tryParse(event.data);
      const rewritten = isObject(body) ? await rewriteCandidates(body, this.#turn) : undefined;
      if (rewritten) this.#write(rewritten);
      else this.#emit(event.raw);
    }
  }

  #write(body: JsonObject): void {
    this.#emit(formatEvent({ data: JSON.stringify(body) }, this.#parser.lineEnding));
  }

  async end(): Promise<void> {
    for (const event of this.#parser.end()) {
      const data = event.data ?? "";
      const body = tryParse(data);
      if (isObject(body)) {
        const rewritten = await rewriteCandidates(body, this.#turn);
        if (rewritten) this.#write(rewritten);
        else this.#emit(event.raw);
        continue;
      }
      if (!mentionsFunctionCall(data)) {
        this.#emit(event.raw);
        continue;
      }
      const outcome = await decideCutShort(data, this.#turn);
      if (outcome === undefined) this.#emit(event.raw);
      else if (outcome !== "drop") this.#write(outcome);
    }
  }
}

class GeminiArrayRewriter implements StreamRewriter {
  readonly #turn: Turn;
  readonly #emit: Emit;
  readonly #splitter = new JsonArraySplitter();

  constructor(turn: Turn, emit: Emit) {
    this.#turn = turn;
    this.#emit = emit;
  }

  async push(chunk: Buffer): Promise<void> {
    for (const piece of this.#splitter.push(chunk)) {
      if (piece.kind === "separator" || !mentionsFunctionCall(piece.raw.toString("utf8"))) {
        this.#emit(piece.raw);
        continue;
      }
      const body = tryParse(piece.raw.toString("utf8"));
      const rewritten = isObject(body) ? await rewriteCandidates(body, this.#turn) : undefined;
      this.#emit(rewritten ? Buffer.from(JSON.stringify(rewritten)) : piece.raw);
    }
  }

  async end(): Promise<void> {
    for (const piece of this.#splitter.end()) {
      const text = piece.raw.toString("utf8");
      if (piece.kind === "separator" || !mentionsFunctionCall(text)) {
        this.#emit(piece.raw);
        continue;
      }
      const outcome = await decideCutShort(text, this.#turn);
      if (outcome === undefined) this.#emit(piece.raw);
      else if (outcome !== "drop") this.#emit(Buffer.from(`${JSON.stringify(outcome)}]`));
    }
  }
}

/** Google's error body, which the SDK raises as an ApiError (also as a chunk of a stream). */
function geminiError(message: string): JsonObject {
  return { error: { code: 502, message, status: "UNAVAILABLE" } };
}

export const geminiResponse: ResponseSide = {
  rewriteJson: (body, turn) => (isObject(body) ? rewriteCandidates(body, turn) : Promise.resolve(undefined)),
  refusalBody: geminiError,
  streamRewriter: (turn, emit, framing) =>
    framing === "sse" ? new GeminiSseRewriter(turn, emit) : new GeminiArrayRewriter(turn, emit),
};
