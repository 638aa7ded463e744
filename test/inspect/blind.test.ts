// Integrity of every blind evaluation round (test/inspect/blind*/), and of the development data
// written in their format (test/inspect/corpus/edits/): sizes, labels and shapes that issue 12 asks for. Detection figures are not asserted here: they are measured by blind-eval.ts and recorded
// in docs/inspection.md, never tuned against.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../src/inspect/types.ts";
import {
  applyEdits,
  BLIND_FAMILIES,
  BLIND_KINDS,
  BLIND_ROUNDS,
  type BlindPoisoned,
  blindRoundDir,
  evaluateBlind,
  LISTING_FAMILIES,
  loadBlindBenign,
  loadBlindPoisoned,
  loadDevEdits,
} from "./blind-set.ts";
import { INTL_BENIGN_DIR, INTL_LATIN_BENIGN_DIR, loadBenign } from "./corpus.ts";

describe.each(BLIND_ROUNDS)("blind round %s", (round) => {
  describePoisonedSet("blind poisoned set", loadBlindPoisoned(round));
  const benign = loadBlindBenign(round);

  describe("blind benign set", () => {
    it("has at least 300 real tools from at least 15 packages, each listing with package and version", () => {
      expect(benign.length).toBeGreaterThanOrEqual(300);
      const dir = join(blindRoundDir(round), "benign");
      const files = readdirSync(dir);
      expect(files.length).toBeGreaterThanOrEqual(15);
      for (const file of files) {
        const listing = JSON.parse(readFileSync(join(dir, file), "utf8")) as Record<string, unknown>;
        expect(listing.package, file).toEqual(expect.any(String));
        // A release number of two parts or more: PEP 440 allows "26.9" (a real PyPI release of round 15).
        expect(listing.version, file).toMatch(/^\d+(\.\d+)+/);
        expect((listing.tools as unknown[]).length, file).toBeGreaterThan(0);
      }
      for (const entry of benign) expect(entry.tool.name).toEqual(expect.any(String));
    });

    it("shares no package with the development corpora (npm and PyPI) or an earlier round", () => {
      const earlier = BLIND_ROUNDS.slice(0, BLIND_ROUNDS.indexOf(round)).flatMap((r) => loadBlindBenign(r));
      const development = [
        ...loadBenign(),
        ...loadBenign(join(import.meta.dirname, "corpus", "benign-pypi")),
        ...loadBenign(INTL_BENIGN_DIR),
        ...loadBenign(INTL_LATIN_BENIGN_DIR),
      ];
      const seenPackages = new Set([...development, ...earlier].map((entry) => entry.package));
      expect(
        [...new Set(benign.map((entry) => entry.package))].filter((pkg) => seenPackages.has(pkg)),
      ).toEqual([]);
    });
  });
});

describe("applyEdits", () => {
  const source: ToolDefinition = {
    name: "get_weather",
    description: "Weather for a city.",
    inputSchema: {
      type: "object",
      properties: { city: { type: "string", description: "City" } },
      required: [],
    },
  };

  it("appends, prepends, inserts, sets and pushes without changing the source", () => {
    const edited = applyEdits(
      source,
      [
        { at: ["description"], append: " Tail." },
        { at: ["description"], prepend: "Head. " },
        { at: ["description"], insertAfter: "Weather", text: " now" },
        { at: ["inputSchema", "properties", "city", "default"], set: "Paris" },
        { at: ["inputSchema", "required"], push: "city" },
      ],
      "t",
    );
    expect(edited.description).toBe("Head. Weather now for a city. Tail.");
    expect(edited.inputSchema).toEqual({
      type: "object",
      properties: { city: { type: "string", description: "City", default: "Paris" } },
      required: ["city"],
    });
    expect(source.description).toBe("Weather for a city.");
  });

  it("names the entry and the problem when an edit does not fit the source", () => {
    expect(() =>
      applyEdits(source, [{ at: ["inputSchema", "properties", "zip", "description"], append: "x" }], "e1"),
    ).toThrow("e1: edit path inputSchema.properties.zip does not exist at zip");
    expect(() => applyEdits(source, [{ at: ["description"], insertAfter: "Rain", text: "x" }], "e2")).toThrow(
      'e2: description does not contain "Rain"',
    );
    expect(() => applyEdits(source, [{ at: ["name"], push: "x" }], "e3")).toThrow("e3: name is not an array");
    expect(() => applyEdits(source, [{ at: ["inputSchema"], append: "x" }], "e4")).toThrow(
      "e4: inputSchema is not a string",
    );
  });
});

describe("evaluateBlind", () => {
  const poisoned = loadBlindPoisoned("blind");
  const benign = loadBlindBenign("blind");

  it("counts every poisoned entry once per family, kind and overall, and every benign tool", () => {
    const all = evaluateBlind((listing) => listing.map(() => true), poisoned, benign);
    expect(all.overall).toEqual({ detected: poisoned.length, total: poisoned.length });
    expect(all.byKind.rewrite.total + all.byKind.injected.total).toBe(poisoned.length);
    const familyTotal = BLIND_FAMILIES.reduce((sum, family) => sum + all.byFamily[family].all.total, 0);
    expect(familyTotal).toBe(poisoned.length);
    expect(all.falsePositives.length).toBe(benign.length);

    const none = evaluateBlind((listing) => listing.map(() => false), poisoned, benign);
    expect(none.overall.detected).toBe(0);
    expect(none.falsePositives).toEqual([]);
  });

  it("judges the benign tools once as one listing and once server by server", () => {
    const listings: string[][] = [];
    const report = evaluateBlind(
      (listing) => {
        listings.push([...new Set(listing.map((entry) => entry.server))]);
        // Flag a tool only when another server shares its listing: a listing-level finding by chance.
        return listing.map(() => new Set(listing.map((entry) => entry.server)).size > 1);
      },
      [],
      benign,
    );
    const servers = new Set(benign.map((entry) => entry.package));
    expect(listings.filter((names) => names.length === 1)).toHaveLength(servers.size);
    expect(report.falsePositives.length).toBe(benign.length);
    expect(report.falsePositivesServerByServer).toEqual([]);
  });

  it("gives the judge a server's other listed names first, and counts only the tools kept", () => {
    const [first] = benign;
    const kept = benign.filter((entry) => entry.package === first!.package);
    const listedNames = new Map([
      [first!.package, ["unkept_tool", ...kept.map((entry) => String(entry.tool.name))]],
    ]);
    const seen: string[][] = [];
    const report = evaluateBlind(
      (listing) => {
        seen.push(listing.map((entry) => String(entry.tool.name)));
        // Flag the name-only tools: a count that included them would show.
        return listing.map((entry) => entry.tool.description === undefined);
      },
      [],
      kept,
      listedNames,
    );
    expect(
      seen.every(
        (names) => names[0] === "unkept_tool" && names.filter((n) => n === "unkept_tool").length === 1,
      ),
    ).toBe(true);
    expect(report.falsePositives.length + report.falsePositivesServerByServer.length).toBe(
      2 * kept.filter((entry) => entry.tool.description === undefined).length,
    );
  });

  it("judges the poisoned tool, not its neighbours", () => {
    const onlyNeighbours = evaluateBlind(
      (listing) => listing.map((_, index) => index < listing.length - 1),
      poisoned.filter((entry) => entry.neighbours.length > 0),
      [],
    );
    expect(onlyNeighbours.overall.detected).toBe(0);
  });

  it("leaves out of the clean-source figure the rewrites whose source the judge flags by itself", () => {
    const rewrites = poisoned.filter((entry) => entry.kind === "rewrite");
    const flagged = new Set([rewrites[0]!.sourceTool, rewrites[1]!.sourceTool]);
    const report = evaluateBlind((listing) => listing.map((entry) => flagged.has(entry.tool)), poisoned, []);
    const sourcesFlagged = rewrites.filter((entry) => flagged.has(entry.sourceTool)).length;
    expect(report.rewritesOfCleanSources.total).toBe(rewrites.length - sourcesFlagged);
    const everything = evaluateBlind((listing) => listing.map(() => true), poisoned, []);
    expect(everything.rewritesOfCleanSources).toEqual({ detected: 0, total: 0 });
  });
});

describe("development edits (test/inspect/corpus/edits/)", () => {
  describePoisonedSet("poisoned set", loadDevEdits());
});

function describePoisonedSet(name: string, poisoned: BlindPoisoned[]): void {
  describe(name, () => {
    it("has at least 150 definitions, at least half of them rewrites of real tools", () => {
      expect(poisoned.length).toBeGreaterThanOrEqual(150);
      expect(poisoned.filter((entry) => entry.kind === "rewrite").length * 2).toBeGreaterThanOrEqual(
        poisoned.length,
      );
    });

    it("has unique ids and only known families and kinds", () => {
      expect(new Set(poisoned.map((entry) => entry.id)).size).toBe(poisoned.length);
      for (const entry of poisoned) {
        expect(BLIND_FAMILIES).toContain(entry.family);
        expect(BLIND_KINDS).toContain(entry.kind);
        expect(entry.note.length, entry.id).toBeGreaterThan(10);
        expect(entry.server.length, entry.id).toBeGreaterThan(0);
      }
    });

    it("covers every family with both kinds, at least 15 entries and 5 styles each", () => {
      for (const family of BLIND_FAMILIES) {
        const entries = poisoned.filter((entry) => entry.family === family);
        expect(entries.length, family).toBeGreaterThanOrEqual(15);
        for (const kind of BLIND_KINDS)
          expect(
            entries.some((entry) => entry.kind === kind),
            `${family} ${kind}`,
          ).toBe(true);
        expect(new Set(entries.map((entry) => entry.style)).size, family).toBeGreaterThanOrEqual(5);
      }
    });

    it("rewrites real tools of the development corpus or a blind benign set and differ from them", () => {
      const blindTools = new Map(
        [...loadBenign(), ...BLIND_ROUNDS.flatMap((r) => loadBlindBenign(r))].map((entry) => [
          `${entry.package} ${entry.tool.name}`,
          entry.tool,
        ]),
      );
      for (const entry of poisoned.filter((e) => e.kind === "rewrite")) {
        const source = blindTools.get(`${entry.source?.package} ${entry.source?.tool}`);
        expect(source, entry.id).toBeDefined();
        expect(JSON.stringify(entry.tool), entry.id).not.toBe(JSON.stringify(source));
      }
      for (const entry of poisoned.filter((e) => e.kind === "injected"))
        expect(entry.source, entry.id).toBeUndefined();
    });

    it("gives listing-level families the neighbours they compete with, on another server", () => {
      for (const entry of poisoned.filter((e) => LISTING_FAMILIES.includes(e.family))) {
        expect(entry.neighbours.length, entry.id).toBeGreaterThan(0);
        for (const neighbour of entry.neighbours) expect(neighbour.server, entry.id).not.toBe(entry.server);
      }
    });

    it("has tool shapes a tools/list could return", () => {
      for (const { id, tool, sourceTool } of poisoned) {
        expect(tool.name, id).toMatch(/^\S+$/);
        // A description is optional in MCP: a rewrite may keep a real tool that has none.
        if (sourceTool?.description !== undefined || tool.description !== undefined)
          expect(typeof tool.description, id).toBe("string");
        expect((tool.inputSchema as { type?: string }).type, id).toBe("object");
      }
    });
  });
}
