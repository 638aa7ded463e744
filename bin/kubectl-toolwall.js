#!/usr/bin/env node
// kubectl plugin: `kubectl toolwall calls -n agents` runs `toolwall calls -n agents`.
import { main } from "../src/cli/main.ts";

process.exitCode = await main(process.argv.slice(2));
