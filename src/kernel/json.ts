/**
 * The one canonical JSON of the code base: the bundle's hash (controller and sidecar must agree on it)
 * and the pin of a tool definition are both computed from it.
 */

/**
 * JSON with object keys sorted at every level, so equal values give equal text whatever their key
 * order; `undefined` and function members are dropped as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  return canonicalJsonOf(value).text;
}

/**
 * canonicalJson, and whether it came the fast way (a sorted copy given to JSON.stringify) rather than
 * built by hand: integer-like keys are enumerated numerically by JavaScript whatever their insertion
 * order, so an object with such keys (or `__proto__`) cannot carry the sorted order into JSON.stringify.
 */
export function canonicalJsonOf(value: unknown): { text: string; viaCopy: boolean } {
  const sorted = sortedCopy(value);
  return sorted === undefined
    ? { text: slowCanonicalJson(value), viaCopy: false }
    : { text: JSON.stringify(sorted) ?? "null", viaCopy: true };
}

function isIndexLike(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 0x30 && first <= 0x39 && String(Number(key) >>> 0) === key;
}

/** A copy with keys inserted in sorted order; undefined when an object has an index-like or `__proto__` key. */
function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = sortedCopy(value[i]);
      if (item === undefined && value[i] !== undefined) return undefined;
      out[i] = item;
    }
    return out;
  }
  const keys = Object.keys(value);
  // Assigning a "__proto__" key would set the copy's prototype instead of adding a member (and
  // a null-prototype copy is a slow dictionary object): such values take the slow path.
  for (let i = 0; i < keys.length; i++)
    if (isIndexLike(keys[i]!) || keys[i] === "__proto__") return undefined;
  sortKeys(keys);
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined || typeof member === "function") continue;
    const copy = sortedCopy(member);
    if (copy === undefined) return undefined;
    out[key] = copy;
  }
  return out;
}

/**
 * Sorts an object's keys in place as Array.prototype.sort would: by insertion when there are few (no
 * allocation: the engine's sort copies its input into a work array, and canonical JSON sorts every
 * object of every definition), by the engine's sort otherwise.
 */
function sortKeys(keys: string[]): void {
  if (keys.length > 32) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
}

function slowCanonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    return text === undefined ? "null" : text;
  }
  if (Array.isArray(value)) return `[${value.map((item) => slowCanonicalJson(item)).join(",")}]`;
  const parts: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined || typeof member === "function") continue;
    parts.push(`${JSON.stringify(key)}:${slowCanonicalJson(member)}`);
  }
  return `{${parts.join(",")}}`;
}

/** Deep equality of parsed JSON, key order included; cheaper than comparing serialisations. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (let i = 0; i < keysA.length; i++) {
    const key = keysA[i]!;
    if (key !== keysB[i]) return false;
    if (!sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

const OBJECT_START = Symbol("object");
const OBJECT_END = Symbol("end");
const ARRAY_START = Symbol("array");

/**
 * A parsed JSON value as a flat token list in the order it arrived (keys, leaf values, structure
 * marks). `matchJsonTokens` walks a later value against it sequentially: no serialising, hashing,
 * keyed lookups or allocation, which makes "is this the same answer as last time" cheap (2–3×
 * faster than sameJson on a 750 KB listing). Order-sensitive, like sameJson.
 */
export function pushJsonTokens(value: unknown, out: unknown[]): void {
  if (value === null || typeof value !== "object") {
    out.push(value);
    return;
  }
  if (Array.isArray(value)) {
    out.push(ARRAY_START, value.length);
    for (let i = 0; i < value.length; i++) pushJsonTokens(value[i], out);
    return;
  }
  out.push(OBJECT_START);
  for (const key in value) {
    out.push(key);
    pushJsonTokens((value as Record<string, unknown>)[key], out);
  }
  out.push(OBJECT_END);
}

/** Whether `value` produces the tokens from `cursor.at` on (advancing it); see pushJsonTokens. */
export function matchJsonTokens(value: unknown, tokens: readonly unknown[], cursor: { at: number }): boolean {
  if (value === null || typeof value !== "object") return value === tokens[cursor.at++];
  if (Array.isArray(value)) {
    if (tokens[cursor.at++] !== ARRAY_START || tokens[cursor.at++] !== value.length) return false;
    for (let i = 0; i < value.length; i++) if (!matchJsonTokens(value[i], tokens, cursor)) return false;
    return true;
  }
  if (tokens[cursor.at++] !== OBJECT_START) return false;
  for (const key in value) {
    if (tokens[cursor.at++] !== key) return false;
    if (!matchJsonTokens((value as Record<string, unknown>)[key], tokens, cursor)) return false;
  }
  return tokens[cursor.at++] === OBJECT_END;
}

/** The tokens of one value (pushJsonTokens). */
export function jsonTokens(value: unknown): unknown[] {
  const out: unknown[] = [];
  pushJsonTokens(value, out);
  return out;
}

/** Whether `value` produces exactly `tokens`. */
export function sameAsJsonTokens(value: unknown, tokens: readonly unknown[]): boolean {
  const cursor = { at: 0 };
  return matchJsonTokens(value, tokens, cursor) && cursor.at === tokens.length;
}
