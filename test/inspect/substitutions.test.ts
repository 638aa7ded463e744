import { describe, expect, it } from "vitest";
import { developmentCases } from "./evasions.ts";
import { lostUnderSubstitutions } from "./substitutions.ts";

// Detections lost when a word of the development descriptions is replaced by a common synonym, for
// the words the rules read alike (READ_ALIKE in src/inspect/rules.ts), as the rules flag them (the
// phrasing model left out, see substitutions.ts). The ceilings are today's
// figures (before the read-alike table: 33, 30, 19, 15 and 10): they may only fall.
const CEILINGS: readonly (readonly [string, string, number])[] = [
  ["user", "human", 4],
  ["user", "requester", 5],
  ["use", "employ", 9],
  ["tool", "utility", 0],
  ["server", "backend", 2],
  // A trigger word of the call-order signal (5 before "ahead of" became one).
  ["before", "ahead of", 0],
];

describe("detection under synonyms of the words the rules read alike", () => {
  it("loses no more than its ceiling for each substitution", () => {
    const results = lostUnderSubstitutions(
      developmentCases(),
      CEILINGS.map(([word, synonym]) => [word, synonym] as const),
    );
    for (const [index, [word, synonym, ceiling]] of CEILINGS.entries())
      expect(results[index]!.lost, `${word} -> ${synonym}`).toBeLessThanOrEqual(ceiling);
  }, 120_000);
});
