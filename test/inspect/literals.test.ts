import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LiteralSet } from "../../src/inspect/literals.ts";

/** The reference: every occurrence by indexOf, a literal starting with a letter only at a word start. */
function naive(literals: readonly string[], text: string): string[] {
  const hits: string[] = [];
  literals.forEach((literal, id) => {
    for (let at = text.indexOf(literal); at >= 0; at = text.indexOf(literal, at + 1)) {
      const startsWithLetter = /^[a-z]/.test(literal);
      if (startsWithLetter && at > 0 && /[a-z0-9_]/.test(text[at - 1]!)) continue;
      hits.push(`${id}@${at + literal.length - 1}`);
    }
  });
  return hits.sort();
}

function scanned(literals: readonly string[], text: string): { hits: string[]; ends: number[] } {
  const hits: string[] = [];
  const ends: number[] = [];
  new LiteralSet(literals).scan(text, (id, end) => {
    hits.push(`${id}@${end}`);
    ends.push(end);
  });
  return { hits: hits.sort(), ends };
}

const alphabet = ["a", "b", "_", " ", ".", "é", "実", "行", "ß"];
const word = fc.array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 4 }).map((cs) => cs.join(""));

describe("LiteralSet", () => {
  it("finds ASCII and non-ASCII literals exactly where indexOf does, in text order", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(word, { minLength: 1, maxLength: 6 }),
        fc.array(word, { maxLength: 12 }),
        (literals, parts) => {
          const text = parts.join("");
          const { hits, ends } = scanned(literals, text);
          expect(hits).toEqual(naive(literals, text));
          expect(ends).toEqual([...ends].sort((a, b) => a - b));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("finds a Japanese literal after ASCII text, and an accented one only at a word start", () => {
    expect(scanned(["実行", "envía"], "please 実行して; reenvía, envía").hits).toEqual(["0@8", "1@26"]);
  });
});
