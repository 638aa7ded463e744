const unitMs: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const durationPattern = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const partPattern = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;

/** A Kubernetes/Go duration string as the CRD allows it ("10m", "1h30m", "500ms") in milliseconds. */
export function parseDuration(text: string): number {
  if (!durationPattern.test(text))
    throw new Error(`invalid duration '${text}' (expected e.g. 30s, 10m, 1h30m)`);
  let total = 0;
  for (const [, amount, unit] of text.matchAll(partPattern)) total += Number(amount) * unitMs[unit!]!;
  return total;
}
