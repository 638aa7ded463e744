// Trains the phrasing model (src/inspect/phrasing.ts) from this repository's data: the sentences a
// poisoned definition adds to the real tool it rewrites (every sentence of an injected one) against
// every sentence of the real benign tools. Deterministic: the same data gives the same bytes.

import { proseSentences } from "../../src/inspect/engine.ts";
import { compileInspection, type ToolDefinition } from "../../src/inspect/index.ts";
import {
  forEachScoredPiece,
  type PhrasingModel,
  type PhrasingModels,
  type ProseScript,
  visitFeatures,
} from "../../src/inspect/phrasing.ts";
import {
  BLIND_ROUNDS,
  type BlindRound,
  loadBlindBenign,
  loadBlindPoisoned,
  loadDevEdits,
} from "./blind-set.ts";
import { INTL_BENIGN_DIR, loadBenign, loadDev, loadMalicious, loadPlain } from "./corpus.ts";

export const PHRASING_BITS = 20;

export interface PhrasingTrainingSet {
  positive: string[];
  negative: string[];
}

/**
 * The retired blind rounds the shipped model learns from. Never the latest, which measures it. A
 * round joins once the round after it is written, and that round is measured before and after the
 * engine learns it (round 5 joined in the fourth training round, after round 6 had measured the
 * engine without it; round 6 in the fifth, with round 7 measured at that session's start and end).
 * Round 7 was learned and not kept (2026-11-28): its calm statements of behaviour taught the model
 * to read benign ones as planted — Codacy's "extract it … using 'git remote -v'" on 18 real tools,
 * git_commit's "Use git_push afterwards" (4.9) and a German cost tool's credentials sentence — while
 * false positives, not detection, are what the blind rounds still miss.
 */
export const TRAINING_ROUNDS: readonly BlindRound[] = [
  "blind",
  "blind-2",
  "blind-3",
  "blind-4",
  "blind-5",
  "blind-6",
];

/** What a held-out evaluation keeps from the model (phrasing-folds.ts): nothing, for the shipped one. */
export interface HeldOut {
  /** Benign packages whose real tools are neither negatives nor the sources of learned edits. */
  packages: ReadonlySet<string>;
  /** Development edit rounds (an edit id's writer without its letter: `d8`, `d11`) not learned. */
  editRounds: ReadonlySet<string>;
  /** Writers of plain benign definitions (`pba`) not learned. */
  plainWriters?: ReadonlySet<string>;
}

const NOTHING_HELD_OUT: HeldOut = { packages: new Set(), editRounds: new Set() };

/**
 * Data written or collected for the other-script table (the multilingual plain writer, the
 * multilingual edit round, and the real servers of INTL_BENIGN_DIR): the Latin table does not learn
 * their Latin sentences. Retrained with them it moves dozens of verdicts each way across the
 * development and retired sets, the noise of a new training order rather than a gain, and the
 * hand-written honest probes of the tests with them (docs/inspection.md, "Other scripts").
 */
const OTHER_SCRIPT_DATA = { plainWriters: new Set(["pbm"]), editRounds: new Set(["d13"]) };

/** The development round of an edit's writer: `d11` for `d11b-tr-rw-04`. */
export function editRound(id: string): string {
  return id.split("-")[0]!.replace(/[a-z]$/, "");
}

/**
 * The development corpus, the tricky benign set, the plain benign set, the malicious corpus, the
 * development edits and the given blind rounds; the sentences of one script (the model's tables,
 * phrasing.ts). A poisoned tool's positives are the sentences its
 * real source (or, for the development set, a real tool of the same name) does not have, so the
 * rewritten tool's own prose is not learned as poison; a source's sentences are not negatives
 * either unless a benign set holds the tool. A development edit of a tool of a round not given is left out whole, and so is one of a
 * held-out package; a held-out package's or plain writer's sentences are learned neither way.
 */
export function phrasingTrainingSet(
  rounds: readonly BlindRound[] = TRAINING_ROUNDS,
  heldOut: HeldOut = NOTHING_HELD_OUT,
  script: ProseScript = "latin",
): PhrasingTrainingSet {
  const compiled = compileInspection();
  const read = (tool: ToolDefinition) =>
    proseSentences(tool, compiled).flatMap((sentence) => {
      const pieces: string[] = [];
      forEachScoredPiece(sentence, [sentence.length], (read, start, end) => {
        if (read === script) pieces.push(sentence.slice(start, end));
      });
      return pieces;
    });
  const benign = [
    ...loadBenign(),
    ...(script === "other" ? loadBenign(INTL_BENIGN_DIR) : []),
    ...rounds.flatMap((round) => loadBlindBenign(round)),
  ];
  const dev = loadDev();
  const negative = new Set<string>();
  const held = new Set<string>();
  const byName = new Map<string, Set<string>>();
  for (const entry of benign) {
    const known = byName.get(entry.tool.name) ?? new Set<string>();
    for (const sentence of read(entry.tool)) {
      (heldOut.packages.has(entry.package) ? held : negative).add(sentence);
      known.add(sentence);
    }
    byName.set(entry.tool.name, known);
  }
  for (const entry of dev)
    if (entry.kind === "benign") for (const sentence of read(entry.tool)) negative.add(sentence);
  const learnedBy = (set: "plainWriters" | "editRounds", name: string) =>
    script === "other" || !OTHER_SCRIPT_DATA[set].has(name);
  for (const entry of loadPlain())
    if (learnedBy("plainWriters", entry.writer))
      for (const sentence of read(entry.tool))
        (heldOut.plainWriters?.has(entry.writer) ? held : negative).add(sentence);
  const positive = new Set<string>();
  const addPoisoned = (tool: ToolDefinition, source?: ToolDefinition) => {
    const known = source ? new Set(read(source)) : (byName.get(tool.name) ?? new Set<string>());
    for (const sentence of read(tool))
      if (!known.has(sentence) && !negative.has(sentence) && !held.has(sentence)) positive.add(sentence);
  };
  for (const entry of dev) if (entry.kind !== "benign") addPoisoned(entry.tool);
  for (const entry of loadMalicious()) addPoisoned(entry.tool);
  // An edit of a round's real tool is learned only with the round: its writer may have copied much of
  // the real text into a new sentence, which would teach the model the round's own vendor.
  const unseen = new Set([
    ...BLIND_ROUNDS.filter((round) => !rounds.includes(round)).flatMap((round) =>
      loadBlindBenign(round).map((entry) => entry.package),
    ),
    ...heldOut.packages,
  ]);
  for (const entry of loadDevEdits())
    if (
      learnedBy("editRounds", editRound(entry.id)) &&
      !heldOut.editRounds.has(editRound(entry.id)) &&
      (!entry.source || !unseen.has(entry.source.package))
    )
      addPoisoned(entry.tool, entry.sourceTool);
  for (const round of rounds)
    for (const entry of loadBlindPoisoned(round)) addPoisoned(entry.tool, entry.sourceTool);
  return { positive: [...positive], negative: [...negative] };
}

export interface PhrasingTraining {
  epochs: number;
  /** The last epochs whose weights are averaged into the model (Polyak averaging). */
  averagedEpochs: number;
  /** How much more a planted sentence weighs than a benign one (there are ~15× fewer). */
  positiveWeight: number;
  bits: number;
  /** PhrasingModel.collapsesLatin. */
  collapsesLatin: boolean;
  /**
   * How many shuffled orders of the examples are trained from scratch and averaged: one order's
   * weights move with any change of the data (two sentences fewer flipped three real tools of the
   * other-script table), their average much less.
   */
  orders: number;
}

export const PHRASING_TRAINING: Readonly<Record<ProseScript, PhrasingTraining>> = {
  latin: {
    epochs: 3,
    averagedEpochs: 2,
    positiveWeight: 3,
    bits: PHRASING_BITS,
    collapsesLatin: false,
    orders: 1,
  },
  /**
   * Other scripts: a smaller table for some seven thousand sentences, Latin runs read as one token
   * (PhrasingModel.collapsesLatin), twice the epochs, which its few sentences need to fit the
   * development corpus's real tools (with three, Chinese documentation it had learned as benign still
   * scored above High), and five orders averaged. Chosen on the blind rounds the model never learns
   * (7 …; docs/inspection.md, "The phrasing model").
   */
  other: { epochs: 6, averagedEpochs: 4, positiveWeight: 3, bits: 18, collapsesLatin: true, orders: 5 },
};

/** Every how many examples the running weights are added to the average. */
const AVERAGE_EVERY = 64;

/**
 * Logistic regression with AdaGrad over hashed features, quantised to signed bytes. The model is the
 * average of the weights over the last epochs rather than the last weights: the rounds scored by a
 * model trained without them gained detections and lost false positives (docs/inspection.md).
 */
export function trainPhrasingModel(
  set: PhrasingTrainingSet,
  options: PhrasingTraining = PHRASING_TRAINING.latin,
): PhrasingModel {
  const size = 1 << options.bits;
  const features = (sentence: string) => {
    const out: number[] = [];
    visitFeatures(sentence, 0, sentence.length, options.bits, options.collapsesLatin, (index) =>
      out.push(index),
    );
    return Int32Array.from(out);
  };
  const examples: [Int32Array, 0 | 1][] = [
    ...set.positive.map((s): [Int32Array, 0 | 1] => [features(s), 1]),
    ...set.negative.map((s): [Int32Array, 0 | 1] => [features(s), 0]),
  ];
  const averaged = new Float64Array(size);
  let averagedBias = 0;
  let samples = 0;
  for (let order = 1; order <= options.orders; order++) {
    const weights = new Float64Array(size);
    const squared = new Float64Array(size).fill(1e-8);
    let bias = 0;
    let step = 0;
    let seed = order;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    for (let epoch = 0; epoch < options.epochs; epoch++) {
      for (let i = examples.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [examples[i], examples[j]] = [examples[j]!, examples[i]!];
      }
      for (const [indices, label] of examples) {
        let z = bias;
        for (const k of indices) z += weights[k]!;
        const gradient = (1 / (1 + Math.exp(-z)) - label) * (label ? options.positiveWeight : 1);
        bias -= 0.01 * gradient;
        for (const k of indices) {
          squared[k]! += gradient * gradient;
          weights[k]! -= (0.2 * gradient) / Math.sqrt(squared[k]!);
        }
        if (epoch >= options.epochs - options.averagedEpochs && ++step % AVERAGE_EVERY === 0) {
          for (let k = 0; k < size; k++) averaged[k]! += weights[k]!;
          averagedBias += bias;
          samples++;
        }
      }
    }
  }
  for (let k = 0; k < size; k++) averaged[k]! /= samples;
  let largest = 0;
  for (const w of averaged) largest = Math.max(largest, Math.abs(w));
  const scale = largest / 127 || 1;
  const quantised = new Int8Array(size);
  for (let k = 0; k < size; k++) quantised[k] = Math.round(averaged[k]! / scale);
  return {
    bits: options.bits,
    collapsesLatin: options.collapsesLatin,
    bias: Number((averagedBias / samples).toFixed(6)),
    scale: Number(scale.toPrecision(8)),
    weights: quantised,
  };
}

/** One table of the model: its training set and what it learns from it with its options. */
export function trainPhrasingTable(
  script: ProseScript,
  rounds: readonly BlindRound[] = TRAINING_ROUNDS,
  heldOut: HeldOut = NOTHING_HELD_OUT,
): { set: PhrasingTrainingSet; model: PhrasingModel } {
  const set = phrasingTrainingSet(rounds, heldOut, script);
  return { set, model: trainPhrasingModel(set, PHRASING_TRAINING[script]) };
}

/** Both tables of the model, each from its script's sentences of the same data. */
export function trainPhrasingModels(
  rounds: readonly BlindRound[] = TRAINING_ROUNDS,
  heldOut: HeldOut = NOTHING_HELD_OUT,
): PhrasingModels {
  return {
    latin: trainPhrasingTable("latin", rounds, heldOut).model,
    other: trainPhrasingTable("other", rounds, heldOut).model,
  };
}
