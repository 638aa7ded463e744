// Reproduces the table of docs/inspection.md, "Severity calibrated on fresh rounds": every retired
// blind round judged again by the rules of the commit at which it was fresh (its session's start,
// checked out in a temporary git worktree), and for each rule how often its High verdict alone
// flagged a real tool (a false positive) and a poisoned one (a detection). Then what keeping
// CALIBRATED_TO_MEDIUM (src/inspect/calibration.ts) at Medium does on that data, and which rules the
// same count would also select. The latest round is never judged here.
// Run: node scripts/calibrate-severity.ts   (needs the git history; about three minutes)
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CALIBRATED_TO_MEDIUM } from "../src/inspect/calibration.ts";
import { type BlindRound, LATEST_BLIND_ROUND } from "../test/inspect/blind-set.ts";

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
};

const repository = join(import.meta.dirname, "..");

/**
 * Run inside a worktree: judges the round with that commit's engine (each poisoned tool with its
 * neighbours, the benign tools as one listing) and prints one line per tool — "p" or "b", then the
 * rules of its High or Critical findings.
 */
const JUDGE = `
const { compileInspection, inspectListing } = await import(process.cwd() + "/src/inspect/index.ts");
const { loadBlindBenign, loadBlindPoisoned } = await import(process.env.BLIND_SET);
const round = process.env.ROUND;
const compiled = compileInspection({ threshold: "High" });
const high = (result) => [...new Set(result.findings.filter((f) => f.severity === "High" || f.severity === "Critical").map((f) => f.rule))];
const lines = [];
for (const entry of loadBlindPoisoned(round))
  lines.push("p\\t" + high(inspectListing([...entry.neighbours, { server: entry.server, tool: entry.tool }], compiled).at(-1)).join(","));
for (const result of inspectListing(loadBlindBenign(round).map((e) => ({ server: e.package, tool: e.tool })), compiled))
  lines.push("b\\t" + high(result).join(","));
console.log(lines.join("\\n"));
`;

interface Judged {
  round: string;
  poisoned: boolean;
  rules: string[];
}

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
    return output
      .trim()
      .split("\n")
      .map((line) => {
        const [kind, rules = ""] = line.split("\t");
        return { round, poisoned: kind === "p", rules: rules ? rules.split(",") : [] };
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
