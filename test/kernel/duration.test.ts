import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DurationError, durationPattern, maxDurationMs, parseDuration } from "../../src/kernel/duration.ts";
import { crdPath } from "../../src/policy/crd.ts";

describe("parseDuration (the CRD's duration pattern, Kubernetes semantics)", () => {
  it.each([
    ["30s", 30_000],
    ["10m", 600_000],
    ["1h30m", 5_400_000],
    ["250ms", 250],
    ["1.5h", 5_400_000],
    ["1m30s250ms", 90_250],
    ["0s", 0],
  ])("reads %s as %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it("uses the CRD's own pattern for every duration field", () => {
    const crd = readFileSync(crdPath, "utf8");
    const patterns = [...crd.matchAll(/pattern: "(\^\(\[0-9\][^"]*)"/g)].map((m) =>
      m[1]!.replaceAll("\\\\", "\\"),
    );
    expect(patterns.length).toBeGreaterThanOrEqual(3);
    for (const pattern of patterns) expect(pattern).toBe(durationPattern.source);
  });

  it("rounds nothing: fractions of a millisecond stay (Go keeps nanoseconds)", () => {
    expect(parseDuration("1.5ms")).toBe(1.5);
    expect(parseDuration("0.0004s")).toBeCloseTo(0.4, 12);
  });

  it.each(["", "10", "s", "1d", "-1s", "1 s", "1.s", ".5s", "1e3ms", "10M", "1h 30m", "1us", "1ns"])(
    "refuses %j with an error naming the text",
    (text) => {
      expect(() => parseDuration(text)).toThrow(DurationError);
      expect(() => parseDuration(text)).toThrow(`'${text}'`);
    },
  );

  it("refuses totals beyond Go's longest duration", () => {
    expect(() => parseDuration("2562048h")).toThrow(/longest Kubernetes duration/);
    expect(parseDuration("2562047h")).toBeLessThanOrEqual(maxDurationMs);
  });

  it("adds up any sequence of parts the pattern allows", () => {
    const unitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
    const parts = fc.array(
      fc.tuple(
        fc.integer({ min: 0, max: 10_000 }),
        fc.constantFrom("ms", "s", "m", "h") as fc.Arbitrary<keyof typeof unitMs>,
      ),
      { minLength: 1, maxLength: 6 },
    );
    fc.assert(
      fc.property(parts, (list) => {
        const text = list.map(([n, unit]) => `${n}${unit}`).join("");
        expect(parseDuration(text)).toBe(list.reduce((sum, [n, unit]) => sum + n * unitMs[unit], 0));
      }),
    );
  });

  it("accepts exactly what the CRD pattern accepts, and fails only with a DurationError", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9.hmsu ]{0,12}$/), (text) => {
        let accepted = true;
        try {
          parseDuration(text);
        } catch (error) {
          expect(error).toBeInstanceOf(DurationError);
          accepted = false;
        }
        expect(accepted).toBe(durationPattern.test(text));
      }),
    );
  });
});
