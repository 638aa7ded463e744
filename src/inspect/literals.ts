/**
 * Aho-Corasick over many lower-case ASCII literals, compiled to a dense transition table: one pass
 * over a text, one array read per character, tells which literals occur and where. It is the
 * prefilter that keeps the RE2 patterns (slow in pure JavaScript) off text that cannot match.
 * The few literals with other characters (rules for Japanese, Chinese, Spanish…) are looked up with
 * indexOf, only in a text that has a character outside ASCII at all.
 */
const ALPHABET = 128;

export class LiteralSet {
  readonly #delta: Uint16Array | Int32Array;
  /** ASCII character → its class in the automaton (0: in no literal). */
  readonly #classOf: Uint8Array;
  readonly #classes: number;
  /**
   * Per state: the literal ids ending there (including through failure links), as
   * `#outputIds[#outputStart[state]]` up to `#outputStart[state + 1]`.
   */
  readonly #outputStart: Int32Array;
  readonly #outputIds: Int32Array;
  readonly #lengths: Int32Array;
  /** 1 for a literal that starts with a letter (counted only at the start of a word). */
  readonly #wordStart: Uint8Array;
  /**
   * Literals with a character outside ASCII, by their first such character: a text is searched only
   * for the literals whose character it holds (most prose outside ASCII is a dash or a curly quote).
   */
  readonly #wide = new Map<number, { id: number; literal: string }[]>();

  /** `literals[i]` reports id `i` when found. */
  constructor(literals: readonly string[]) {
    // The automaton runs on character classes: each ASCII character of a literal is its own class,
    // every other ASCII character class 0. A row per state is then a few dozen entries instead of
    // 128, and the table (one per state and class) stays small enough for the CPU's caches.
    const classOf = new Uint8Array(ALPHABET);
    let classes = 1;
    for (const literal of literals) {
      if (firstWide(literal) >= 0) continue;
      for (let i = 0; i < literal.length; i++) {
        const code = literal.charCodeAt(i);
        if (classOf[code] === 0) classOf[code] = classes++;
      }
    }
    const trie: Map<number, number>[] = [new Map()];
    const outputs: number[][] = [[]];
    literals.forEach((literal, id) => {
      const anchor = firstWide(literal);
      if (anchor >= 0) {
        const list = this.#wide.get(anchor);
        if (list) list.push({ id, literal });
        else this.#wide.set(anchor, [{ id, literal }]);
        return;
      }
      let state = 0;
      for (let i = 0; i < literal.length; i++) {
        const symbol = classOf[literal.charCodeAt(i)]!;
        let next = trie[state]!.get(symbol);
        if (next === undefined) {
          next = trie.length;
          trie.push(new Map());
          outputs.push([]);
          trie[state]!.set(symbol, next);
        }
        state = next;
      }
      outputs[state]!.push(id);
    });
    const delta = new Int32Array(trie.length * classes);
    const fail = new Int32Array(trie.length);
    const queue: number[] = [];
    for (const [symbol, next] of trie[0]!) {
      delta[symbol] = next;
      queue.push(next);
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      outputs[state]!.push(...outputs[fail[state]!]!);
      for (let symbol = 0; symbol < classes; symbol++) {
        const next = trie[state]!.get(symbol);
        if (next === undefined) delta[state * classes + symbol] = delta[fail[state]! * classes + symbol]!;
        else {
          fail[next] = delta[fail[state]! * classes + symbol]!;
          delta[state * classes + symbol] = next;
          queue.push(next);
        }
      }
    }
    // Each entry is the next state times two, plus one when that state has outputs: the scan tests
    // a bit instead of reading a second table on every character. 16 bits per entry while they fit.
    const table = trie.length < 0x8000 ? new Uint16Array(delta.length) : new Int32Array(delta.length);
    for (let i = 0; i < delta.length; i++)
      table[i] = delta[i]! * 2 + (outputs[delta[i]!]!.length > 0 ? 1 : 0);
    this.#delta = table;
    this.#classOf = classOf;
    this.#classes = classes;
    this.#outputStart = new Int32Array(outputs.length + 1);
    outputs.forEach((ids, state) => {
      this.#outputStart[state + 1] = this.#outputStart[state]! + ids.length;
    });
    this.#outputIds = Int32Array.from(outputs.flat());
    this.#lengths = Int32Array.from(literals, (literal) => literal.length);
    this.#wordStart = Uint8Array.from(literals, (literal) => (isLetter(literal.charCodeAt(0)) ? 1 : 0));
  }

  /**
   * Calls `found(id, end)` for every literal occurrence in text order, `end` the index of its last
   * character (ids may repeat). A literal that starts with a letter only counts at the start of a
   * word, so `ai` is not found in `email`. Characters outside ASCII restart the automaton.
   */
  scan(text: string, found: (id: number, end: number) => void): void {
    // The hot loop reads locals only: one table read per character, the outputs' range on a hit.
    const delta = this.#delta;
    const classOf = this.#classOf;
    const classes = this.#classes;
    const outputStart = this.#outputStart;
    const outputIds = this.#outputIds;
    const lengths = this.#lengths;
    const wordStart = this.#wordStart;
    // Looked up at the first character outside ASCII, where the earliest of them can end: an ASCII
    // text costs no second pass.
    let wide: [number, number][] | undefined;
    let next = 0;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      let entry = 0;
      if (code < ALPHABET) entry = delta[state * classes + classOf[code]!]!;
      else wide ??= this.#wideHits(text);
      state = entry >>> 1;
      if (wide !== undefined)
        while (next < wide.length && wide[next]![1] <= i) {
          found(wide[next]![0], wide[next]![1]);
          next++;
        }
      if ((entry & 1) === 0) continue;
      const last = outputStart[state + 1]!;
      for (let k = outputStart[state]!; k < last; k++) {
        const id = outputIds[k]!;
        const start = i + 1 - lengths[id]!;
        if (wordStart[id] === 1 && start > 0 && isWordChar(text.charCodeAt(start - 1))) continue;
        found(id, i);
      }
    }
  }

  /** Occurrences of the non-ASCII literals as [id, end], in text order (by id where ends tie). */
  #wideHits(text: string): [number, number][] {
    const hits: [number, number][] = [];
    if (this.#wide.size === 0) return hits;
    const seen = new Set<number>();
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code < ALPHABET || seen.has(code)) continue;
      seen.add(code);
      for (const { id, literal } of this.#wide.get(code) ?? []) {
        for (let at = text.indexOf(literal); at >= 0; at = text.indexOf(literal, at + 1)) {
          if (this.#wordStart[id] && at > 0 && isWordChar(text.charCodeAt(at - 1))) continue;
          hits.push([id, at + literal.length - 1]);
        }
      }
    }
    return hits.sort((a, b) => a[1] - b[1] || a[0] - b[0]);
  }
}

/** The first UTF-16 unit of `text` outside ASCII, or -1. */
function firstWide(text: string): number {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= ALPHABET) return text.charCodeAt(i);
  return -1;
}

function isWordChar(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x5f;
}

function isLetter(code: number): boolean {
  return code >= 0x61 && code <= 0x7a;
}
