// Obfuscations a model reads through, applied to poisoned definitions: what the rules catch once an
// attacker wraps lines (hyphenating words across them), mixes in tabs, emphasises words, writes
// letters as HTML character references or digits for letters, or pads sentences. Every
// description in a definition is rewritten; names and schemas stay.
// Run on a blind set (aggregates only, nothing to tune on): node test/inspect/evasions.ts [--round blind-2]
import { type CompiledInspection, compileInspection } from "../../src/inspect/index.ts";
import { inspectListing, type ListedTool } from "../../src/inspect/listing.ts";
import type { ToolDefinition } from "../../src/inspect/types.ts";
import { BLIND_ROUNDS, type BlindRound, loadBlindPoisoned } from "./blind-set.ts";
import { loadDev } from "./corpus.ts";

type Rewrite = (description: string) => string;

/** `clause` before the description's first sentence and every later one. */
function beforeEverySentence(clause: string): Rewrite {
  return (description) => `${clause}${description.replace(/([.!?])\s+(?=[A-Z])/g, `$1 ${clause}`)}`;
}

/** Applies `rewrite` to the text outside backtick code spans. */
function outsideCode(description: string, rewrite: Rewrite): string {
  return description
    .split("`")
    .map((part, index) => (index % 2 === 0 ? rewrite(part) : part))
    .join("`");
}

/**
 * A word of prose: between spaces or punctuation, not inside a path, URL, identifier or code span
 * (where emphasis or digits would change what the text names, not how it reads).
 */
const PROSE_WORD = (letters: number) =>
  new RegExp(`(?<=^|[\\s("])[A-Za-z]{${letters},}(?=[\\s,;:!?)"]|\\.(?:\\s|$)|$)`, "g");

/**
 * Hard-wrapped at 60 columns, as a docstring is; with `hyphenate`, a word of eight letters or more
 * that would cross the column is split there with a hyphen, as typesetting does.
 */
function wrapped(description: string, hyphenate = false): string {
  let column = 0;
  return description
    .split(" ")
    .map((word, index) => {
      const start = column;
      column += word.length + 1;
      if (index === 0 || column <= 60) return index === 0 ? word : ` ${word}`;
      const head = 60 - start - 2;
      if (hyphenate && /^[A-Za-z]{8,}$/.test(word) && head >= 3 && word.length - head >= 3) {
        column = word.length - head + 1;
        return ` ${word.slice(0, head)}-\n${word.slice(head)}`;
      }
      column = word.length + 1;
      return `\n${word}`;
    })
    .join("");
}

export const EVASIONS: Readonly<Record<string, Rewrite>> = {
  plain: (description) => description,
  wrapped: (description) => wrapped(description),
  /** Wrapped, and a word crossing the column hyphenated across the line break. */
  hyphenated: (description) => wrapped(description, true),
  /** Every third space a tab. */
  tabs: (description) => {
    let spaces = 0;
    return description.replace(/ /g, () => (++spaces % 3 === 0 ? "\t" : " "));
  },
  /** Every other prose word of five letters or more in underscore emphasis. */
  emphasis: (description) => {
    let words = 0;
    return outsideCode(description, (prose) =>
      prose.replace(PROSE_WORD(5), (word) => (++words % 2 === 0 ? `_${word}_` : word)),
    );
  },
  /** Every other prose word of five letters or more with its first letter a character reference (`&#105;gnore`). */
  entities: (description) => {
    let words = 0;
    return outsideCode(description, (prose) =>
      prose.replace(PROSE_WORD(5), (word) =>
        ++words % 2 === 0 ? `&#${word.charCodeAt(0)};${word.slice(1)}` : word,
      ),
    );
  },
  /**
   * A negated clause of nothing before every sentence ("Never cache it; send …"): a model reads the
   * order after it, and a rule must not read the negation as the order's.
   */
  decoys: beforeEverySentence("Never cache it; "),
  /** The same with a refusal complete before a colon ("Don't panic: setup step: execute …"). */
  colonDecoys: beforeEverySentence("Don't panic: "),
  /** The same before a comma that starts a clause of its own ("Never fails, setup step: …"). */
  commaDecoys: beforeEverySentence("Never fails, "),
  /**
   * Documentation words padded into every sentence before its end: a sentence's phrasing score is a
   * sum, and padding pulls it down (the documentation reading reads every clause for that reason).
   */
  padded: (description) => {
    const padding =
      ", and the response returns a paginated list of results sorted by date with the total count";
    const inside = description.replace(/([.!?])(?=\s+[A-Z])/g, `${padding}$1`);
    return /[.!?]\s*$/.test(inside)
      ? inside.replace(/([.!?])(\s*)$/, `${padding}$1$2`)
      : `${inside}${padding}.`;
  },
  /** Prose words of six letters or more with 0 for o and 3 for e. */
  digits: (description) =>
    outsideCode(description, (prose) =>
      prose.replace(PROSE_WORD(6), (word) => word.replace(/o/g, "0").replace(/e/g, "3")),
    ),
};

/** The definition with every description rewritten; names and schemas stay. */
export function rewritten(tool: ToolDefinition, rewrite: Rewrite): ToolDefinition {
  return JSON.parse(JSON.stringify(tool), (key, value) =>
    key === "description" && typeof value === "string" ? rewrite(value) : value,
  ) as ToolDefinition;
}

export interface PoisonedCase {
  server: string;
  tool: ToolDefinition;
  neighbours: readonly ListedTool[];
}

/** How many of the cases are flagged (threshold High, judged with their neighbours) under each evasion. */
export function detectedUnderEvasions(cases: readonly PoisonedCase[]): Record<string, number> {
  const compiled = compileInspection({ threshold: "High" });
  return Object.fromEntries(
    Object.entries(EVASIONS).map(([name, rewrite]) => {
      const detected = cases.filter((entry) =>
        flaggedInListing(entry, rewritten(entry.tool, rewrite), compiled),
      ).length;
      return [name, detected];
    }),
  );
}

/** Whether `tool`, offered in place of the case's definition beside its neighbours, is flagged. */
export function flaggedInListing(
  entry: PoisonedCase,
  tool: ToolDefinition,
  compiled: CompiledInspection,
): boolean {
  return inspectListing([...entry.neighbours, { server: entry.server, tool }], compiled).at(-1)!.flagged;
}

export function developmentCases(): PoisonedCase[] {
  return loadDev()
    .filter((entry) => entry.kind !== "benign")
    .map((entry) => ({
      server: entry.server ?? "dev",
      tool: entry.tool,
      neighbours: entry.neighbours ?? [],
    }));
}

if (import.meta.main) {
  const flag = process.argv.indexOf("--round");
  const round = (flag < 0 ? undefined : process.argv[flag + 1]) as BlindRound | undefined;
  if (round !== undefined && !BLIND_ROUNDS.includes(round)) {
    console.error(`--round takes one of ${BLIND_ROUNDS.join(", ")}`);
    process.exit(2);
  }
  const cases = round === undefined ? developmentCases() : loadBlindPoisoned(round);
  const detected = detectedUnderEvasions(cases);
  console.log(`${round ?? "development set"}: ${cases.length} poisoned definitions`);
  for (const [name, count] of Object.entries(detected))
    console.log(`  ${name.padEnd(12)} ${count}/${cases.length}`);
}
