/**
 * Durations as the CRD writes them (`maxStaleness`, `crossServer.*.window`) and the CLI takes them:
 * the CRD's pattern `^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$` read with Kubernetes (Go time.ParseDuration)
 * semantics: parts add up exactly, nothing is rounded to the millisecond ("1.5ms" is 1.5 ms), and a
 * total beyond Go's longest duration (2^63 − 1 ns, about 106,751 days) is refused.
 */
export const durationPattern = /^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$/;

const part = /([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)/g;
const unitMs: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
/** time.Duration's maximum, in milliseconds. */
export const maxDurationMs = 9_223_372_036_854.775;

export class DurationError extends Error {}

/** "30s", "1h30m", "250ms", "1.5h" → milliseconds. */
export function parseDuration(text: string): number {
  if (!durationPattern.test(text)) {
    throw new DurationError(`invalid duration '${text}': expected e.g. 30s, 1m30s, 250ms, 1.5h`);
  }
  let total = 0;
  for (const [, amount, unit] of text.matchAll(part)) total += Number(amount) * unitMs[unit!]!;
  if (total > maxDurationMs) {
    throw new DurationError(
      `duration '${text}' is longer than the longest Kubernetes duration (about 106,751 days)`,
    );
  }
  return total;
}
