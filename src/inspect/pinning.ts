import { hash as digest } from "node:crypto";
import { TextMemo } from "../kernel/bounded-map.ts";
import { canonicalJson, canonicalJsonOf, matchJsonTokens, pushJsonTokens } from "../kernel/json.ts";
import type { ToolDefinition } from "./types.ts";

/** The fields a pin covers: hashing the description alone would miss schema changes. */
export const PINNED_FIELDS = [
  "name",
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
] as const;
export type PinnedField = (typeof PINNED_FIELDS)[number];

/** The pinned part of a definition: other members (`_meta`, `icons`, …) never change the hash. */
export function pinnedView(tool: ToolDefinition): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const field of PINNED_FIELDS) if (tool[field] !== undefined) view[field] = tool[field];
  return view;
}

/** SHA-256 (hex) of the canonical JSON of name, title, description, inputSchema, outputSchema, annotations. */
export function toolHash(tool: ToolDefinition): string {
  return digest("sha256", canonicalJson(pinnedView(tool)), "hex");
}

/**
 * A definition's pin hash; whether it can be answered from a result cache (not when it has
 * index-like or `__proto__` keys: its canonical JSON is built by hand; rare, and never worth the
 * risk); and its input schema's JSON as received, the key of what is derived from that schema alone.
 */
export interface DefinitionHash {
  hash: string;
  cacheable: boolean;
  /** JSON.stringify of an object-valued inputSchema; absent when the definition was serialised the general way. */
  receivedSchema?: string;
}

export function hashForCache(tool: ToolDefinition): DefinitionHash {
  const pinned = pinnedCanonicalJson(tool);
  const { text, viaCopy } = pinned ?? canonicalJsonOf(pinnedView(tool));
  // The one-shot hash: a quarter cheaper than createHash for a definition's few kilobytes.
  return { hash: digest("sha256", text, "hex"), cacheable: viaCopy, receivedSchema: pinned?.receivedSchema };
}

/** PINNED_FIELDS in the order canonical JSON writes them, each with its key as written there. */
const SORTED_PINNED_FIELDS = [...PINNED_FIELDS].sort().map((field) => [field, `"${field}":`] as const);

/**
 * The canonical JSON of an object-valued pinned field, kept per its JSON as received: servers
 * repeat their schemas, and a policy compiled anew or a renamed copy of a tool meets them again.
 * Serialising a parsed value as received is native and allocates only its text, where sorting it
 * copies every object. The two texts agree for every JSON value; a `toJSON` method (which no parsed
 * value has) would make them differ, and pinned fields are parsed JSON.
 */
const CANONICAL_BY_RECEIVED = new TextMemo<{ text: string; viaCopy: boolean }>();

/**
 * canonicalJsonOf(pinnedView(tool)) assembled field by field, object-valued fields from
 * CANONICAL_BY_RECEIVED; undefined for a field that is not a JSON value (or cannot be serialised),
 * which the caller then serialises the general way.
 */
function pinnedCanonicalJson(
  tool: ToolDefinition,
): { text: string; viaCopy: boolean; receivedSchema?: string } | undefined {
  let text = "{";
  let viaCopy = true;
  let receivedSchema: string | undefined;
  for (const [field, key] of SORTED_PINNED_FIELDS) {
    const value: unknown = tool[field];
    if (value === undefined) continue;
    let json: string;
    if (typeof value === "object" && value !== null) {
      let received: string;
      try {
        received = JSON.stringify(value);
      } catch {
        return undefined;
      }
      if (field === "inputSchema") receivedSchema = received;
      const canonical = CANONICAL_BY_RECEIVED.of(received, () => canonicalJsonOf(value));
      json = canonical.text;
      viaCopy &&= canonical.viaCopy;
    } else if (
      typeof value === "string" ||
      typeof value === "number" ||
      typeof value === "boolean" ||
      value === null
    )
      json = JSON.stringify(value);
    else return undefined;
    text += text.length === 1 ? key + json : `,${key}${json}`;
  }
  return { text: `${text}}`, viaCopy, receivedSchema };
}

/**
 * The pinned fields as a flat token list in the order they arrived (kernel/json.ts's
 * pushJsonTokens). `sameTokens` walks a later definition against it sequentially: no serialising,
 * hashing or keyed lookups, which makes an unchanged listing cheap. Order-sensitive, so stricter
 * than JSON equality: a reordered definition is merely inspected again.
 */
export function definitionTokens(tool: ToolDefinition): unknown[] {
  const out: unknown[] = [];
  for (const field of PINNED_FIELDS) pushJsonTokens(tool[field], out);
  return out;
}

/** Whether a definition produces exactly these tokens (see definitionTokens). */
export function sameTokens(tool: ToolDefinition, tokens: readonly unknown[]): boolean {
  const cursor = { at: 0 };
  for (const field of PINNED_FIELDS) if (!matchJsonTokens(tool[field], tokens, cursor)) return false;
  return cursor.at === tokens.length;
}

export interface FieldChange {
  /** JSON path, e.g. `description` or `inputSchema.properties.path.description`. */
  field: string;
  change: "added" | "removed" | "modified";
  before?: unknown;
  after?: unknown;
}

const MAX_VALUE_CHARS = 512;
const MAX_CHANGES = 64;

function isIdentifier(key: string): boolean {
  if (key.length === 0) return false;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    const letter =
      (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === 0x24;
    const digitOrDash = (code >= 0x30 && code <= 0x39) || code === 0x2d;
    if (!(letter || (i > 0 && digitOrDash))) return false;
  }
  return true;
}

/** A JSON path segment: `.key` for identifiers, `["key"]` otherwise. */
export function pathJoin(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  if (!isIdentifier(key)) return `${base}[${JSON.stringify(key)}]`;
  return base ? `${base}.${key}` : key;
}

function capped(value: unknown): unknown {
  if (typeof value === "string")
    return value.length > MAX_VALUE_CHARS ? `${value.slice(0, MAX_VALUE_CHARS)}…` : value;
  if (value !== null && typeof value === "object") {
    const text = canonicalJson(value);
    return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : value;
  }
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function diffValues(path: string, before: unknown, after: unknown, changes: FieldChange[]): void {
  if (changes.length >= MAX_CHANGES) return;
  if (before === undefined && after === undefined) return;
  if (before === undefined) {
    changes.push({ field: path, change: "added", after: capped(after) });
    return;
  }
  if (after === undefined) {
    changes.push({ field: path, change: "removed", before: capped(before) });
    return;
  }
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) diffValues(pathJoin(path, key), before[key], after[key], changes);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    for (let i = 0; i < before.length; i++) diffValues(pathJoin(path, i), before[i], after[i], changes);
    return;
  }
  if (canonicalJson(before) !== canonicalJson(after))
    changes.push({ field: path, change: "modified", before: capped(before), after: capped(after) });
}

/**
 * Leaf-level differences between two definitions of one tool (what `mcp_tool_changed` reports),
 * in path order, values capped at 512 characters, at most 64 entries.
 */
export function diffToolDefinitions(before: ToolDefinition, after: ToolDefinition): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of PINNED_FIELDS) diffValues(field, before[field], after[field], changes);
  return changes;
}
