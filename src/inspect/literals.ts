/**
 * Aho-Corasick over many lower-case ASCII literals, compiled to a dense transition table: one pass
 * over a text, one array read per character, tells which literals occur and where. It is the
 * prefilter that keeps the RE2 patterns (slow in pure JavaScript) off text that cannot match.
 * The few literals with other characters (rules for Japanese, Chinese, Spanish…) are looked up with
 * indexOf, only in a text that has a character outside ASCII at all.
 */
const ALPHABET = 128;

export class LiteralSet {
  readonly #delta: Int32Array;
  /** Per state: the literal ids ending there (including through failure links). */
  readonly #outputs: (readonly number[])[];
  readonly #lengths: number[];
  readonly #wordStart: boolean[];
  /** Literals with a character outside ASCII, by id. */
  readonly #wide: { id: number; literal: string }[] = [];

  /** `literals[i]` reports id `i` when found. */
  constructor(literals: readonly string[]) {
    const trie: Map<number, number>[] = [new Map()];
    const outputs: number[][] = [[]];
    literals.forEach((literal, id) => {
      if (!isAscii(literal)) {
        this.#wide.push({ id, literal });
        return;
      }
      let state = 0;
      for (let i = 0; i < literal.length; i++) {
        const code = literal.charCodeAt(i);
        let next = trie[state]!.get(code);
        if (next === undefined) {
          next = trie.length;
          trie.push(new Map());
          outputs.push([]);
          trie[state]!.set(code, next);
        }
        state = next;
      }
      outputs[state]!.push(id);
    });
    const delta = new Int32Array(trie.length * ALPHABET);
    const fail = new Int32Array(trie.length);
    const queue: number[] = [];
    for (const [code, next] of trie[0]!) {
      delta[code] = next;
      queue.push(next);
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      outputs[state]!.push(...outputs[fail[state]!]!);
      for (let code = 0; code < ALPHABET; code++) {
        const next = trie[state]!.get(code);
        if (next === undefined) delta[state * ALPHABET + code] = delta[fail[state]! * ALPHABET + code]!;
        else {
          fail[next] = delta[fail[state]! * ALPHABET + code]!;
          delta[state * ALPHABET + code] = next;
          queue.push(next);
        }
      }
    }
    this.#delta = delta;
    this.#outputs = outputs;
    this.#lengths = literals.map((literal) => literal.length);
    this.#wordStart = literals.map((literal) => isLetter(literal.charCodeAt(0)));
  }

  /**
   * Calls `found(id, end)` for every literal occurrence in text order, `end` the index of its last
   * character (ids may repeat). A literal that starts with a letter only counts at the start of a
   * word, so `ai` is not found in `email`. Characters outside ASCII restart the automaton.
   */
  scan(text: string, found: (id: number, end: number) => void): void {
    const delta = this.#delta;
    // Looked up at the first character outside ASCII, where the earliest of them can end: an ASCII
    // text costs no second pass.
    let wide: [number, number][] | undefined;
    let next = 0;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code < ALPHABET) state = delta[state * ALPHABET + code]!;
      else {
        state = 0;
        wide ??= this.#wideHits(text);
      }
      while (wide !== undefined && next < wide.length && wide[next]![1] <= i) {
        found(wide[next]![0], wide[next]![1]);
        next++;
      }
      const outputs = this.#outputs[state]!;
      for (let k = 0; k < outputs.length; k++) {
        const id = outputs[k]!;
        const start = i + 1 - this.#lengths[id]!;
        if (this.#wordStart[id] && start > 0 && isWordChar(text.charCodeAt(start - 1))) continue;
        found(id, i);
      }
    }
  }

  /** Occurrences of the non-ASCII literals as [id, end], in text order. */
  #wideHits(text: string): [number, number][] {
    if (this.#wide.length === 0) return [];
    const hits: [number, number][] = [];
    for (const { id, literal } of this.#wide) {
      for (let at = text.indexOf(literal); at >= 0; at = text.indexOf(literal, at + 1)) {
        if (this.#wordStart[id] && at > 0 && isWordChar(text.charCodeAt(at - 1))) continue;
        hits.push([id, at + literal.length - 1]);
      }
    }
    return hits.sort((a, b) => a[1] - b[1]);
  }
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= ALPHABET) return false;
  return true;
}

function isWordChar(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x5f;
}

function isLetter(code: number): boolean {
  return code >= 0x61 && code <= 0x7a;
}
