/**
 * A Map with a size cap (least recently used entry evicted first) and an expiry per entry, so the
 * in-memory state stays bounded however many keys a misbehaving agent makes up. Use it instead of a
 * hand-written "delete the first key when full".
 */
export class BoundedMap<K, V> {
  readonly maxEntries: number;
  readonly #entries = new Map<K, { value: V; expiresAt: number }>();

  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new Error(`maxEntries must be ≥ 1, got ${maxEntries}`);
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** `expiresAt` in ms since the epoch; Infinity keeps the entry until evicted. */
  set(key: K, value: V, expiresAt: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt });
    while (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next().value as K;
      this.#entries.delete(oldest);
    }
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  *entries(now: number): IterableIterator<[K, V]> {
    for (const [key, entry] of this.#entries) if (entry.expiresAt > now) yield [key, entry.value];
  }
}

/**
 * A Map that holds at most `maxEntries`: `set` makes the key the newest and drops the oldest beyond
 * the cap. For caches and session tables without expiry (BoundedMap adds expiry and recency on
 * `get`); everything else is a Map's. Use it instead of a hand-written "delete the first key when full".
 */
export class CappedMap<K, V> extends Map<K, V> {
  readonly maxEntries: number;

  constructor(maxEntries: number) {
    super();
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new Error(`maxEntries must be ≥ 1, got ${maxEntries}`);
    this.maxEntries = maxEntries;
  }

  override set(key: K, value: V): this {
    super.delete(key);
    super.set(key, value);
    while (this.size > this.maxEntries) super.delete(this.keys().next().value as K);
    return this;
  }
}

/**
 * Values derived from strings, keyed by the string itself (V8 keeps a string's hash once computed,
 * no key is built), one map per kind, bounded by the characters of the strings held. Two
 * generations: new strings go to the young one; when it holds half the characters it becomes the old
 * one (the previous old one is dropped), and a string found in the old one moves back to the young.
 * What is used again stays however many new strings pass through (clearing everything when full would
 * drop a server's descriptions just before its next listing). A string longer than `maxLength` is not
 * kept (a pasted document, a padded payload): keeping it would only cost hashing. For derivations
 * that are pure functions of the string.
 */
export class TextMemo<V> {
  readonly #kinds: number;
  readonly #maxLength: number;
  readonly #generationCharacters: number;
  #young: Map<string, V>[];
  #old: Map<string, V>[];
  #youngCharacters = 0;

  /** Defaults: strings up to 16 384 characters, 1 M characters held (about 2 MB of strings). */
  constructor(options: { kinds?: number; maxLength?: number; maxCharacters?: number } = {}) {
    this.#kinds = options.kinds ?? 1;
    this.#maxLength = options.maxLength ?? 16_384;
    this.#generationCharacters = (options.maxCharacters ?? 1_000_000) / 2;
    this.#young = this.#generation();
    this.#old = this.#generation();
  }

  #generation(): Map<string, V>[] {
    return Array.from({ length: this.#kinds }, () => new Map<string, V>());
  }

  get(text: string, kind = 0): V | undefined {
    const young = this.#young[kind]!.get(text);
    if (young !== undefined) return young;
    const old = this.#old[kind]!.get(text);
    if (old !== undefined) this.set(text, old, kind);
    return old;
  }

  set(text: string, value: V, kind = 0): void {
    if (text.length > this.#maxLength) return;
    if (this.#youngCharacters + text.length > this.#generationCharacters) {
      this.#old = this.#young;
      this.#young = this.#generation();
      this.#youngCharacters = 0;
    }
    this.#young[kind]!.set(text, value);
    this.#youngCharacters += text.length;
  }

  /** The value kept for `text`, else `derive(text)` (kept). */
  of(text: string, derive: (text: string) => V, kind = 0): V {
    const kept = this.get(text, kind);
    if (kept !== undefined) return kept;
    const value = derive(text);
    this.set(text, value, kind);
    return value;
  }
}
