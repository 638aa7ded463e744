/** Narrowing helpers for JSON read from traffic: never trust a shape, never throw on a surprise. */
export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function objectAt(value: unknown, key: string): JsonObject | undefined {
  if (!isObject(value)) return undefined;
  const item = value[key];
  return isObject(item) ? item : undefined;
}

export function arrayAt(value: unknown, key: string): unknown[] | undefined {
  if (!isObject(value)) return undefined;
  const item = value[key];
  return Array.isArray(item) ? item : undefined;
}

export function stringAt(value: unknown, key: string): string | undefined {
  if (!isObject(value)) return undefined;
  const item = value[key];
  return typeof item === "string" ? item : undefined;
}

export function numberAt(value: unknown, key: string): number | undefined {
  if (!isObject(value)) return undefined;
  const item = value[key];
  return typeof item === "number" ? item : undefined;
}

/** JSON.parse that answers undefined instead of throwing. */
export function tryParse(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
