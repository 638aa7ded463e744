// Measures the inspection engine on a blind set of issue 12 (the latest round by default): detection
// per attack family and per kind (rewrite of a real tool / injected tool), false positives on the
// blind benign tools, overall. Threshold High, default detectors.
// Run: node test/inspect/blind-eval.ts [--round blind|blind-2] [--json] [--missed] [--false-positives] [--check]
//   [--alone] [--listed-names]
// The text report gives aggregates only unless asked: which entries were missed (--missed) and which
// benign tools were flagged with their findings (--false-positives) are what a blind set must not
// show to whoever tunes the rules.
// --check only loads the set and prints its sizes, without judging anything: what the authors of a
// blind set run, so that they never see a detection result.
import { compileInspection, findingsAtOrAbove, inspectTool } from "../../src/inspect/index.ts";
import {
  BLIND_FAMILIES,
  BLIND_KINDS,
  BLIND_ROUNDS,
  type BlindReport,
  type BlindRound,
  evaluateBlind,
  judgeEachAlone,
  judgeWithListing,
  LATEST_BLIND_ROUND,
  loadBlindBenign,
  loadBlindPoisoned,
  loadServerToolNames,
  type Tally,
} from "./blind-set.ts";

const roundFlag = process.argv.indexOf("--round");
const round = (roundFlag < 0 ? LATEST_BLIND_ROUND : process.argv[roundFlag + 1]) as BlindRound;
if (!BLIND_ROUNDS.includes(round)) {
  console.error(`--round takes one of ${BLIND_ROUNDS.join(", ")}`);
  process.exit(2);
}
const poisoned = loadBlindPoisoned(round);
const benign = loadBlindBenign(round);

if (process.argv.includes("--check")) {
  const count = (predicate: (entry: (typeof poisoned)[number]) => boolean) =>
    poisoned.filter(predicate).length;
  console.log(
    `${round}: ${benign.length} benign tools from ${new Set(benign.map((e) => e.package)).size} packages`,
  );
  console.log(
    `${poisoned.length} poisoned: ${count((e) => e.kind === "rewrite")} rewrites, ${count((e) => e.kind === "injected")} injected`,
  );
  for (const family of BLIND_FAMILIES) {
    const styles = new Set(poisoned.filter((e) => e.family === family).map((e) => e.style));
    console.log(`  ${family}: ${count((e) => e.family === family)} entries, ${styles.size} styles`);
  }
  process.exit(0);
}

// `--alone` judges every tool by itself (single-tool rules only, as before listing analysis existed);
// by default each tool is judged with its neighbours on other servers, as the MCP catalog does.
const judge = process.argv.includes("--alone")
  ? { name: "each tool alone (inspectTool)", run: judgeEachAlone("High") }
  : { name: "with its listing neighbours (inspectListing)", run: judgeWithListing("High") };

// The single-tool findings that explain a false positive (a listing-level judge may add its own).
const compiled = compileInspection({ threshold: "High" });

const percent = ({ detected, total }: Tally) =>
  `${detected}/${total} (${total === 0 ? "-" : ((100 * detected) / total).toFixed(1)} %)`;

function printText(report: BlindReport, listMissed: boolean, listFalsePositives: boolean): void {
  const names = process.argv.includes("--listed-names") ? ", knowing every tool name each server lists" : "";
  console.log(
    `Blind evaluation (${round}) at threshold High, default detectors; judge: ${judge.name}${names}`,
  );
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
  console.log(`rewrites of a source not flagged by itself: ${percent(report.rewritesOfCleanSources)}`);
  const fp = { detected: report.falsePositives.length, total: report.benign };
  console.log(`false positives on blind benign: ${percent(fp)}`);
  const alone = { detected: report.falsePositivesServerByServer.length, total: report.benign };
  console.log(`  with each server its own listing: ${percent(alone)}`);
  if (listFalsePositives) {
    const benignByName = new Map(benign.map((entry) => [`${entry.package} ${entry.tool.name}`, entry.tool]));
    for (const { package: pkg, tool } of report.falsePositives) {
      console.log(`  ${pkg} ${tool}`);
      const definition = benignByName.get(`${pkg} ${tool}`);
      const findings = definition
        ? findingsAtOrAbove(inspectTool(definition, compiled).findings, "High")
        : [];
      for (const finding of findings) console.log(`    ${finding.rule} ${finding.field}: ${finding.match}`);
    }
  }
  if (listMissed) {
    console.log("\nmissed:");
    for (const result of report.results.filter((r) => !r.detected)) console.log(`  ${result.id}`);
  }
}

// `--listed-names` also gives the judge every other tool name each server lists (loadServerToolNames):
// a client sees a server's whole listing, while the round keeps a sample of at most 30 tools.
const report = evaluateBlind(
  judge.run,
  poisoned,
  benign,
  process.argv.includes("--listed-names") ? loadServerToolNames() : new Map(),
);
if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ round, threshold: "High", judge: judge.name, ...report }, null, 2));
} else {
  printText(report, process.argv.includes("--missed"), process.argv.includes("--false-positives"));
}
