/**
 * The rules every LLM response is read by before a dialect judges it: bounds and one strict JSON
 * reading. A response broken against them is refused with a ResponseRefused whose message names the
 * problem or the limit (safe to show: no internals).
 */
import { ResponseRefused } from "../engine/refusal.ts";

/** Bounds on one LLM response (bytes after decompression). */
export interface LlmLimits {
  /** The whole response body. */
  maxResponseBytes: number;
  /** One SSE event, one element of a JSON-array stream, or a whole JSON body. */
  maxEventBytes: number;
  /** Bytes a dialect holds back while a tool call waits for its decision. */
  maxHeldBytes: number;
  /** Nesting of JSON objects and arrays. */
  maxJsonDepth: number;
}

/**
 * Sized for real answers: Gemini image models send several MiB of base64 in one event, a file-writing
 * tool call can carry megabytes of arguments; an answer that goes past these is refused, not relayed.
 */
export const defaultLlmLimits: LlmLimits = {
  maxResponseBytes: 64 * 1024 * 1024,
  maxEventBytes: 16 * 1024 * 1024,
  maxHeldBytes: 8 * 1024 * 1024,
  maxJsonDepth: 128,
};

const BOM = 0xfeff;
const quote = 0x22;
const backslash = 0x5c;
const openBrace = 0x7b;
const openBracket = 0x5b;
const closeBrace = 0x7d;
const closeBracket = 0x5d;

/** Throws when `text` nests objects/arrays deeper than `maxDepth` (JSON.stringify and walkers recurse). */
export function checkJsonDepth(text: string, maxDepth: number): void {
  // Nesting deeper than maxDepth takes at least 2 * (maxDepth + 1) characters.
  if (text.length < 2 * (maxDepth + 1)) return;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === backslash) i++;
      else if (code === quote) inString = false;
    } else if (code === quote) inString = true;
    else if (code === openBrace || code === openBracket) {
      if (++depth > maxDepth) {
        throw new ResponseRefused(`JSON nested deeper than the limit of ${maxDepth} levels`, "json depth");
      }
    } else if (code === closeBrace || code === closeBracket) depth--;
  }
}

/**
 * Reads a JSON document the way `response.json()` does (one leading BOM dropped), within the depth
 * limit; throws a ResponseRefused naming `what` when it is not JSON.
 */
export function readJson(text: string, maxDepth: number, what: string): unknown {
  const body = text.charCodeAt(0) === BOM ? text.slice(1) : text;
  checkJsonDepth(body, maxDepth);
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw new ResponseRefused(`${what} is not JSON`, "not json");
  }
}

const limitNames: Record<string, keyof LlmLimits> = {
  response: "maxResponseBytes",
  event: "maxEventBytes",
  held: "maxHeldBytes",
  depth: "maxJsonDepth",
};

const units: Record<string, number> = { "": 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** Bounds set from the command line: `NAME=VALUE` or `DIALECT.NAME=VALUE` (see `llmLimitUsage`). */
export interface LlmLimitSettings {
  limits: Partial<LlmLimits>;
  byDialect: Record<string, Partial<LlmLimits>>;
}

export const llmLimitUsage = `--llm-limit [DIALECT.]NAME=VALUE: bounds on LLM responses, NAME one of response (whole body
after decompression, default 64MiB), event (one SSE event, array element or JSON body, 16MiB), held
(a tool call held for its decision, 8MiB), depth (JSON nesting, 128); sizes take B, KiB, MiB or GiB;
DIALECT (anthropic-messages, openai-chat, openai-responses, gemini) sets it for one dialect only.`;

/** Parses `--llm-limit` values; throws an Error whose message names the bad value. */
export function parseLlmLimits(values: readonly string[]): LlmLimitSettings {
  const settings: LlmLimitSettings = { limits: {}, byDialect: {} };
  for (const value of values) {
    const match = /^(?:([a-z-]+)\.)?([a-z]+)=(\d+)\s*([KMG]iB|B)?$/i.exec(value.trim());
    const key = match ? limitNames[match[2]!.toLowerCase()] : undefined;
    if (!match || !key) {
      throw new Error(
        `expected [DIALECT.]NAME=VALUE with NAME one of response, event, held, depth; got '${value}'`,
      );
    }
    const unit = (match[4] ?? "").toLowerCase();
    if (key === "maxJsonDepth" && unit !== "") throw new Error(`depth is a count, not a size: '${value}'`);
    const amount = Number(match[3]) * units[unit]!;
    if (!Number.isSafeInteger(amount) || amount < 1) throw new Error(`not a positive size: '${value}'`);
    const dialect = match[1];
    if (dialect === undefined) settings.limits[key] = amount;
    else settings.byDialect[dialect] = { ...settings.byDialect[dialect], [key]: amount };
  }
  return settings;
}
