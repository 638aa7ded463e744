const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Kubernetes-style duration ("30s", "1m30s", "250ms", "1.5h") to milliseconds. */
export function parseDuration(text: string): number {
  const part = /([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let match = part.exec(text); match; match = part.exec(text)) {
    total += Number(match[1]) * units[match[2]!]!;
    consumed = part.lastIndex;
  }
  if (text === "" || consumed !== text.length) {
    throw new Error(`invalid duration '${text}': expected e.g. 30s, 1m30s, 250ms`);
  }
  return Math.round(total);
}
