// The blind evaluation sets of issue 12 (test/inspect/blind/, test/inspect/blind-2/ … test/inspect/blind-8/, one per round):
// real benign tools from packages no earlier set contains, and poisoned definitions written without
// reading the rules.
// A poisoned rewrite is stored as its real source tool plus the edits an attacker made, so the
// definition served is the real one with a sentence or parameter added; the loader applies the
// edits and refuses an entry whose source or edit target does not exist.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { compileInspection, inspectListing, inspectTool, type ListedTool } from "../../src/inspect/index.ts";
import type { Severity, ToolDefinition } from "../../src/inspect/types.ts";
import { type BenignEntry, loadBenign } from "./corpus.ts";

const devBenignDir = join(import.meta.dirname, "corpus", "benign");

/**
 * The blind rounds, oldest first: each is measured before and after one round of changes (rules,
 * the phrasing model) and then retired to development data (the rules may be tuned on it, the model
 * learns from it), so only the latest one counts.
 */
export const BLIND_ROUNDS = [
  "blind",
  "blind-2",
  "blind-3",
  "blind-4",
  "blind-5",
  "blind-6",
  "blind-7",
  "blind-8",
  "blind-9",
  "blind-10",
  "blind-11",
  "blind-12",
  "blind-13",
  "blind-14",
  "blind-15",
  "blind-16",
  "blind-17",
  "blind-18",
  "blind-19",
] as const;
export type BlindRound = (typeof BLIND_ROUNDS)[number];
export const LATEST_BLIND_ROUND: BlindRound = "blind-19";

export function blindRoundDir(round: BlindRound): string {
  return join(import.meta.dirname, round);
}

/** Attack families of the public poisoning taxonomies named in issue 12; one file each in blind/poisoned/. */
export const BLIND_FAMILIES = [
  "command-injection",
  "dependency-injection",
  "tool-redirection",
  "filesystem-poisoning",
  "network-poisoning",
  "tool-shadowing",
  "preference-manipulation",
  "function-overlapping",
] as const;
export type BlindFamily = (typeof BLIND_FAMILIES)[number];

/** Families that are about a tool among its neighbours: each entry names the tools it competes with. */
export const LISTING_FAMILIES: readonly BlindFamily[] = [
  "tool-shadowing",
  "preference-manipulation",
  "function-overlapping",
];

export const BLIND_KINDS = ["rewrite", "injected"] as const;
export type BlindKind = (typeof BLIND_KINDS)[number];

/** A real tool of a benign listing, blind or development corpus. */
export interface ToolRef {
  package: string;
  tool: string;
}

/** One change an attacker makes to a real definition; `at` is a JSON path into the tool. */
export type Edit =
  | { at: string[]; append: string }
  | { at: string[]; prepend: string }
  | { at: string[]; insertAfter: string; text: string }
  | { at: string[]; set: unknown }
  | { at: string[]; push: unknown };

interface StoredEntry {
  id: string;
  kind: BlindKind;
  style: string;
  note: string;
  /** The server the poisoned tool is served from: the source package for a rewrite served in place. */
  server: string;
  source?: ToolRef;
  edits?: Edit[];
  tool?: ToolDefinition;
  neighbours?: ToolRef[];
}

export type { ListedTool };

export interface BlindPoisoned {
  id: string;
  family: BlindFamily;
  kind: BlindKind;
  style: string;
  note: string;
  server: string;
  source?: ToolRef;
  /** A rewrite's real source definition, unedited. */
  sourceTool?: ToolDefinition;
  tool: ToolDefinition;
  /** The legitimate tools a listing-level family is judged with (empty for the other families). */
  neighbours: ListedTool[];
}

export function loadBlindBenign(round: BlindRound = LATEST_BLIND_ROUND): BenignEntry[] {
  const dir = join(blindRoundDir(round), "benign");
  return existsSync(dir) ? loadBenign(dir) : [];
}

/**
 * Every tool name each server of a round listed (the collector's `listedNames`, recorded from round
 * 14 on): the tools kept are a sample of at most 30, while a client sees the whole listing, and the
 * kept tools' descriptions name siblings the sample left out. Empty for rounds without it.
 */
function loadBlindListedNames(round: BlindRound): Map<string, readonly string[]> {
  const dir = join(blindRoundDir(round), "benign");
  const names = new Map<string, readonly string[]>();
  if (!existsSync(dir)) return names;
  for (const file of readdirSync(dir)) {
    const listing = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
      package: string;
      listedNames?: string[];
    };
    if (listing.listedNames) names.set(listing.package, listing.listedNames);
  }
  return names;
}

/**
 * The tool names each known server lists: its `listedNames` where the collector recorded them, else
 * the names of the tools collected (development corpus and every round) — what a poisoned rewrite's
 * server and a benign server also offer beside the tool judged.
 */
export function loadServerToolNames(): Map<string, readonly string[]> {
  const names = new Map<string, string[]>();
  for (const entry of everyBenign()) {
    const known = names.get(entry.package) ?? [];
    if (typeof entry.tool.name === "string") known.push(entry.tool.name);
    names.set(entry.package, known);
  }
  const listed = new Map<string, readonly string[]>(names);
  for (const round of BLIND_ROUNDS)
    for (const [server, all] of loadBlindListedNames(round)) listed.set(server, all);
  return listed;
}

/**
 * The tools a server listed beyond those kept, as name-only definitions: what the listing judge
 * knows of them is their names (siblings a description may call, names another server may copy).
 */
function unkeptSiblings(
  server: string,
  kept: readonly ToolDefinition[],
  listedNames: ReadonlyMap<string, readonly string[]>,
): ListedTool[] {
  const keptNames = new Set(kept.map((tool) => tool.name));
  return (listedNames.get(server) ?? [])
    .filter((name) => !keptNames.has(name))
    .map((name) => ({ server, tool: { name } }));
}

/** Every real benign tool of the development corpus and of all rounds. */
function everyBenign(): BenignEntry[] {
  return [...loadBenign(devBenignDir), ...BLIND_ROUNDS.flatMap((round) => loadBlindBenign(round))];
}

/** Every real benign tool a poisoned entry may rewrite or name as a neighbour, by package and name. */
function benignIndex(): Map<string, BenignEntry> {
  const index = new Map<string, BenignEntry>();
  for (const entry of everyBenign()) index.set(`${entry.package}\u0000${entry.tool.name}`, entry);
  return index;
}

function resolveRef(index: Map<string, BenignEntry>, ref: ToolRef, id: string): BenignEntry {
  const entry = index.get(`${ref.package}\u0000${ref.tool}`);
  if (!entry) throw new Error(`${id}: no benign tool ${ref.tool} of ${ref.package}`);
  return entry;
}

function container(root: unknown, path: string[], id: string): Record<string, unknown> {
  let node = root;
  for (const key of path) {
    if (typeof node !== "object" || node === null || !(key in node)) {
      throw new Error(`${id}: edit path ${path.join(".")} does not exist at ${key}`);
    }
    node = (node as Record<string, unknown>)[key];
  }
  if (typeof node !== "object" || node === null) throw new Error(`${id}: ${path.join(".")} is not an object`);
  return node as Record<string, unknown>;
}

function applyEdit(tool: Record<string, unknown>, edit: Edit, id: string): void {
  const parent = container(tool, edit.at.slice(0, -1), id);
  const key = edit.at[edit.at.length - 1] ?? "";
  const current = parent[key];
  const where = edit.at.join(".");
  if ("set" in edit) {
    parent[key] = edit.set;
  } else if ("push" in edit) {
    if (!Array.isArray(current)) throw new Error(`${id}: ${where} is not an array`);
    current.push(edit.push);
  } else {
    if (typeof current !== "string") throw new Error(`${id}: ${where} is not a string`);
    if ("append" in edit) parent[key] = current + edit.append;
    else if ("prepend" in edit) parent[key] = edit.prepend + current;
    else {
      const at = current.indexOf(edit.insertAfter);
      if (at < 0) throw new Error(`${id}: ${where} does not contain ${JSON.stringify(edit.insertAfter)}`);
      const end = at + edit.insertAfter.length;
      parent[key] = current.slice(0, end) + edit.text + current.slice(end);
    }
  }
}

function materialise(stored: StoredEntry, index: Map<string, BenignEntry>): ToolDefinition {
  if (stored.kind === "injected") {
    if (!stored.tool || stored.source || stored.edits) {
      throw new Error(`${stored.id}: an injected entry has a tool and no source or edits`);
    }
    return stored.tool;
  }
  if (!stored.source || !stored.edits?.length || stored.tool) {
    throw new Error(`${stored.id}: a rewrite has a source and edits and no tool`);
  }
  return applyEdits(resolveRef(index, stored.source, stored.id).tool, stored.edits, stored.id);
}

/** The source definition with the edits applied (the source is not changed); errors name `id`. */
export function applyEdits(source: ToolDefinition, edits: readonly Edit[], id: string): ToolDefinition {
  const tool = structuredClone(source) as unknown as Record<string, unknown>;
  for (const edit of edits) applyEdit(tool, edit, id);
  return tool as unknown as ToolDefinition;
}

export function loadBlindPoisoned(round: BlindRound = LATEST_BLIND_ROUND): BlindPoisoned[] {
  return loadPoisonedDir(join(blindRoundDir(round), "poisoned"));
}

/**
 * Development data written in the blind rounds' format (source plus edits) after the rounds showed
 * that the phrasing model learns from every writer: rounds 8-10 of issue 12, three writers each,
 * never blind.
 */
export const DEV_EDITS_DIR = join(import.meta.dirname, "corpus", "edits");

export function loadDevEdits(): BlindPoisoned[] {
  return loadPoisonedDir(DEV_EDITS_DIR);
}

/** The poisoned entries of one folder of <family>.json files (a round's, or a writer's draft). */
export function loadPoisonedDir(dir: string): BlindPoisoned[] {
  const index = benignIndex();
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((file) => {
    const family = basename(file, ".json") as BlindFamily;
    if (!BLIND_FAMILIES.includes(family)) throw new Error(`${dir}/${file}: not a family of BLIND_FAMILIES`);
    const stored = JSON.parse(readFileSync(join(dir, file), "utf8")) as StoredEntry[];
    return stored.map((entry) => ({
      id: entry.id,
      family,
      kind: entry.kind,
      style: entry.style,
      note: entry.note,
      server: entry.server,
      ...(entry.source
        ? { source: entry.source, sourceTool: resolveRef(index, entry.source, entry.id).tool }
        : {}),
      tool: materialise(entry, index),
      neighbours: (entry.neighbours ?? []).map((ref) => ({
        server: ref.package,
        tool: resolveRef(index, ref, entry.id).tool,
      })),
    }));
  });
}

/** Whether each tool of a listing is flagged, in listing order. */
export type ListingJudge = (listing: readonly ListedTool[]) => boolean[];

/** Judges every tool on its own with the default detectors at a threshold (single-tool rules only). */
export function judgeEachAlone(threshold: Severity): ListingJudge {
  const compiled = compileInspection({ threshold });
  return (listing) => listing.map((entry) => inspectTool(entry.tool, compiled).flagged);
}

/** Judges every tool with the tools listed before it on other servers, as the MCP catalog does. */
export function judgeWithListing(threshold: Severity): ListingJudge {
  const compiled = compileInspection({ threshold });
  return (listing) => inspectListing(listing, compiled).map((result) => result.flagged);
}

export interface Tally {
  detected: number;
  total: number;
}

export interface BlindReport {
  poisoned: number;
  rewrites: number;
  injected: number;
  benign: number;
  packages: string[];
  byFamily: Record<BlindFamily, Record<BlindKind | "all", Tally>>;
  byKind: Record<BlindKind, Tally>;
  /**
   * Rewrites whose real source the judge does not flag by itself: a rewrite of a tool already flagged
   * counts as detected whatever its edit says, so this is the rewrite figure that measures the edits.
   */
  rewritesOfCleanSources: Tally;
  overall: Tally;
  falsePositives: { package: string; tool: string }[];
  /**
   * The same benign tools with each server judged as a listing of its own: an agent's listing holds
   * a few servers, rarely two vendors of one domain, so the listing rules meet fewer names by chance
   * than in the round's one listing of every server.
   */
  falsePositivesServerByServer: { package: string; tool: string }[];
  /** Per poisoned entry, in load order. */
  results: { id: string; family: BlindFamily; kind: BlindKind; detected: boolean }[];
}

/**
 * Runs a judge over the blind set: each poisoned tool in a listing with its neighbours (served by
 * the neighbours' packages, the poisoned tool last), and the blind benign tools as one listing of
 * all their servers.
 */
export function evaluateBlind(
  judge: ListingJudge,
  poisoned: readonly BlindPoisoned[],
  benign: readonly BenignEntry[],
  listedNames: ReadonlyMap<string, readonly string[]> = new Map(),
): BlindReport {
  const tally = (): Tally => ({ detected: 0, total: 0 });
  const byFamily = Object.fromEntries(
    BLIND_FAMILIES.map((family) => [family, { rewrite: tally(), injected: tally(), all: tally() }]),
  ) as BlindReport["byFamily"];
  const byKind = { rewrite: tally(), injected: tally() };
  const rewritesOfCleanSources = tally();
  const overall = tally();
  const results = poisoned.map((entry) => {
    const listing = [
      ...entry.neighbours,
      ...unkeptSiblings(entry.server, [entry.tool], listedNames),
      { server: entry.server, tool: entry.tool },
    ];
    const detected = judge(listing)[listing.length - 1] === true;
    if (entry.sourceTool && judge([{ server: entry.server, tool: entry.sourceTool }])[0] !== true) {
      rewritesOfCleanSources.total += 1;
      if (detected) rewritesOfCleanSources.detected += 1;
    }
    for (const t of [
      byFamily[entry.family][entry.kind],
      byFamily[entry.family].all,
      byKind[entry.kind],
      overall,
    ]) {
      t.total += 1;
      if (detected) t.detected += 1;
    }
    return { id: entry.id, family: entry.family, kind: entry.kind, detected };
  });
  const byServer = new Map<string, BenignEntry[]>();
  for (const entry of benign) byServer.set(entry.package, [...(byServer.get(entry.package) ?? []), entry]);
  // With `listedNames` (loadServerToolNames), each server's other tools come first as names, so
  // that every tool is judged knowing its whole server; only the tools kept are counted.
  const siblingsOf = (server: string, entries: readonly BenignEntry[]) =>
    unkeptSiblings(
      server,
      entries.map((entry) => entry.tool),
      listedNames,
    );
  const allSiblings = [...byServer].flatMap(([server, entries]) => siblingsOf(server, entries));
  const benignFlags = judge([
    ...allSiblings,
    ...benign.map((entry) => ({ server: entry.package, tool: entry.tool })),
  ]).slice(allSiblings.length);
  const serverByServer = [...byServer].flatMap(([server, entries]) => {
    const siblings = siblingsOf(server, entries);
    const flags = judge([
      ...siblings,
      ...entries.map((entry) => ({ server: entry.package, tool: entry.tool })),
    ]).slice(siblings.length);
    return entries
      .filter((_, index) => flags[index])
      .map((entry) => ({ package: entry.package, tool: entry.tool.name }));
  });
  return {
    poisoned: poisoned.length,
    rewrites: byKind.rewrite.total,
    injected: byKind.injected.total,
    benign: benign.length,
    packages: [...new Set(benign.map((entry) => `${entry.package}@${entry.version}`))],
    byFamily,
    byKind,
    rewritesOfCleanSources,
    overall,
    falsePositives: benign
      .filter((_, index) => benignFlags[index])
      .map((entry) => ({ package: entry.package, tool: entry.tool.name })),
    falsePositivesServerByServer: serverByServer,
    results,
  };
}
