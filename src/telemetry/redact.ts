/**
 * Secret shapes removed from recorded arguments and tool results before they reach the audit trail.
 * Patterns are anchored on distinctive prefixes so they stay linear on any input.
 */
const secretPatterns: RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\b(AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g,
  /\bsk-(ant-)?[A-Za-z0-9_-]{20,}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g,
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{16,}/gi,
];

const secretKeyNames =
  /^(password|passwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|authorization|client[_-]?secret)$/i;

export function redactText(text: string): string {
  let result = text;
  for (const pattern of secretPatterns) result = result.replace(pattern, "[REDACTED]");
  return result;
}

/** Deep copy with secret-named keys and secret-shaped strings replaced. */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactText(value);
  if (depth > 32 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      secretKeyNames.test(key) && item !== null && item !== "" ? "[REDACTED]" : redactValue(item, depth + 1);
  }
  return out;
}

/** Redacted and capped for the audit trail: small values stay structured, large ones become a truncated string. */
export function recordable(value: unknown, maxBytes = 4096): unknown {
  const redacted = redactValue(value);
  const text = typeof redacted === "string" ? redacted : JSON.stringify(redacted);
  if (text === undefined || Buffer.byteLength(text) <= maxBytes) return redacted;
  return `${Buffer.from(text).subarray(0, maxBytes).toString("utf8")}…[truncated ${Buffer.byteLength(text) - maxBytes} bytes]`;
}
