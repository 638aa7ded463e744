import type { Decided } from "./decide.ts";
import type { Turn } from "./dialect.ts";

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
  /** The argument text was not JSON (cut short or malformed). */
  unreadable: boolean;
}

function parseArguments(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
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
    const parsed = this.#freeText ? { ok: true as const, value: { input: text } } : parseArguments(text);
    const detail = truncated ? { ...this.#detail, truncated: true } : this.#detail;
    const seen = parsed.ok ? parsed.value : text;
    if (this.#decided) {
      this.#decided.record(seen, truncated ? { truncated: true } : undefined);
      return {
        allowed: !this.#decided.blocked,
        message: this.#decided.message,
        judged: seen,
        unreadable: !parsed.ok,
      };
    }
    const decided = await this.#turn.decide(this.name, seen, {
      detail,
      ...(parsed.ok ? {} : { argumentsUnreadable: true }),
    });
    return { allowed: !decided.blocked, message: decided.message, judged: seen, unreadable: !parsed.ok };
  }
}
