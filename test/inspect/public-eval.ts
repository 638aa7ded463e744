// Measures the inspection engine on the public third-party set (test/inspect/public/): poisoned and
// clean tool definitions other people published as examples, copied verbatim. Each tool is judged
// alone at threshold High with the default detectors (the set has no listings). Entries whose note
// starts with "BORDERLINE:" carry no harmful instruction by themselves; they are counted apart.
// Run: node test/inspect/public-eval.ts [--json]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compileInspection, inspectTool } from "../../src/inspect/index.ts";
import type { ToolDefinition } from "../../src/inspect/types.ts";

export interface PublicEntry {
  id: string;
  source: { registry: string; package: string; version: string; file: string };
  license: string;
  family?: string;
  note: string;
  tool: ToolDefinition;
}

const dir = join(import.meta.dirname, "public");
export const loadPublic = (kind: "poisoned" | "benign"): PublicEntry[] =>
  JSON.parse(readFileSync(join(dir, `${kind}.json`), "utf8")) as PublicEntry[];

export function evaluatePublic() {
  const compiled = compileInspection({ threshold: "High" });
  const flagged = (entry: PublicEntry) => inspectTool(entry.tool, compiled).flagged;
  const poisoned = loadPublic("poisoned");
  const clear = poisoned.filter((entry) => !entry.note.startsWith("BORDERLINE:"));
  const benign = loadPublic("benign");
  return {
    poisoned: { detected: poisoned.filter(flagged).length, total: poisoned.length },
    withoutBorderline: { detected: clear.filter(flagged).length, total: clear.length },
    falsePositives: { detected: benign.filter(flagged).length, total: benign.length },
    missed: poisoned.filter((entry) => !flagged(entry)).map((entry) => entry.id),
  };
}

if (import.meta.main) {
  const report = evaluatePublic();
  if (process.argv.includes("--json")) console.log(JSON.stringify(report, null, 2));
  else {
    const pct = ({ detected, total }: { detected: number; total: number }) =>
      `${detected}/${total} (${((100 * detected) / total).toFixed(1)} %)`;
    console.log(`public third-party set, threshold High, each tool alone`);
    console.log(
      `poisoned: ${pct(report.poisoned)}; without the borderline ones: ${pct(report.withoutBorderline)}`,
    );
    console.log(`false positives on their clean examples: ${pct(report.falsePositives)}`);
  }
}
