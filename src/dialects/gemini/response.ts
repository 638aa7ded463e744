import { type ArrayPiece, JsonArraySplitter } from "../../codecs/json-array.ts";
import { formatEvent, SseParser } from "../../codecs/sse.ts";
import type { Emit, ResponseSide, StreamRewriter, Turn } from "../../engine/dialect.ts";
import { objectArguments } from "../../engine/held-call.ts";
import { isObject, type JsonObject, stringAt, tryParse } from "../../engine/json-values.ts";
import { refuse, refusing } from "../../engine/refusal.ts";

/**
 * Gemini GenerateContentResponse. Function calls arrive whole, as `functionCall` parts, so nothing is
 * held beyond the one event (or array element) that carries them. A blocked call's part becomes a text
 * part with the block message (its thoughtSignature goes with it); `finishReason` stays `STOP`.
 * Vertex's streamed `partialArgs` are not assembled: such a call is decided on its name alone, and
 * denied when a rule needs its arguments.
 */

const functionCallKeys = ["functionCall", "function_call"] as const;

/** A part's function call (either spelling), read strictly: an object with a string name. */
function functionCallOf(part: unknown): JsonObject | undefined {
  if (!isObject(part)) refuse("a content part that is not an object");
  for (const key of functionCallKeys) {
    const call = part[key];
    if (call === undefined || call === null) continue;
    if (!isObject(call)) refuse(`part.${key} is not an object`);
    if (typeof call.name !== "string") refuse(`part.${key} without a string name`);
    return call;
  }
  return undefined;
}

/** A field that may be absent but is otherwise an array: the SDK indexes an object like one. */
function arrayOrAbsent(value: JsonObject, key: string, where: string): unknown[] | undefined {
  const field = value[key];
  if (field === undefined || field === null) return undefined;
  if (!Array.isArray(field)) refuse(`${where}.${key} is not an array`);
  return field;
}

/** Decides every call in one response object; the rewritten object, or undefined when all pass. */
async function rewriteCandidates(body: JsonObject, turn: Turn): Promise<JsonObject | undefined> {
  let changed = false;
  const candidates: unknown[] = [];
  for (const candidate of arrayOrAbsent(body, "candidates", "response") ?? []) {
    if (!isObject(candidate)) refuse("a candidate that is not an object");
    const content = candidate.content;
    if (content !== undefined && content !== null && !isObject(content))
      refuse("candidate.content is not an object");
    const parts = isObject(content) ? arrayOrAbsent(content, "parts", "candidate.content") : undefined;
    if (!isObject(content) || !parts) {
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
      const args = objectArguments(call.args);
      const decided = await turn.decide(call.name as string, args.value, {
        detail: { callId: stringAt(call, "id") ?? "" },
        ...(streamedArgs || args.unreadable ? { argumentsUnreadable: true } : {}),
      });
      if (decided.blocked) {
        candidateChanged = true;
        rewritten.push({ text: decided.message });
      } else rewritten.push(part);
    }
    if (candidateChanged) {
      changed = true;
      candidates.push({ ...candidate, content: { ...content, parts: rewritten } });
    } else candidates.push(candidate);
  }
  return changed ? { ...body, candidates } : undefined;
}

/** One streamed response object, judged whole; refused when it is not a JSON object. */
async function rewriteChunk(text: string, turn: Turn): Promise<JsonObject | undefined> {
  const body = tryParse(text);
  if (!isObject(body)) refuse("a streamed chunk that is not a JSON object");
  return rewriteCandidates(body, turn);
}

function mentionsFunctionCall(text: string): boolean {
  return text.includes('"functionCall"') || text.includes('"function_call"');
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
      if (event.data === undefined) {
        this.#emit(event.raw);
        continue;
      }
      const rewritten = await rewriteChunk(event.data, this.#turn);
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
  readonly #splitter = new JsonArraySplitter();
  readonly #emit: Emit;
  /** Where the bytes sent so far leave the array: what an error element needs before it. */
  #position: "before" | "open" | "element" = "before";

  constructor(turn: Turn, emit: Emit) {
    this.#turn = turn;
    this.#emit = emit;
  }

  #send(piece: ArrayPiece, bytes = piece.raw): void {
    if (piece.kind === "element") this.#position = "element";
    else if (bytes.includes(0x2c) || bytes.includes(0x5b)) this.#position = "open";
    this.#emit(bytes);
  }

  /** The bytes that end the array with an error element, wherever the stream was cut. */
  closingError(message: string): Buffer {
    const before = { before: "[", open: "", element: "," }[this.#position];
    return Buffer.from(`${before}${JSON.stringify(geminiError(message))}]`);
  }

  async push(chunk: Buffer): Promise<void> {
    for (const piece of this.#splitter.push(chunk)) {
      if (piece.kind === "separator") {
        this.#send(piece);
        continue;
      }
      const rewritten = await rewriteChunk(piece.raw.toString("utf8"), this.#turn);
      this.#send(piece, rewritten ? Buffer.from(JSON.stringify(rewritten)) : undefined);
    }
  }

  async end(): Promise<void> {
    for (const piece of this.#splitter.end()) {
      const text = piece.raw.toString("utf8");
      if (piece.kind === "separator" || !mentionsFunctionCall(text)) {
        this.#send(piece);
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

function arrayRewriter(turn: Turn, emit: Emit): StreamRewriter {
  const inner = new GeminiArrayRewriter(turn, emit);
  return refusing(inner, turn, emit, (message) => inner.closingError(message));
}

export const geminiResponse: ResponseSide = {
  rewriteJson: (body, turn) => (isObject(body) ? rewriteCandidates(body, turn) : Promise.resolve(undefined)),
  refusalBody: geminiError,
  streamRewriter: (turn, emit, framing) =>
    framing === "sse"
      ? refusing(new GeminiSseRewriter(turn, emit), turn, emit, (message) =>
          formatEvent({ data: JSON.stringify(geminiError(message)) }, "\n"),
        )
      : arrayRewriter(turn, emit),
};
