// Findings shared across the cluster: a definition is run through the rules by the first process
// that sees it; every other pod with the same rules and config takes the findings from the state
// store (one MGET per listing) instead of compiling and running the rule programs itself.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CappedMap } from "../kernel/bounded-map.ts";
import { adoptFindings, type CompiledInspection, cachedInspection, inspectHashed } from "./engine.ts";
import type { VerdictStore } from "./judge.ts";
import { type DefinitionHash, hashForCache } from "./pinning.ts";
import {
  type Category,
  DETECTORS,
  type Finding,
  type InspectionResult,
  SEVERITIES,
  type ToolDefinition,
} from "./types.ts";

/** How long findings stay shared: long enough for every pod of a rollout, bounded for the store. */
export const SHARED_FINDINGS_TTL_MS = 7 * 24 * 3600_000;
/** A stored entry larger than any the rules produce is not trusted (definitions hold at most a few dozen). */
const MAX_SHARED_FINDINGS = 512;
const CATEGORIES = new Set<string>([...DETECTORS, "Custom"]);

let codeDigest: string | undefined;

/**
 * SHA-256 of the code in this folder (.ts when run from source, .js in the image) and of the phrasing
 * model's weights (.bin): findings come from the rules, the model and the code around them, so a pod
 * running another build never takes them.
 */
function inspectionCode(): string {
  if (codeDigest === undefined) {
    const hash = createHash("sha256");
    const files = readdirSync(import.meta.dirname)
      .filter((file) => /\.(ts|js|bin)$/.test(file) && !file.endsWith(".d.ts"))
      .sort();
    for (const file of files)
      hash
        .update(file)
        .update("\0")
        .update(readFileSync(join(import.meta.dirname, file)));
    codeDigest = hash.digest("hex");
  }
  return codeDigest;
}

const fingerprints = new WeakMap<CompiledInspection, string>();

/** The store key prefix of a compiled config: code, detectors and custom patterns — what findings depend on. */
export function findingsFingerprint(compiled: CompiledInspection): string {
  let fingerprint = fingerprints.get(compiled);
  if (fingerprint === undefined) {
    fingerprint = createHash("sha256")
      .update(
        JSON.stringify([
          inspectionCode(),
          DETECTORS.filter((name) => compiled.detectors.has(name)),
          compiled.customs.map((custom) => [custom.rule, custom.severity, custom.pattern]),
        ]),
      )
      .digest("hex")
      .slice(0, 32);
    fingerprints.set(compiled, fingerprint);
  }
  return fingerprint;
}

/**
 * Findings read back from the store, or undefined when the entry is not exactly what this code
 * writes (then the definition is inspected here): the store is trusted like the pins it holds, but a
 * garbled entry must never turn into "no findings".
 */
export function decodeFindings(json: string): Finding[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length > MAX_SHARED_FINDINGS) return undefined;
  const findings: Finding[] = [];
  for (const item of value) {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return undefined;
    const { rule, category, severity, field, match } = item as Record<string, unknown>;
    if (typeof rule !== "string" || typeof field !== "string" || typeof match !== "string") return undefined;
    if (typeof category !== "string" || !CATEGORIES.has(category)) return undefined;
    if (!SEVERITIES.includes(severity as never)) return undefined;
    findings.push({
      rule,
      category: category as Category,
      severity: severity as Finding["severity"],
      field,
      match,
    });
  }
  return findings;
}

/** Findings this process read from or wrote to a store, per store (tests run several pods in one process). */
const memos = new WeakMap<VerdictStore, CappedMap<string, Finding[]>>();
const MEMO_LIMIT = 20_000;

function memoOf(store: VerdictStore): CappedMap<string, Finding[]> {
  let memo = memos.get(store);
  if (!memo) {
    memo = new CappedMap(MEMO_LIMIT);
    memos.set(store, memo);
  }
  return memo;
}

export interface SharedInspection {
  /** Per tool, in input order. */
  results: InspectionResult[];
  /** Definitions answered from the store (or from what this process learnt through it). */
  shared: number;
  /** Definitions run through the rules here (and offered to the store). */
  inspected: number;
  /** The store could not be read or written: the definitions were inspected here all the same. */
  storeFailed: boolean;
}

/**
 * Inspects a listing with the findings other processes recorded: definitions this config already
 * answered cost nothing, those this process learnt through the store under another config with the
 * same fingerprint cost no I/O, the rest one store read for all of them; what the store does not hold (or
 * holds garbled, or cannot be asked) is inspected here and written back. Never less inspection than
 * inspectTool: a store failure only means more local work.
 */
export async function inspectWithStore(
  tools: readonly ToolDefinition[],
  compiled: CompiledInspection,
  store: VerdictStore,
): Promise<SharedInspection> {
  const results: (InspectionResult | undefined)[] = tools.map((tool) => cachedInspection(tool, compiled));
  const outcome: SharedInspection = { results: [], shared: 0, inspected: 0, storeFailed: false };
  const prefix = `rules:${findingsFingerprint(compiled)}:`;
  const missing: {
    index: number;
    hashed: DefinitionHash;
    stored?: string;
    asked: boolean;
    known?: boolean;
  }[] = [];
  results.forEach((result, index) => {
    if (result) return;
    const hashed = hashForCache(tools[index]!);
    // Definitions with index-like or __proto__ keys (not cacheable) are never shared: inspected here.
    missing.push({ index, hashed, asked: compiled.enabled && hashed.cacheable });
  });
  // What this process already learnt through this store (under any config with the same
  // fingerprint): a policy update or a second inspecting policy costs no round trip.
  const memo = memoOf(store);
  for (const entry of missing) {
    if (!entry.asked) continue;
    const { hash, cacheable } = entry.hashed;
    const known = memo.get(prefix + hash);
    if (known) {
      results[entry.index] = adoptFindings(tools[entry.index]!, compiled, hash, cacheable, known);
      outcome.shared++;
      entry.asked = false;
      entry.known = true;
    }
  }
  const asked = missing.filter((entry) => entry.asked);
  if (asked.length > 0) {
    try {
      const stored = await store.getVerdicts(asked.map((entry) => prefix + entry.hashed.hash));
      asked.forEach((entry, i) => {
        entry.stored = stored[i];
      });
    } catch {
      outcome.storeFailed = true;
    }
  }
  const writes: Promise<void>[] = [];
  for (const { index, hashed, stored, known } of missing) {
    if (known) continue;
    const { hash, cacheable } = hashed;
    const tool = tools[index]!;
    const shareable = compiled.enabled && cacheable;
    const findings = stored === undefined ? undefined : decodeFindings(stored);
    if (findings) {
      results[index] = adoptFindings(tool, compiled, hash, cacheable, findings);
      outcome.shared++;
      memo.set(prefix + hash, findings);
      continue;
    }
    const result = inspectHashed(tool, compiled, hashed);
    results[index] = result;
    outcome.inspected++;
    if (!shareable) continue;
    memo.set(prefix + hash, result.findings);
    if (!outcome.storeFailed)
      writes.push(store.putVerdict(prefix + hash, JSON.stringify(result.findings), SHARED_FINDINGS_TTL_MS));
  }
  const written = await Promise.allSettled(writes);
  if (written.some((write) => write.status === "rejected")) outcome.storeFailed = true;
  outcome.results = results as InspectionResult[];
  return outcome;
}
