import { describe, expect, it } from "vitest";
import { detectedUnderEvasions, developmentCases } from "./evasions.ts";

// The development set's poisoned definitions, obfuscated as a model would still read them. The
// floors are today's figures: they may only rise (docs/inspection.md, "Rules"). They count the
// phrasing model too, which learned from this set (in-sample; the rules alone: plain 1 053).
const FLOORS: Readonly<Record<string, number>> = {
  plain: 1179,
  wrapped: 1179,
  hyphenated: 1178,
  tabs: 1179,
  emphasis: 1179,
  entities: 1179,
  // A negated clause of nothing before every sentence: a refusal earlier in a sentence still frames
  // a command after a semicolon (framing.ts), and the phrasing model scores the sentence lower. A
  // known gap (docs/inspection.md), kept from growing.
  decoys: 1172,
  digits: 1177,
};

describe("detection under obfuscations a model reads through", () => {
  it("keeps every evasion at or above its floor", () => {
    const detected = detectedUnderEvasions(developmentCases());
    for (const [name, floor] of Object.entries(FLOORS))
      expect(detected[name], name).toBeGreaterThanOrEqual(floor);
  }, 120_000);
});
