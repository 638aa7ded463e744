// Trains the phrasing model's two tables (src/inspect/phrasing.ts) from the repository's development
// data and the retired blind rounds it learns (TRAINING_ROUNDS), and writes src/inspect/phrasing-model.bin
// and src/inspect/phrasing-model-other-scripts.bin. Deterministic: the same data gives the same files
// (test/inspect/phrasing.test.ts checks the shipped ones).
// Run: node scripts/train-phrasing-model.ts
import { writeFileSync } from "node:fs";
import { encodePhrasingModel, PHRASING_MODEL_FILES, type ProseScript } from "../src/inspect/phrasing.ts";
import { TRAINING_ROUNDS, trainPhrasingTable } from "../test/inspect/phrasing-training.ts";

for (const script of ["latin", "other"] as const satisfies readonly ProseScript[]) {
  const { set, model } = trainPhrasingTable(script);
  writeFileSync(PHRASING_MODEL_FILES[script], encodePhrasingModel(model));
  console.log(
    `${PHRASING_MODEL_FILES[script].pathname}: ${set.positive.length} planted and ${set.negative.length} benign sentences, blind rounds ${TRAINING_ROUNDS.join(", ")}`,
  );
}
