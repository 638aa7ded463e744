// Trains the phrasing model (src/inspect/phrasing.ts) from the repository's development data and
// the retired blind rounds it learns (TRAINING_ROUNDS), and writes src/inspect/phrasing-model.bin. Deterministic: the
// same data gives the same file (test/inspect/phrasing.test.ts checks the shipped one).
// Run: node scripts/train-phrasing-model.ts
import { writeFileSync } from "node:fs";
import { encodePhrasingModel, PHRASING_MODEL_FILE } from "../src/inspect/phrasing.ts";
import {
  phrasingTrainingSet,
  TRAINING_ROUNDS,
  trainPhrasingModel,
} from "../test/inspect/phrasing-training.ts";

const set = phrasingTrainingSet();
const model = trainPhrasingModel(set);
writeFileSync(PHRASING_MODEL_FILE, encodePhrasingModel(model));
console.log(
  `${PHRASING_MODEL_FILE.pathname}: ${set.positive.length} planted and ${set.negative.length} benign sentences, blind rounds ${TRAINING_ROUNDS.join(", ")}`,
);
