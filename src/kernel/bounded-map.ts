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
