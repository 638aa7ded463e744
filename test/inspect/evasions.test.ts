import { describe, expect, it } from "vitest";
import { detectedUnderEvasions, developmentCases } from "./evasions.ts";

// The development set's poisoned definitions, obfuscated as a model would still read them. The
// floors are today's figures: they may only rise (docs/inspection.md, "Rules"), and fell once, by
// 12–17 each, when the severity calibration (src/inspect/calibration.ts) left nine rules at Medium.
// They count the phrasing model too, which learned from this set (in-sample; the rules alone: plain 1 053).
const FLOORS: Readonly<Record<string, number>> = {
  plain: 1172,
  wrapped: 1170,
  hyphenated: 1170,
  tabs: 1172,
  emphasis: 1172,
  entities: 1172,
  // A negated clause of nothing before every sentence ("Never cache it; …"): a refusal ends with its
  // clause (framing.ts), but the phrasing model scores such sentences lower and a few findings still
  // read the negation as theirs. A known gap (docs/inspection.md), kept from growing.
  decoys: 1168,
  colonDecoys: 1170,
  commaDecoys: 1161,
  // Documentation words padded into every sentence: 991 while the phrasing model judged a sentence
  // by its sum alone, which padding pulls down; its best clause now stands for it (phrasing.ts).
  padded: 1143,
  digits: 1170,
};

describe("detection under obfuscations a model reads through", () => {
  it("keeps every evasion at or above its floor", () => {
    const detected = detectedUnderEvasions(developmentCases());
    for (const [name, floor] of Object.entries(FLOORS))
      expect(detected[name], name).toBeGreaterThanOrEqual(floor);
  }, 120_000);
});
