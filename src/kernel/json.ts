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
  keys.sort();
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
