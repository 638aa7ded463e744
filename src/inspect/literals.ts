/**
 * Aho-Corasick over many lower-case literals: one pass over a text tells which literals occur. It is
 * the prefilter that keeps the RE2 patterns (slow in pure JavaScript) off text that cannot match.
 */
export class LiteralSet {
  readonly #goto: Map<number, number>[] = [new Map()];
  readonly #fail: number[] = [0];
  readonly #outputs: number[][] = [[]];
  readonly #lengths: number[];
  readonly #wordStart: boolean[];

  /** `literals[i]` reports id `i` when found. */
  constructor(literals: readonly string[]) {
    this.#lengths = literals.map((literal) => literal.length);
    this.#wordStart = literals.map((literal) => isLetter(literal.charCodeAt(0)));
    literals.forEach((literal, id) => {
      let state = 0;
      for (let i = 0; i < literal.length; i++) {
        const code = literal.charCodeAt(i);
        let next = this.#goto[state]!.get(code);
        if (next === undefined) {
          next = this.#goto.length;
          this.#goto.push(new Map());
          this.#fail.push(0);
          this.#outputs.push([]);
          this.#goto[state]!.set(code, next);
        }
        state = next;
      }
      this.#outputs[state]!.push(id);
    });
    const queue: number[] = [];
    for (const next of this.#goto[0]!.values()) queue.push(next);
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      for (const [code, next] of this.#goto[state]!) {
        queue.push(next);
        let fallback = this.#fail[state]!;
        while (fallback > 0 && !this.#goto[fallback]!.has(code)) fallback = this.#fail[fallback]!;
        const target = this.#goto[fallback]!.get(code);
        this.#fail[next] = target !== undefined && target !== next ? target : 0;
        this.#outputs[next]!.push(...this.#outputs[this.#fail[next]!]!);
      }
    }
  }

  /**
   * Calls `found(id)` for every literal occurrence (ids may repeat). A literal that starts with a
   * letter only counts at the start of a word, so `ai` is not found in `email`.
   */
  scan(text: string, found: (id: number) => void): void {
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      let next = this.#goto[state]!.get(code);
      while (next === undefined && state > 0) {
        state = this.#fail[state]!;
        next = this.#goto[state]!.get(code);
      }
      state = next ?? 0;
      const outputs = this.#outputs[state]!;
      for (let k = 0; k < outputs.length; k++) {
        const id = outputs[k]!;
        const start = i + 1 - this.#lengths[id]!;
        if (this.#wordStart[id] && start > 0 && isWordChar(text.charCodeAt(start - 1))) continue;
        found(id);
      }
    }
  }
}

function isWordChar(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x5f;
}

function isLetter(code: number): boolean {
  return code >= 0x61 && code <= 0x7a;
}
