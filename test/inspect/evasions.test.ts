import { describe, expect, it } from "vitest";
import { detectedUnderEvasions, developmentCases } from "./evasions.ts";

// The development set's poisoned definitions, obfuscated as a model would still read them. The
// floors are today's figures: they may only rise (docs/inspection.md, "Rules").
const FLOORS: Readonly<Record<string, number>> = {
  plain: 1053,
  wrapped: 1043,
  hyphenated: 1044,
  tabs: 1052,
  emphasis: 1048,
  entities: 1049,
  digits: 1056,
};

describe("detection under obfuscations a model reads through", () => {
  it("keeps every evasion at or above its floor", () => {
    const detected = detectedUnderEvasions(developmentCases());
    for (const [name, floor] of Object.entries(FLOORS))
      expect(detected[name], name).toBeGreaterThanOrEqual(floor);
  }, 120_000);
});
