import { createHash } from "node:crypto";
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

/** JSON with object keys sorted at every level; `undefined` members are dropped as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  const sorted = sortedCopy(value);
  // Integer-like keys are enumerated numerically by JavaScript whatever their insertion order, so
  // an object with such keys cannot carry the sorted order into JSON.stringify.
  return sorted === undefined ? slowCanonicalJson(value) : (JSON.stringify(sorted) ?? "null");
}

function isIndexLike(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 0x30 && first <= 0x39 && String(Number(key) >>> 0) === key;
}

/** A copy with keys inserted in sorted order; undefined when an object has an index-like key. */
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
  for (let i = 0; i < keys.length; i++) if (isIndexLike(keys[i]!)) return undefined;
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

/** The pinned part of a definition: other members (`_meta`, `icons`, …) never change the hash. */
export function pinnedView(tool: ToolDefinition): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const field of PINNED_FIELDS) if (tool[field] !== undefined) view[field] = tool[field];
  return view;
}

/** SHA-256 (hex) of the canonical JSON of name, title, description, inputSchema, outputSchema, annotations. */
export function toolHash(tool: ToolDefinition): string {
  return createHash("sha256")
    .update(canonicalJson(pinnedView(tool)))
    .digest("hex");
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
