// Reproduces the table of docs/inspection.md, "Severity calibrated on fresh rounds": every retired
// blind round judged again by the rules of the commit at which it was fresh (its session's start,
// checked out in a temporary git worktree), and for each rule how often its High verdict alone
// flagged a real tool (a false positive) and a poisoned one (a detection). Then what keeping
// CALIBRATED_TO_MEDIUM (src/inspect/calibration.ts) at Medium does on that data, and which rules the
// same count would also select; last, what the documentation reading (readAsDocumentation in
// src/inspect/engine.ts, with today's phrasing model) adds on top of it, applied to each round's
// findings as they were when it was fresh. The latest round is never judged here.
// Run: node scripts/calibrate-severity.ts   (needs the git history; about three minutes)
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CALIBRATED_TO_MEDIUM, calibrated } from "../src/inspect/calibration.ts";
import { readAsDocumentation } from "../src/inspect/engine.ts";
import { compileInspection, type Finding, type ToolDefinition } from "../src/inspect/index.ts";
import {
  type BlindRound,
  LATEST_BLIND_ROUND,
  loadBlindBenign,
  loadBlindPoisoned,
} from "../test/inspect/blind-set.ts";

/** Each retired round and the commit at which it was measured fresh (docs/inspection.md, each round's section). */
const FRESH_AT: Partial<Record<BlindRound, string>> = {
  "blind-7": "c993188",
  "blind-8": "cfa73e1",
  "blind-9": "a2c30f4",
  "blind-10": "4cb2044",
  "blind-11": "2b0af0a",
  "blind-12": "0199072",
  "blind-13": "85faecf",
  "blind-14": "c4d85d8",
  "blind-15": "db09e84",
  "blind-16": "5d4adcf",
  "blind-17": "a534db1",
  "blind-18": "2fe3e5a",
};

const repository = join(import.meta.dirname, "..");

/**
 * Run inside a worktree: judges the round with that commit's engine (each poisoned tool with its
 * neighbours, the benign tools as one listing) and prints one line per tool — "p" or "b", then its
 * findings as JSON.
 */
const JUDGE = `
const { compileInspection, inspectListing } = await import(process.cwd() + "/src/inspect/index.ts");
const { loadBlindBenign, loadBlindPoisoned } = await import(process.env.BLIND_SET);
const round = process.env.ROUND;
const compiled = compileInspection({ threshold: "High" });
const lines = [];
for (const entry of loadBlindPoisoned(round))
  lines.push("p\\t" + JSON.stringify(inspectListing([...entry.neighbours, { server: entry.server, tool: entry.tool }], compiled).at(-1).findings));
for (const result of inspectListing(loadBlindBenign(round).map((e) => ({ server: e.package, tool: e.tool })), compiled))
  lines.push("b\\t" + JSON.stringify(result.findings));
console.log(lines.join("\\n"));
`;

interface Judged {
  round: string;
  poisoned: boolean;
  /** The tool as the round holds it, poisoned ones with their edits applied. */
  tool: ToolDefinition;
  findings: Finding[];
  /** The rules of its High or Critical findings. */
  rules: string[];
}

const isHigh = (f: Finding) => f.severity === "High" || f.severity === "Critical";

function judgeAtFreshCommit(round: BlindRound, commit: string): Judged[] {
  const worktree = mkdtempSync(join(tmpdir(), "toolwall-calibrate-"));
  try {
    execFileSync("git", ["-C", repository, "worktree", "add", "--detach", "--force", worktree, commit], {
      stdio: "ignore",
    });
    symlinkSync(join(repository, "node_modules"), join(worktree, "node_modules"));
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", JUDGE], {
      cwd: worktree,
      env: { ...process.env, ROUND: round, BLIND_SET: join(repository, "test/inspect/blind-set.ts") },
      maxBuffer: 64 * 1024 * 1024,
      encoding: "utf8",
    });
    const tools = [
      ...loadBlindPoisoned(round).map((entry) => entry.tool),
      ...loadBlindBenign(round).map((entry) => entry.tool),
    ];
    return output
      .trim()
      .split("\n")
      .map((line, i) => {
        const [kind, json = "[]"] = line.split("\t");
        const findings = JSON.parse(json) as Finding[];
        const rules = [...new Set(findings.filter(isHigh).map((f) => f.rule))];
        return { round, poisoned: kind === "p", tool: tools[i]!, findings, rules };
      });
  } finally {
    execFileSync("git", ["-C", repository, "worktree", "remove", "--force", worktree], { stdio: "ignore" });
    rmSync(worktree, { recursive: true, force: true });
  }
}

const judged = Object.entries(FRESH_AT).flatMap(([round, commit]) => {
  if (round === LATEST_BLIND_ROUND) throw new Error(`${round} is the latest round: it is never judged here`);
  console.error(`${round} at ${commit}`);
  return judgeAtFreshCommit(round as BlindRound, commit);
});

/** Per rule: tools it alone flags, benign and poisoned, once the rules in `lowered` no longer flag. */
function aloneCounts(
  lowered: ReadonlySet<string>,
): Map<string, { falsePositives: number; detections: number }> {
  const counts = new Map<string, { falsePositives: number; detections: number }>();
  for (const { poisoned, rules } of judged) {
    const flagging = rules.filter((rule) => !lowered.has(rule));
    if (flagging.length !== 1) continue;
    const count = counts.get(flagging[0]!) ?? { falsePositives: 0, detections: 0 };
    if (poisoned) count.detections += 1;
    else count.falsePositives += 1;
    counts.set(flagging[0]!, count);
  }
  return counts;
}

const flagged = (lowered: ReadonlySet<string>, poisoned: boolean) =>
  judged.filter((entry) => entry.poisoned === poisoned && entry.rules.some((rule) => !lowered.has(rule)))
    .length;

const none = new Set<string>();
console.log(
  `${judged.filter((e) => e.poisoned).length} poisoned, ${judged.filter((e) => !e.poisoned).length} benign`,
);
console.log("\n| rule | false positives it alone made | detections it alone made |\n|---|---|---|");
for (const [rule, { falsePositives, detections }] of [...aloneCounts(none)].sort(
  (a, b) => b[1].falsePositives - a[1].falsePositives,
))
  if (falsePositives > 0) console.log(`| \`${rule}\` | ${falsePositives} | ${detections} |`);

console.log(
  `\nCALIBRATED_TO_MEDIUM at Medium: detections ${flagged(none, true)} → ${flagged(CALIBRATED_TO_MEDIUM, true)}, ` +
    `false positives ${flagged(none, false)} → ${flagged(CALIBRATED_TO_MEDIUM, false)}`,
);
for (const round of Object.keys(FRESH_AT)) {
  const of = (lowered: ReadonlySet<string>, poisoned: boolean) =>
    judged.filter(
      (entry) =>
        entry.round === round &&
        entry.poisoned === poisoned &&
        entry.rules.some((rule) => !lowered.has(rule)),
    ).length;
  console.log(
    `  ${round}: detections ${of(none, true)} → ${of(CALIBRATED_TO_MEDIUM, true)}, false positives ${of(none, false)} → ${of(CALIBRATED_TO_MEDIUM, false)}`,
  );
}
console.log("\nWrong more often than right alone once those are Medium (not calibrated):");
for (const [rule, { falsePositives, detections }] of aloneCounts(CALIBRATED_TO_MEDIUM))
  if (falsePositives > detections)
    console.log(`  ${rule}: ${falsePositives} false positives, ${detections} detections`);

console.log(
  "\nThe documentation reading (readAsDocumentation) on top of CALIBRATED_TO_MEDIUM, each tool's findings as they were fresh:",
);
const compiled = compileInspection({ threshold: "High" });
const readDown = new Map<string, { falsePositives: number; detections: number }>();
for (const round of Object.keys(FRESH_AT)) {
  const before = { detections: 0, falsePositives: 0 };
  const after = { detections: 0, falsePositives: 0 };
  for (const entry of judged.filter((e) => e.round === round)) {
    const lowered = calibrated(entry.findings);
    if (!lowered.some(isHigh)) continue;
    const count = entry.poisoned ? "detections" : "falsePositives";
    before[count] += 1;
    const read = readAsDocumentation(compiled, entry.tool, lowered);
    if (read.some(isHigh)) {
      after[count] += 1;
      continue;
    }
    for (const f of read.filter((f) => f.rule.endsWith(".documentation"))) {
      const counts = readDown.get(f.rule) ?? { falsePositives: 0, detections: 0 };
      counts[count] += 1;
      readDown.set(f.rule, counts);
    }
  }
  console.log(
    `  ${round}: detections ${before.detections} → ${after.detections}, false positives ${before.falsePositives} → ${after.falsePositives}`,
  );
}
for (const [rule, { falsePositives, detections }] of [...readDown].sort(
  (a, b) => b[1].falsePositives - a[1].falsePositives,
))
  console.log(`  read down: ${rule}: ${falsePositives} false positives, ${detections} detections`);
