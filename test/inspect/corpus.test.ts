import { describe, expect, it } from "vitest";
import { DETECTORS } from "../../src/inspect/types.ts";
import { loadBenign, loadMalicious, measure } from "./corpus.ts";

const benign = loadBenign();
const malicious = loadMalicious();

describe("inspection corpora", () => {
  it("hold at least 150 real benign tools from several MCP server packages, each with its version", () => {
    expect(benign.length).toBeGreaterThanOrEqual(150);
    expect(new Set(benign.map((e) => e.package)).size).toBeGreaterThanOrEqual(10);
    for (const entry of benign) expect(entry.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("hold at least 150 malicious definitions labelled with family and channel, covering every family and hidden channel", () => {
    expect(malicious.length).toBeGreaterThanOrEqual(150);
    expect(new Set(malicious.map((e) => e.id)).size).toBe(malicious.length);
    expect(new Set(malicious.map((e) => e.family))).toEqual(new Set(DETECTORS));
    const channels = new Set(malicious.map((e) => e.channel));
    for (const channel of [
      "unicode-tags",
      "zero-width",
      "bidi",
      "homoglyph",
      "html-comment",
      "ansi",
      "base64",
      "variation-selectors",
      "whitespace-padding",
      "schema-description",
      "property-name",
      "default",
      "enum",
    ])
      expect(channels).toContain(channel);
    expect(malicious.filter((e) => e.file === "rewrites-of-real-tools").length).toBeGreaterThanOrEqual(15);
  });
});

describe("detection goal at the default threshold High", () => {
  const rates = measure("High", malicious, benign);

  it("detects at least 90 % of the malicious definitions", () => {
    expect(rates.detectionRate, `missed: ${rates.missed.map((e) => e.id).join(", ")}`).toBeGreaterThanOrEqual(
      0.9,
    );
  });

  it("flags at most 2 % of the real benign tools", () => {
    expect(
      rates.falsePositiveRate,
      rates.flaggedBenign.map((e) => `${e.package}:${e.tool.name}`).join(", "),
    ).toBeLessThanOrEqual(0.02);
  });

  it("detects every malicious family above the goal on its own", () => {
    for (const family of new Set(malicious.map((e) => e.family))) {
      const subset = malicious.filter((e) => e.family === family);
      const missed = rates.missed.filter((e) => e.family === family).length;
      expect((subset.length - missed) / subset.length, family).toBeGreaterThanOrEqual(0.9);
    }
  });
});
