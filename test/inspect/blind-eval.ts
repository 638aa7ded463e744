// Measures the inspection engine on the blind set of issue 12 (test/inspect/blind/): detection per
// attack family and per kind (rewrite of a real tool / injected tool), false positives on the blind
// benign tools, overall. Threshold High, default detectors.
// Run: node test/inspect/blind-eval.ts [--json] [--missed]
import { compileInspection, findingsAtOrAbove, inspectTool } from "../../src/inspect/index.ts";
import {
  BLIND_FAMILIES,
  BLIND_KINDS,
  type BlindReport,
  evaluateBlind,
  judgeEachAlone,
  judgeWithListing,
  loadBlindBenign,
  type Tally,
} from "./blind-set.ts";

// `--alone` judges every tool by itself (single-tool rules only, as before listing analysis existed);
// by default each tool is judged with its neighbours on other servers, as the MCP catalog does.
const judge = process.argv.includes("--alone")
  ? { name: "each tool alone (inspectTool)", run: judgeEachAlone("High") }
  : { name: "with its listing neighbours (inspectListing)", run: judgeWithListing("High") };

// The single-tool findings that explain a false positive (a listing-level judge may add its own).
const compiled = compileInspection({ threshold: "High" });

const percent = ({ detected, total }: Tally) =>
  `${detected}/${total} (${total === 0 ? "-" : ((100 * detected) / total).toFixed(1)} %)`;

function printText(report: BlindReport, listMissed: boolean): void {
  console.log(`Blind evaluation at threshold High, default detectors; judge: ${judge.name}`);
  console.log(
    `poisoned: ${report.poisoned} (${report.rewrites} rewrites of real tools, ${report.injected} injected); ` +
      `benign: ${report.benign} real tools from ${report.packages.length} packages\n`,
  );
  console.log("| family | rewrite | injected | all |\n|---|---|---|---|");
  for (const family of BLIND_FAMILIES) {
    const row = report.byFamily[family];
    console.log(`| ${family} | ${percent(row.rewrite)} | ${percent(row.injected)} | ${percent(row.all)} |`);
  }
  const kinds = BLIND_KINDS.map((kind) => percent(report.byKind[kind])).join(" | ");
  console.log(`| **all** | ${kinds} | ${percent(report.overall)} |\n`);
  const fp = { detected: report.falsePositives.length, total: report.benign };
  console.log(`false positives on blind benign: ${percent(fp)}`);
  const benignByName = new Map(
    loadBlindBenign().map((entry) => [`${entry.package} ${entry.tool.name}`, entry.tool]),
  );
  for (const { package: pkg, tool } of report.falsePositives) {
    console.log(`  ${pkg} ${tool}`);
    const definition = benignByName.get(`${pkg} ${tool}`);
    const findings = definition ? findingsAtOrAbove(inspectTool(definition, compiled).findings, "High") : [];
    for (const finding of findings) console.log(`    ${finding.rule} ${finding.field}: ${finding.match}`);
  }
  if (listMissed) {
    console.log("\nmissed:");
    for (const result of report.results.filter((r) => !r.detected)) console.log(`  ${result.id}`);
  }
}

const report = evaluateBlind(judge.run);
if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ threshold: "High", judge: judge.name, ...report }, null, 2));
} else {
  printText(report, process.argv.includes("--missed"));
}
