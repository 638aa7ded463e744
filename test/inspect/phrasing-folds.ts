// The phrasing model scored on data it did not learn, in folds: each retired blind round the model
// learns (TRAINING_ROUNDS: its poisoned definitions and its real tools), and each development edit
// round (d8 … d13, its edits) with a share of the development corpus's packages (their real tools),
// and each writer of plain benign definitions (test/inspect/corpus/plain/). A fold's model is trained
// without the fold (phrasingTrainingSet's HeldOut); the rules judge every tool without the model, and
// the model adds a tool the rules leave unflagged when its best sentence scores above `high`, or above
// `low` next to a finding of the rules that no framing cleared — as the engine does.
// What thresholds, features and training are chosen on (docs/inspection.md); never the latest blind
// round, which measures the result.
// Run: node test/inspect/phrasing-folds.ts [--grid '[[5,4],[6,4]]']
import { createHash } from "node:crypto";
import { corroboratesPhrasing, PHRASING_RULE, proseSentences } from "../../src/inspect/engine.ts";
import {
  compileInspection,
  type Finding,
  inspectListing,
  type ToolDefinition,
} from "../../src/inspect/index.ts";
import { bestSentence, PHRASING_HIGH, PHRASING_MEDIUM } from "../../src/inspect/phrasing.ts";
import {
  type BlindPoisoned,
  type BlindRound,
  loadBlindBenign,
  loadBlindPoisoned,
  loadDevEdits,
} from "./blind-set.ts";
import { type BenignEntry, loadBenign, loadPlain } from "./corpus.ts";
import { editRound, type HeldOut, TRAINING_ROUNDS, trainPhrasingModels } from "./phrasing-training.ts";

interface Fold {
  name: string;
  rounds: BlindRound[];
  heldOut: HeldOut;
  poisoned: BlindPoisoned[];
  benign: BenignEntry[];
}

const RETIRED = [...TRAINING_ROUNDS];
const EDIT_ROUNDS = ["d8", "d9", "d10", "d11", "d12", "d13"];

function folds(): Fold[] {
  const corpus = loadBenign();
  const plain = loadPlain();
  const plainWriters = [...new Set(plain.map((entry) => entry.writer))].sort();
  const edits = loadDevEdits();
  const share = (name: string) => createHash("sha256").update(name).digest()[0]! % EDIT_ROUNDS.length;
  return [
    ...RETIRED.map((round) => {
      const benign = loadBlindBenign(round);
      return {
        name: round,
        rounds: RETIRED.filter((other) => other !== round),
        heldOut: { packages: new Set(benign.map((entry) => entry.package)), editRounds: new Set<string>() },
        poisoned: loadBlindPoisoned(round),
        benign,
      };
    }),
    ...EDIT_ROUNDS.map((editRoundName, index) => {
      const benign = corpus.filter((entry) => share(entry.package) === index);
      return {
        name: editRoundName,
        rounds: [...RETIRED],
        heldOut: {
          packages: new Set(benign.map((entry) => entry.package)),
          editRounds: new Set([editRoundName]),
        },
        poisoned: edits.filter((entry) => editRound(entry.id) === editRoundName),
        benign,
      };
    }),
    ...plainWriters.map((writer) => ({
      name: writer,
      rounds: [...RETIRED],
      heldOut: {
        packages: new Set<string>(),
        editRounds: new Set<string>(),
        plainWriters: new Set([writer]),
      },
      poisoned: [],
      benign: plain
        .filter((entry) => entry.writer === writer)
        .map((entry) => ({ package: entry.server, version: "", tool: entry.tool })),
    })),
  ];
}

/** The rules' verdict without the model: flagged at High, and whether any finding corroborates (engine.ts). */
function rulesVerdict(findings: readonly Finding[]) {
  const rules = findings.filter((finding) => finding.rule !== PHRASING_RULE);
  return {
    flagged: rules.some((finding) => finding.severity === "High" || finding.severity === "Critical"),
    corroborated: rules.some(corroboratesPhrasing),
  };
}

interface Scored {
  score: number;
  flagged: boolean;
  corroborated: boolean;
}

const gridFlag = process.argv.indexOf("--grid");
const grid: [number, number][] =
  gridFlag < 0
    ? [
        [PHRASING_HIGH, PHRASING_MEDIUM],
        [PHRASING_HIGH + 1, PHRASING_MEDIUM],
        [PHRASING_HIGH, PHRASING_MEDIUM + 0.5],
        [PHRASING_HIGH - 0.5, PHRASING_MEDIUM],
      ]
    : JSON.parse(process.argv[gridFlag + 1]!);
const low = compileInspection({ threshold: "Low" });
const added = grid.map(() => ({ detected: [] as number[], falsePositives: [] as number[] }));
const sizes: string[] = [];
for (const fold of folds()) {
  const models = trainPhrasingModels(fold.rounds, fold.heldOut);
  const best = (tool: ToolDefinition) => {
    let score = Number.NEGATIVE_INFINITY;
    for (const sentence of proseSentences(tool, low))
      score = Math.max(score, bestSentence(models, sentence, [sentence.length]).score);
    return score;
  };
  const poisoned: Scored[] = fold.poisoned.map((entry) => ({
    score: best(entry.tool),
    ...rulesVerdict(
      inspectListing([...entry.neighbours, { server: entry.server, tool: entry.tool }], low).at(-1)!.findings,
    ),
  }));
  const judged = inspectListing(
    fold.benign.map((entry) => ({ server: entry.package, tool: entry.tool })),
    low,
  );
  const benign: Scored[] = fold.benign.map((entry, i) => ({
    score: best(entry.tool),
    ...rulesVerdict(judged[i]!.findings),
  }));
  sizes.push(
    `${fold.name}: rules ${poisoned.filter((s) => s.flagged).length}/${poisoned.length}, ` +
      `${benign.filter((s) => s.flagged).length}/${benign.length} false positives`,
  );
  grid.forEach(([high, medium], g) => {
    const adds = (s: Scored) => !s.flagged && (s.score > high || (s.score > medium && s.corroborated));
    added[g]!.detected.push(poisoned.filter(adds).length);
    added[g]!.falsePositives.push(benign.filter(adds).length);
  });
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const editsEnd = RETIRED.length + EDIT_ROUNDS.length;
/** A total and its parts: retired rounds, edit rounds, plain benign writers. */
const parts = (values: number[]) =>
  `${sum(values)} (${sum(values.slice(0, RETIRED.length))} + ${sum(values.slice(RETIRED.length, editsEnd))} + ${sum(values.slice(editsEnd))})`;
console.log(sizes.join("\n"));
console.log(
  "\n| High above | Medium above | detections added (rounds + edits + plain) | false positives added (rounds + edits + plain) |\n|---|---|---|---|",
);
grid.forEach(([high, medium], g) => {
  const { detected, falsePositives } = added[g]!;
  console.log(`| ${high} | ${medium} | ${parts(detected)} | ${parts(falsePositives)} |`);
});
