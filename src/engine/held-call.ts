import type { Decided } from "./decide.ts";
import type { Turn } from "./dialect.ts";
import { isObject, tryParse } from "./json-values.ts";

/**
 * One streamed tool call under judgement, shared by the dialects whose calls arrive in pieces.
 * At its start the name alone may settle it (`preview`): then it is decided at once and its bytes
 * flow ("pass") or are swallowed ("drop"); otherwise they are held until the arguments are complete.
 */
export type HeldMode = "hold" | "pass" | "drop";

export interface HeldOutcome {
  allowed: boolean;
  message: string;
  /** The arguments as judged (parsed JSON; `{input: text}` for free-form input; the text if unparsable). */
  judged: unknown;
  /** The arguments were not a JSON object (cut short, malformed, another JSON type). */
  unreadable: boolean;
}

/** Arguments as the policy reads them, with whether a rule that needs them can read them. */
export interface ReadArguments {
  value: unknown;
  /** Not a JSON object (cut short, malformed, another JSON type): denied whenever a rule needs them. */
  unreadable: boolean;
}

/** Argument text (JSON): empty means `{}`; unparsable text is judged as itself, unreadable. */
export function readArguments(text: string, freeText = false): ReadArguments {
  if (freeText) return { value: { input: text }, unreadable: false };
  if (text.trim() === "") return { value: {}, unreadable: false };
  const value = tryParse(text);
  return value === undefined ? { value: text, unreadable: true } : objectArguments(value);
}

/** Arguments that arrive as JSON already (Anthropic `input`, Gemini `args`): absent means `{}`. */
export function objectArguments(value: unknown): ReadArguments {
  return value === undefined ? { value: {}, unreadable: false } : { value, unreadable: !isObject(value) };
}

export class HeldCall {
  readonly name: string;
  readonly mode: HeldMode;
  readonly #turn: Turn;
  readonly #decided: Decided | undefined;
  readonly #detail: Record<string, unknown>;
  /** Free-form input (custom tools): recorded and judged as `{input: text}`, never parsed as JSON. */
  readonly #freeText: boolean;
  #argumentText = "";

  private constructor(
    turn: Turn,
    name: string,
    detail: Record<string, unknown>,
    freeText: boolean,
    decided?: Decided,
  ) {
    this.#turn = turn;
    this.name = name;
    this.#detail = detail;
    this.#freeText = freeText;
    this.#decided = decided;
    this.mode = decided === undefined ? "hold" : decided.blocked ? "drop" : "pass";
  }

  static async start(
    turn: Turn,
    name: string,
    detail: Record<string, unknown>,
    options: { freeText?: boolean } = {},
  ): Promise<HeldCall> {
    const freeText = options.freeText ?? false;
    if (turn.preview(name) === "conditional") return new HeldCall(turn, name, detail, freeText);
    const decided = await turn.decide(name, undefined, { deferRecord: true, detail });
    return new HeldCall(turn, name, detail, freeText, decided);
  }

  /** The decision made at the start, if any (for the replacement text of a dropped call). */
  get earlyMessage(): string {
    return this.#decided?.message ?? "";
  }

  appendArguments(fragment: string): void {
    this.#argumentText += fragment;
  }

  get argumentText(): string {
    return this.#argumentText;
  }

  /**
   * The call is complete (or the stream ended inside it: `truncated`). `whole` replaces the streamed
   * argument text when the format also delivers the complete arguments.
   */
  async finish(truncated: boolean, whole?: string): Promise<HeldOutcome> {
    const text = whole ?? this.#argumentText;
    const parsed = readArguments(text, this.#freeText);
    const detail = truncated ? { ...this.#detail, truncated: true } : this.#detail;
    const seen = parsed.value;
    if (this.#decided) {
      this.#decided.record(seen, truncated ? { truncated: true } : undefined);
      return {
        allowed: !this.#decided.blocked,
        message: this.#decided.message,
        judged: seen,
        unreadable: parsed.unreadable,
      };
    }
    const decided = await this.#turn.decide(this.name, seen, {
      detail,
      ...(parsed.unreadable ? { argumentsUnreadable: true } : {}),
    });
    return {
      allowed: !decided.blocked,
      message: decided.message,
      judged: seen,
      unreadable: parsed.unreadable,
    };
  }
}
