// A word of the poisoned development definitions replaced by a common synonym in every description:
// how many detections each replacement loses. Paraphrase is an attacker's cheapest move against word
// lists; a large loss points at a rule that names a concept by one word (see READ_ALIKE in
// src/inspect/rules.ts). Development set only: the blind sets are measured as a whole.
// Run: node test/inspect/substitutions.ts [word=synonym …]   (default: SUBSTITUTIONS)
import { PHRASING_RULE } from "../../src/inspect/engine.ts";
import { type CompiledInspection, compileInspection, inspectListing } from "../../src/inspect/index.ts";
import { severityRank, type ToolDefinition } from "../../src/inspect/types.ts";
import { developmentCases, type PoisonedCase, rewritten } from "./evasions.ts";

/** Word → the synonym put in its place (matched as a whole word, any case; a capital kept). */
export const SUBSTITUTIONS: readonly (readonly [string, string])[] = [
  ["user", "human"],
  ["user", "requester"],
  ["user", "operator"],
  ["use", "employ"],
  ["tool", "utility"],
  ["server", "backend"],
  ["instead", "rather"],
  ["run", "launch"],
  ["call", "invoke"],
  ["before", "ahead of"],
];

function substituted(tool: ToolDefinition, word: string, synonym: string): ToolDefinition {
  const whole = new RegExp(`\\b${word}\\b`, "gi");
  return rewritten(tool, (text) =>
    text.replace(whole, (found) =>
      found[0] === found[0]!.toUpperCase() ? synonym[0]!.toUpperCase() + synonym.slice(1) : synonym,
    ),
  );
}

/**
 * Whether the rules flag the tool in its listing. The phrasing model is left out: it reads every
 * word, so a synonym it never saw moves its score as much as any other edit, and its in-sample
 * detections would hide what this measures — a rule that names a concept by one word.
 */
function rulesFlag(entry: PoisonedCase, tool: ToolDefinition, compiled: CompiledInspection): boolean {
  return inspectListing([...entry.neighbours, { server: entry.server, tool }], compiled)
    .at(-1)!
    .findings.some((f) => f.rule !== PHRASING_RULE && severityRank[f.severity] >= severityRank.High);
}

/** For each substitution: the flagged definitions whose descriptions hold the word, and how many it unflags. */
export function lostUnderSubstitutions(
  cases: readonly PoisonedCase[],
  substitutions: readonly (readonly [string, string])[] = SUBSTITUTIONS,
): { word: string; synonym: string; touched: number; lost: number }[] {
  const compiled = compileInspection({ threshold: "Low" });
  const detected = cases.filter((entry) => rulesFlag(entry, entry.tool, compiled));
  return substitutions.map(([word, synonym]) => {
    const holds = new RegExp(`\\b${word}\\b`, "i");
    const touched = detected.filter((entry) => holds.test(JSON.stringify(entry.tool)));
    const lost = touched.filter(
      (entry) => !rulesFlag(entry, substituted(entry.tool, word, synonym), compiled),
    ).length;
    return { word, synonym, touched: touched.length, lost };
  });
}

if (import.meta.main) {
  const given = process.argv.slice(2).map((pair) => pair.split("=") as [string, string]);
  for (const { word, synonym, touched, lost } of lostUnderSubstitutions(
    developmentCases(),
    given.length > 0 ? given : SUBSTITUTIONS,
  ))
    console.log(`${`${word} -> ${synonym}`.padEnd(24)} lost ${lost} of ${touched}`);
}
