import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { compileInspection, inspectTool } from "../../src/inspect/index.ts";
import { inspectListing } from "../../src/inspect/listing.ts";
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
/**
 * Real servers whose tools are documented mostly in a non-Latin script (Chinese, Korean, Russian,
 * Japanese, Arabic; `scripts/collect-benign-tools.ts --intl`).
 */
export const INTL_BENIGN_DIR = join(corpusDir, "benign-intl");

/**
 * Real servers whose tools are documented mostly in a Latin-script language other than English
 * (Spanish, Portuguese, Turkish, French, Indonesian, Italian, German …;
 * `scripts/collect-benign-tools.ts --intl-latin`).
 */
export const INTL_LATIN_BENIGN_DIR = join(corpusDir, "benign-intl-latin");

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

/**
 * Harmless tool definitions in plain English, written for this corpus by writers who also write
 * poisoned ones (test/inspect/corpus/plain/<writer>.json): the register of tutorials, demos and small
 * servers, with the ordinary guidance real tools give the model. The phrasing model learns them as
 * benign so that it tells harm from the writers' register (a demo's "Returns the weather for a city."
 * had scored 5.5, High).
 */
export interface PlainEntry {
  id: string;
  /** The writer's file: `pba` for test/inspect/corpus/plain/pba.json. */
  writer: string;
  server: string;
  tool: ToolDefinition;
}

/**
 * The plain benign definitions the phrasing model learns (`plain`), or those it never learns and
 * that measure, held out, how often it still mistakes the register for harm (`plain-heldout`: six
 * more writers; learning them too moved the held-out folds' trade-off the wrong way, see
 * docs/inspection.md).
 */
export function loadPlain(set: "plain" | "plain-heldout" = "plain"): PlainEntry[] {
  const dir = join(corpusDir, set);
  return readdirSync(dir)
    .filter((file) => file.endsWith(".json"))
    .flatMap((file) =>
      (JSON.parse(readFileSync(join(dir, file), "utf8")) as Omit<PlainEntry, "writer">[]).map((entry) => ({
        ...entry,
        writer: file.replace(/\.json$/, ""),
      })),
    );
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

/** Attack families of the development set (names from the public poisoning taxonomies). */
export const DEV_FAMILIES = [
  "command-injection",
  "dependency-injection",
  "redirection",
  "fs-network",
  "preference",
  "shadowing",
  "overlap",
] as const;

/** One development example: a poisoned (or, for family `benign`, a tricky but harmless) definition. */
export interface DevEntry {
  id: string;
  family: (typeof DEV_FAMILIES)[number] | "benign";
  style: string;
  /** `rewrite` of a real tool, an `injected` tool, or `benign`. */
  kind: "rewrite" | "injected" | "benign";
  tool: ToolDefinition;
  /** Server offering the tool when it is judged with neighbours. */
  server?: string;
  /** Tools of other servers listed next to it (shadowing, overlap). */
  neighbours?: { server: string; tool: ToolDefinition }[];
}

/** The development set written for the intent and listing analysis: test/inspect/corpus/dev-*.json. */
export function loadDev(): DevEntry[] {
  return readdirSync(corpusDir)
    .filter((file) => file.startsWith("dev-") && file.endsWith(".json"))
    .flatMap((file) => JSON.parse(readFileSync(join(corpusDir, file), "utf8")) as DevEntry[]);
}

/** Detection per development family at a threshold, each example judged after its neighbours. */
export function measureDev(
  threshold: Severity,
  dev = loadDev(),
): Map<DevEntry["family"], { detected: number; total: number; missed: string[] }> {
  const compiled = compileInspection({ threshold });
  const out = new Map<DevEntry["family"], { detected: number; total: number; missed: string[] }>();
  for (const entry of dev) {
    const listing = [...(entry.neighbours ?? []), { server: entry.server ?? "dev", tool: entry.tool }];
    const flagged = inspectListing(listing, compiled).at(-1)!.flagged;
    const figures = out.get(entry.family) ?? { detected: 0, total: 0, missed: [] };
    figures.total++;
    if (flagged) figures.detected++;
    else figures.missed.push(entry.id);
    out.set(entry.family, figures);
  }
  return out;
}
