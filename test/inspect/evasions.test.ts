import { describe, expect, it } from "vitest";
import { detectedUnderEvasions, developmentCases } from "./evasions.ts";

// The development set's poisoned definitions, obfuscated as a model would still read them. The
// floors are today's figures: they may only rise (docs/inspection.md, "Rules"). They count the
// phrasing model too, which learned from this set (in-sample; the rules alone: plain 1 053).
const FLOORS: Readonly<Record<string, number>> = {
  plain: 1184,
  wrapped: 1183,
  hyphenated: 1183,
  tabs: 1184,
  emphasis: 1184,
  entities: 1184,
  // A negated clause of nothing before every sentence ("Never cache it; …"): a refusal ends with its
  // clause (framing.ts), but the phrasing model scores such sentences lower and a few findings still
  // read the negation as theirs. A known gap (docs/inspection.md), kept from growing.
  decoys: 1180,
  colonDecoys: 1181,
  commaDecoys: 1176,
  digits: 1184,
};

describe("detection under obfuscations a model reads through", () => {
  it("keeps every evasion at or above its floor", () => {
    const detected = detectedUnderEvasions(developmentCases());
    for (const [name, floor] of Object.entries(FLOORS))
      expect(detected[name], name).toBeGreaterThanOrEqual(floor);
  }, 120_000);
});
