#!/usr/bin/env node
// kubectl plugin: `kubectl toolwall calls -n agents` runs `toolwall calls -n agents`.
import "../src/cli/entry.ts";
