// Prints the rule table and the corpus detection / false-positive figures of docs/inspection.md.
// Run: node scripts/inspection-report.ts
import { CALIBRATED_TO_MEDIUM } from "../src/inspect/calibration.ts";
import { HIDDEN_TEXT_RULES } from "../src/inspect/normalize.ts";
import { COMPOUND_RULES, PATTERN_RULES } from "../src/inspect/rules.ts";
import { SEVERITIES } from "../src/inspect/types.ts";
import {
  DEV_FAMILIES,
  loadBenign,
  loadDev,
  loadMalicious,
  measure,
  measureDev,
} from "../test/inspect/corpus.ts";

const pct = (n: number, d: number) => `${n}/${d} (${((100 * n) / d).toFixed(1)} %)`;

console.log("| rule | family | severity | fires on |\n|---|---|---|---|");
for (const [id, rule] of Object.entries(HIDDEN_TEXT_RULES))
  console.log(`| \`${id}\` | HiddenInstructions | ${rule.severity} | ${rule.summary} |`);
// A concept split into several trigger sets (intent.fixed-target) is one row: its first summary.
const listed = new Set<string>();
for (const rule of PATTERN_RULES) {
  if (listed.has(rule.id)) continue;
  listed.add(rule.id);
  const severity = CALIBRATED_TO_MEDIUM.has(rule.id) ? "Medium (calibrated)" : rule.severity;
  console.log(`| \`${rule.id}\` | ${rule.category} | ${severity} | ${rule.summary} |`);
}
console.log(
  "| `credential.secret-file-as-value` | CredentialTheft | High | a secret-bearing path as a default/const/enum/example value |",
);
console.log(
  "| `exfil.recipient-as-value` | Exfiltration | High | an e-mail address as a default/const/enum/example value |",
);
for (const rule of COMPOUND_RULES)
  console.log(`| \`${rule.id}\` | ${rule.category} | ${rule.severity} | ${rule.summary} (same string) |`);

const malicious = loadMalicious();
const benign = loadBenign();
console.log("\n| threshold | detection | false positives |\n|---|---|---|");
for (const threshold of SEVERITIES) {
  const r = measure(threshold, malicious, benign);
  console.log(`| ${threshold} | ${pct(r.detected, r.malicious)} | ${pct(r.falsePositives, r.benign)} |`);
}
const high = measure("High", malicious, benign);
console.log("\n| malicious file | detected at High |\n|---|---|");
for (const file of [...new Set(malicious.map((e) => e.file))]) {
  const subset = malicious.filter((e) => e.file === file);
  const missed = high.missed.filter((e) => e.file === file).length;
  console.log(`| ${file} | ${pct(subset.length - missed, subset.length)} |`);
}
console.log("\n| benign package | tools | flagged at High |\n|---|---|---|");
for (const pkg of [...new Set(benign.map((e) => e.package))]) {
  const subset = benign.filter((e) => e.package === pkg);
  const flagged = high.flaggedBenign.filter((e) => e.package === pkg).length;
  console.log(`| ${pkg}@${subset[0]!.version} | ${subset.length} | ${flagged} |`);
}

const dev = loadDev();
/** Development rounds by id prefix: `dev-` is round 1, `devN-` round N. */
const rounds = [...new Set(dev.map((e) => /^dev(\d*)-/.exec(e.id)![1] || "1"))].sort((a, b) => +a - +b);
const inRound = (round: string) => (e: (typeof dev)[number]) =>
  e.id.startsWith(round === "1" ? "dev-" : `dev${round}-`);
console.log(
  `\n| development family | ${rounds.map((r) => `round ${r}`).join(" | ")} | rewrites | injected |\n|---|${rounds.map(() => "---|").join("")}---|---|`,
);
const cell = (entries: typeof dev) => {
  if (entries.length === 0) return "—";
  const figures = [...measureDev("High", entries).values()][0]!;
  return `${figures.detected}/${figures.total}`;
};
for (const family of [...DEV_FAMILIES, "benign" as const]) {
  const of = dev.filter((e) => e.family === family);
  const byRound = rounds.map((round) => cell(of.filter(inRound(round))));
  console.log(
    `| ${family} | ${byRound.join(" | ")} | ${cell(of.filter((e) => e.kind === "rewrite"))} | ${cell(of.filter((e) => e.kind === "injected"))} |`,
  );
}
