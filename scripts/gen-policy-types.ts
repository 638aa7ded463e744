// Regenerates src/policy/spec.generated.ts from the CRD (`npm run gen:types`); a test fails when it is stale.
import { writeFileSync } from "node:fs";
import { renderSpecTypes } from "../src/policy/spec-types.ts";

writeFileSync(new URL("../src/policy/spec.generated.ts", import.meta.url), await renderSpecTypes());
