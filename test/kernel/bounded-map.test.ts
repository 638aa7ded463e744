import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BoundedMap, CappedMap, TextMemo } from "../../src/kernel/bounded-map.ts";

describe("BoundedMap", () => {
  it("evicts the least recently used entry past its cap", () => {
    const map = new BoundedMap<string, number>(2);
    map.set("a", 1, Infinity);
    map.set("b", 2, Infinity);
    expect(map.get("a", 0)).toBe(1);
    map.set("c", 3, Infinity);
    expect([...map.entries(0)]).toEqual([
      ["a", 1],
      ["c", 3],
    ]);
  });

  it("forgets an entry once it expires", () => {
    const map = new BoundedMap<string, number>(4);
    map.set("a", 1, 100);
    expect(map.get("a", 99)).toBe(1);
    expect(map.get("a", 100)).toBeUndefined();
    expect(map.size).toBe(0);
  });

  it("refuses a cap that bounds nothing", () => {
    expect(() => new BoundedMap(0)).toThrow(/maxEntries must be ≥ 1/);
  });

  it("never holds more than its cap, whatever the operations", () => {
    const operation = fc.oneof(
      fc.record({ set: fc.integer({ min: 0, max: 50 }) }),
      fc.record({ get: fc.integer({ min: 0, max: 50 }) }),
      fc.record({ remove: fc.integer({ min: 0, max: 50 }) }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(operation, { maxLength: 200 }),
        (cap, operations) => {
          const map = new BoundedMap<number, number>(cap);
          for (const op of operations) {
            if ("set" in op) map.set(op.set, op.set, Infinity);
            else if ("get" in op) map.get(op.get, 0);
            else map.delete(op.remove);
            expect(map.size).toBeLessThanOrEqual(cap);
          }
        },
      ),
    );
  });
});

describe("CappedMap", () => {
  it("keeps at most maxEntries, dropping the least recently set", () => {
    const map = new CappedMap<string, number>(2);
    map.set("a", 1).set("b", 2).set("a", 3).set("c", 4);
    expect([...map]).toEqual([
      ["a", 3],
      ["c", 4],
    ]);
    expect(map.get("b")).toBeUndefined();
    expect(map).toBeInstanceOf(Map);
  });

  it("refuses a cap below one", () => {
    expect(() => new CappedMap(0)).toThrow(/maxEntries/);
  });
});

describe("TextMemo", () => {
  const page = (n: number) => `${n} `.padEnd(1_000, "x");

  it("keeps what is used again while new strings pass through, and drops what is not", () => {
    const memo = new TextMemo<number>({ maxCharacters: 10_000 });
    memo.set(page(0), 0);
    memo.set(page(1), 1);
    for (let n = 2; n < 100; n++) {
      memo.set(page(n), n);
      expect(memo.get(page(0))).toBe(0);
    }
    expect(memo.get(page(1))).toBeUndefined();
    expect(memo.get(page(99))).toBe(99);
  });

  it("keeps kinds apart, derives once, and keeps no string longer than maxLength", () => {
    const memo = new TextMemo<string>({ kinds: 2, maxLength: 10 });
    let derived = 0;
    const derive = (text: string) => `${text}:${++derived}`;
    expect(memo.of("short", derive)).toBe("short:1");
    expect(memo.of("short", derive)).toBe("short:1");
    expect(memo.of("short", derive, 1)).toBe("short:2");
    expect(memo.of("longer than ten", derive)).toBe("longer than ten:3");
    expect(memo.of("longer than ten", derive)).toBe("longer than ten:4");
  });

  it("never holds more than its characters, whatever the operations", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(50), fc.boolean())), (operations) => {
        const memo = new TextMemo<number>({ maxCharacters: 4_000 });
        const held = new Set<number>();
        for (const [n, read] of operations) {
          if (read) memo.get(page(n));
          else memo.set(page(n), n);
          held.add(n);
        }
        let kept = 0;
        for (const n of held) if (memo.get(page(n)) !== undefined) kept++;
        return kept <= 4;
      }),
    );
  });
});
