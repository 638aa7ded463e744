import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { compileInspection, inspectTool } from "../../src/inspect/index.ts";
import type { DetectorName, Severity, ToolDefinition } from "../../src/inspect/types.ts";

const corpusDir = join(import.meta.dirname, "corpus");

export interface BenignEntry {
  package: string;
  version: string;
  tool: ToolDefinition;
}

export interface MaliciousEntry {
  id: string;
  family: DetectorName;
  channel: string;
  note: string;
  file: string;
  tool: ToolDefinition;
}

/** Every tool of every `{package, version, tools}` listing file in `dir` (the dev corpus by default). */
export function loadBenign(dir = join(corpusDir, "benign")): BenignEntry[] {
  return readdirSync(dir).flatMap((file) => {
    const listing = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
      package: string;
      version: string;
      tools: ToolDefinition[];
    };
    return listing.tools.map((tool) => ({ package: listing.package, version: listing.version, tool }));
  });
}

export function loadMalicious(): MaliciousEntry[] {
  const dir = join(corpusDir, "malicious");
  return readdirSync(dir).flatMap((file) =>
    (JSON.parse(readFileSync(join(dir, file), "utf8")) as Omit<MaliciousEntry, "file">[]).map((entry) => ({
      ...entry,
      file: file.replace(/\.json$/, ""),
    })),
  );
}

export interface Rates {
  detected: number;
  malicious: number;
  falsePositives: number;
  benign: number;
  detectionRate: number;
  falsePositiveRate: number;
  missed: MaliciousEntry[];
  flaggedBenign: BenignEntry[];
}

/** Detection and false-positive rates of the default detectors at a threshold. */
export function measure(threshold: Severity, malicious = loadMalicious(), benign = loadBenign()): Rates {
  const compiled = compileInspection({ threshold });
  const missed = malicious.filter((entry) => !inspectTool(entry.tool, compiled).flagged);
  const flaggedBenign = benign.filter((entry) => inspectTool(entry.tool, compiled).flagged);
  return {
    detected: malicious.length - missed.length,
    malicious: malicious.length,
    falsePositives: flaggedBenign.length,
    benign: benign.length,
    detectionRate: (malicious.length - missed.length) / malicious.length,
    falsePositiveRate: flaggedBenign.length / benign.length,
    missed,
    flaggedBenign,
  };
}
