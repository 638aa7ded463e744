import { describe, expect, it } from "vitest";
import { detectedUnderEvasions, developmentCases } from "./evasions.ts";

// The development set's poisoned definitions, obfuscated as a model would still read them. The
// floors are today's figures: they may only rise (docs/inspection.md, "Rules").
const FLOORS: Readonly<Record<string, number>> = {
  plain: 1047,
  wrapped: 1037,
  hyphenated: 1038,
  tabs: 1046,
  emphasis: 1042,
  entities: 1043,
  digits: 1053,
};

describe("detection under obfuscations a model reads through", () => {
  it("keeps every evasion at or above its floor", () => {
    const detected = detectedUnderEvasions(developmentCases());
    for (const [name, floor] of Object.entries(FLOORS))
      expect(detected[name], name).toBeGreaterThanOrEqual(floor);
  }, 120_000);
});
