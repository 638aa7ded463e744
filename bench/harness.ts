/** Small timing helpers shared by the bench files: warm up, then report per-operation time. */
export interface Measurement {
  name: string;
  nsPerOp: number;
  opsPerSec: number;
}

export function measure(name: string, fn: () => unknown, iterations = 200_000, rounds = 5): Measurement {
  for (let i = 0; i < Math.min(iterations, 20_000); i++) fn();
  const perRound: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn();
    perRound.push(Number(process.hrtime.bigint() - start) / iterations);
  }
  perRound.sort((a, b) => a - b);
  const nsPerOp = perRound[Math.floor(rounds / 2)]!;
  return { name, nsPerOp, opsPerSec: 1e9 / nsPerOp };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function table(headers: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [line(headers), line(headers.map(() => "---")), ...rows.map(line)].join("\n");
}

export function goal(met: boolean): string {
  return met ? "met" : "NOT met";
}
