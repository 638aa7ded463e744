// Inspection benchmark: a 500-tool listing built from the real benign corpus (263 tools, 1.1 KB of
// text each on average). "first": a freshly compiled policy (its caches cold) and the tools of the
// process's first listing under new names (their schemas' strings met before, the rule programs'
// DFA states warm); "unique": later, the same policy and a listing of new definitions whose
// descriptions are all new (schemas repeat, as they do across servers); "unchanged": the first
// listing again, freshly parsed as a new tools/list answer would be; "unseen": later, the same policy
// and 500 real tools the process has never seen (the corpus's next 500 each round), whose sentences
// also meet the rule programs' DFA states cold — what a sidecar pays for a server it has not met.
// Each listing is also judged with its neighbours (src/inspect/listing.ts) as the MCP catalog does:
// the 500 tools come from 5 servers, each judged against the tools of the others.
// Steady state: V8 keeps compiling and re-optimising the engine's larger functions for about twenty
// rounds of these listings (--trace-opt: 40–150 ms of compiling per round through round 16, under
// 10 ms from round 19), and its compiler threads count in the CPU time. WARMUP_ROUNDS unmeasured
// rounds come first, so that the rows measure what a long-running sidecar pays, not V8's tier-up.
// The "unseen" listings come last, after the others are measured: tools never seen before take code
// paths the others never took, and the re-optimising they set off would land on the next round's
// rows.
// Wall and CPU time are reported: on a shared machine wall time includes waiting for a core.
// Run: node bench/inspect.bench.ts
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type CompiledInspection, compileInspection, inspectTools } from "../src/inspect/index.ts";
import { ListingNeighbours } from "../src/inspect/listing.ts";
import type { ToolDefinition } from "../src/inspect/types.ts";
import { goal, table } from "./harness.ts";

const LISTING_SIZE = 500;
const ROUNDS = 11;
const WARMUP_ROUNDS = 20;

function corpus(): ToolDefinition[] {
  const dir = join(import.meta.dirname, "..", "test", "inspect", "corpus", "benign");
  return readdirSync(dir).flatMap(
    (file) => (JSON.parse(readFileSync(join(dir, file), "utf8")) as { tools: ToolDefinition[] }).tools,
  );
}

function listing(tools: ToolDefinition[], round: number, uniqueDescriptions: boolean, offset = 0): string {
  const listed = Array.from({ length: LISTING_SIZE }, (_, i) => {
    const tool = tools[(offset + i) % tools.length]!;
    const tag = `r${round}t${i}`;
    return {
      ...tool,
      name: `${tool.name}_${tag}`,
      ...(uniqueDescriptions ? { description: `${tool.description ?? ""} (${tag})` } : {}),
    };
  });
  return JSON.stringify({ tools: listed });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

interface Timing {
  wallMs: number;
  cpuMs: number;
}

function measure(run: () => void): Timing {
  const cpu = process.cpuUsage();
  const start = performance.now();
  run();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

function medianTiming(timings: Timing[]): Timing {
  return { wallMs: median(timings.map((t) => t.wallMs)), cpuMs: median(timings.map((t) => t.cpuMs)) };
}

export interface InspectBenchResult {
  tools: number;
  compile: Timing;
  first: Timing;
  firstUnique: Timing;
  unseen: Timing;
  unchanged: Timing;
  /** One sample: the first listing a fresh process inspects (JIT cold, RE2 programs compiled on demand). */
  coldProcess: Timing;
}

const parse = (text: string) => (JSON.parse(text) as { tools: ToolDefinition[] }).tools;

const SERVERS = 5;

/** Inspects a listing per definition and then with its neighbours, one page per server. */
function inspectListed(
  tools: ToolDefinition[],
  compiled: CompiledInspection,
  neighbours: ListingNeighbours,
): void {
  const results = inspectTools(tools, compiled);
  const page = Math.ceil(tools.length / SERVERS);
  for (let server = 0; server < SERVERS; server++) {
    const slice = results.slice(server * page, (server + 1) * page);
    neighbours.judge(
      `server-${server}`,
      tools.slice(server * page, (server + 1) * page),
      slice.map((result) => result.hash),
      slice.map((result) => result.findings),
    );
  }
}

export function runInspectBench(): InspectBenchResult {
  const tools = corpus();
  const compile: Timing[] = [];
  const first: Timing[] = [];
  const firstUnique: Timing[] = [];
  const unseen: Timing[] = [];
  const unchanged: Timing[] = [];
  // The first listing of the process also compiles the shared rule programs and warms the JIT;
  // later rounds measure steady-state code on a freshly compiled policy.
  const coldListing = parse(listing(tools, -1, true));
  const coldProcess = measure(() =>
    inspectListed(coldListing, compileInspection({}), new ListingNeighbours()),
  );
  for (let round = -WARMUP_ROUNDS; round < ROUNDS; round++) {
    const record = (timings: Timing[], run: () => void) => {
      const timing = measure(run);
      if (round >= 0) timings.push(timing);
    };
    let compiled = compileInspection({ threshold: "High" });
    record(compile, () => (compiled = compileInspection({ threshold: "High" })));
    const neighbours = new ListingNeighbours();
    const text = listing(tools, round, false);
    const fresh = parse(text);
    record(first, () => inspectListed(fresh, compiled, neighbours));
    const again = parse(text);
    record(unchanged, () => inspectListed(again, compiled, neighbours));
    const unique = parse(listing(tools, round, true));
    record(firstUnique, () => inspectListed(unique, compiled, new ListingNeighbours()));
  }
  const compiled = compileInspection({ threshold: "High" });
  for (let round = 0; round < ROUNDS; round++) {
    const never = parse(listing(tools, round, false, (round + 1) * LISTING_SIZE));
    unseen.push(measure(() => inspectListed(never, compiled, new ListingNeighbours())));
  }
  return {
    tools: LISTING_SIZE,
    compile: medianTiming(compile),
    first: medianTiming(first),
    firstUnique: medianTiming(firstUnique),
    unseen: medianTiming(unseen),
    unchanged: medianTiming(unchanged),
    coldProcess,
  };
}

if (import.meta.main) {
  const result = runInspectBench();
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const row = (name: string, t: Timing, goalMs?: number) => [
    name,
    ms(t.wallMs),
    ms(t.cpuMs),
    goalMs === undefined ? "—" : `≤ ${goalMs} ms: ${goal(t.cpuMs <= goalMs)}`,
  ];
  console.log(
    `## Inspection\n\n${result.tools}-tool listing from the benign corpus, median of ${ROUNDS} rounds after ${WARMUP_ROUNDS} unmeasured ones.\n`,
  );
  console.log(
    table(
      ["step", "wall", "CPU", "goal (on CPU time)"],
      [
        row(
          "first listing in a fresh process (rules compiled, JIT and RE2 DFA cold; one sample)",
          result.coldProcess,
        ),
        row("compile a policy's spec.inspection (once per bundle)", result.compile),
        row("first listing after compiling (the policy's caches cold)", result.first, 20),
        row("new definitions while the policy is in use", result.firstUnique),
        row("real tools never seen by the process (every string new)", result.unseen),
        row("the same listing again, freshly parsed", result.unchanged, 2),
      ],
    ),
  );
  console.log();
}
