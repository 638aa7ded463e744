#!/usr/bin/env node
// Node 24 runs the TypeScript sources directly (type stripping); the image runs the compiled
// dist/cli/entry.js instead (see docs/design.md).
import "../src/cli/entry.ts";
