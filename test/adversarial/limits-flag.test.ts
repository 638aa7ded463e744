import { describe, expect, it } from "vitest";
import { parseLlmLimits } from "../../src/codecs/framing.ts";

describe("--llm-limit", () => {
  it("reads sizes with units, counts, and per-dialect settings", () => {
    expect(
      parseLlmLimits(["response=2MiB", "event=512KiB", "held=100", "depth=32", "gemini.event=32MiB"]),
    ).toEqual({
      limits: {
        maxResponseBytes: 2 * 1024 ** 2,
        maxEventBytes: 512 * 1024,
        maxHeldBytes: 100,
        maxJsonDepth: 32,
      },
      byDialect: { gemini: { maxEventBytes: 32 * 1024 ** 2 } },
    });
  });

  it.each([
    ["size=1MiB", "NAME one of response, event, held, depth"],
    ["event=0", "not a positive size"],
    ["depth=2KiB", "depth is a count"],
    ["event=lots", "expected [DIALECT.]NAME=VALUE"],
  ])("refuses %s, naming the problem", (value, message) => {
    expect(() => parseLlmLimits([value])).toThrow(message);
  });
});
