// Integrity of the public third-party set (test/inspect/public/): provenance and shapes. Detection is
// measured by public-eval.ts and recorded in docs/inspection.md, never asserted or tuned against.
import { describe, expect, it } from "vitest";
import { loadPublic } from "./public-eval.ts";

describe.each(["poisoned", "benign"] as const)("public %s set", (kind) => {
  const entries = loadPublic(kind);

  it("has unique ids, a source with package and version, a licence and a tool shape", () => {
    expect(entries.length).toBeGreaterThan(0);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(entries.length);
    for (const entry of entries) {
      expect(entry.source.package, entry.id).toEqual(expect.any(String));
      expect(entry.source.version, entry.id).toMatch(/^\d+(\.\d+)*/);
      expect(entry.license, entry.id).toEqual(expect.any(String));
      expect(entry.tool.name, entry.id).toEqual(expect.any(String));
    }
  });
});
