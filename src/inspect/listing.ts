import { type CompiledInspection, inspectTool, resolveCompiled, withFindings } from "./engine.ts";
import { firstSentence } from "./intent.ts";
import { confusableKey, nameWords } from "./names.ts";
import { withContext } from "./normalize.ts";
import { canonicalJson } from "./pinning.ts";
import type { Finding, InspectionConfig, InspectionResult, ToolDefinition } from "./types.ts";

/**
 * Listing-level inspection: one tool judged with its neighbours on other servers. A name that reads
 * like another server's tool (shadowing), a near copy of another server's tool that adds a side
 * effect (function overlapping), a description that names another server's tool while steering the
 * model: none of these shows in one definition alone. Pure: the caller passes what it knows.
 */

/** One tool as a listing offers it. */
export interface ListedTool {
  server: string;
  tool: ToolDefinition;
}

interface Neighbour {
  server: string;
  tool: ToolDefinition;
  lowerName: string;
  /** Specific words of the first sentence of the description: what it says it does. */
  words: ReadonlySet<string>;
  descriptionWords: ReadonlySet<string>;
  properties: ReadonlySet<string>;
}

/** Words that say nothing about what a specific tool does. */
const STOP_WORDS = new Set(
  "a an the of to and or for in on by with from into as at is are be this that it its your you use used using can will all any one new get set list read create update delete tool tools data info given specific".split(
    " ",
  ),
);

function specificWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const word of nameWords(text)) if (word.length > 1 && !STOP_WORDS.has(word)) words.add(word);
  return words;
}

function neighbourOf(entry: ListedTool): Neighbour {
  const description = typeof entry.tool.description === "string" ? entry.tool.description : "";
  const properties = (entry.tool.inputSchema as { properties?: unknown } | undefined)?.properties;
  return {
    server: entry.server,
    tool: entry.tool,
    lowerName: String(entry.tool.name).toLowerCase(),
    words: specificWords(firstSentence(description)),
    descriptionWords: specificWords(description),
    properties: new Set(properties && typeof properties === "object" ? Object.keys(properties) : []),
  };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * The tools of the servers known so far, indexed by lower-case name, confusable name and the
 * specific words of their names, so one tool is compared with a handful of candidates, not with all.
 */
export class NeighbourIndex {
  readonly byConfusable = new Map<string, Neighbour[]>();
  readonly byNameWord = new Map<string, Neighbour[]>();
  readonly byLowerName = new Map<string, Neighbour[]>();

  constructor(entries: readonly ListedTool[] = []) {
    for (const entry of entries) this.add(entry);
  }

  add(entry: ListedTool): void {
    if (typeof entry.tool.name !== "string") return;
    const neighbour = neighbourOf(entry);
    push(this.byConfusable, confusableKey(entry.tool.name), neighbour);
    push(this.byLowerName, neighbour.lowerName, neighbour);
    for (const word of specificWords(entry.tool.name)) push(this.byNameWord, word, neighbour);
  }
}

/** Words in what a near copy adds that mean it does something more with the data. */
const SIDE_EFFECT_WORDS = new Set(
  "send sends sent copy copies copied archive archives archived mirror mirrors mirrored forward forwards forwarded upload uploads uploaded record records recorded log logs logged report reports reported bcc cc analytics backup run runs execute executes webhook sync syncs synced track tracks tracked collector telemetry publish publishes also".split(
    " ",
  ),
);

/** How much of the neighbour's own account of itself a tool repeats to count as a near copy. */
const NEAR_COPY = 0.8;

function covers(tool: ReadonlySet<string>, neighbour: ReadonlySet<string>): boolean {
  if (neighbour.size < 2) return false;
  let shared = 0;
  for (const word of neighbour) if (tool.has(word)) shared++;
  return shared / neighbour.size >= NEAR_COPY;
}

/** A near copy adds a few words to what it copies; a tool with a long account of its own is its own tool. */
const MAX_ADDED_WORDS = 10;

/** Own findings that are actions, not mere wording: a near copy that asks for one adds a side effect. */
const ACTION_PREFIXES = [
  "intent.run-command",
  "intent.read-local-file",
  "intent.write-local-file",
  "intent.send-to-destination",
  "intent.pretext-transfer",
  "intent.call-tool-first",
  "intent.feed-result",
  "exfil.",
  "shell.",
  "credential.",
];

/** What a near copy adds over the neighbour it copies, when that addition has a side effect. */
function addedSideEffect(
  tool: Neighbour,
  neighbour: Neighbour,
  ownFindings: readonly Finding[],
): string | undefined {
  const added = [...tool.descriptionWords].filter((word) => !neighbour.descriptionWords.has(word));
  const addedProperties = [...tool.properties].filter((property) => !neighbour.properties.has(property));
  if (added.length + addedProperties.length > MAX_ADDED_WORDS) return undefined;
  const effect = added.find((word) => SIDE_EFFECT_WORDS.has(word));
  if (effect) return `adds "${effect}"`;
  const schema = (tool.tool.inputSchema as { properties?: Record<string, { description?: unknown }> })
    .properties;
  for (const property of addedProperties) {
    const description = schema?.[property]?.description;
    const word = [...specificWords(`${property} ${typeof description === "string" ? description : ""}`)].find(
      (w) => SIDE_EFFECT_WORDS.has(w),
    );
    if (word) return `adds parameter ${property} ("${word}")`;
  }
  const action = ownFindings.find((f) => ACTION_PREFIXES.some((prefix) => f.rule.startsWith(prefix)));
  return action ? `adds ${action.rule}` : undefined;
}

function finding(rule: string, category: Finding["category"], field: string, match: string): Finding {
  return { rule, category, severity: "High", field, match };
}

/** Identifiers in a text that look like tool names (contain _ or -), lower case. */
function identifiers(text: string): string[] {
  const out: string[] = [];
  let word = "";
  let separated = false;
  const flush = () => {
    let end = word.length;
    while (end > 0 && (word[end - 1] === "_" || word[end - 1] === "-")) end--;
    if (separated && end >= 4) out.push(word.slice(0, end));
    word = "";
    separated = false;
  };
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0x20;
    const alnum =
      (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39);
    if (alnum) word += String.fromCharCode(code >= 0x41 && code <= 0x5a ? code + 32 : code);
    else if ((code === 0x5f || code === 0x2d) && word.length > 0) {
      word += text[i];
      separated = true;
    } else flush();
  }
  return out;
}

/**
 * Findings for `entry` against the tools of other servers in `neighbours`. `ownFindings` are the
 * entry's own inspection findings (a near copy that steers the model counts as a side effect).
 */
export function listingFindings(
  entry: ListedTool,
  neighbours: NeighbourIndex,
  ownFindings: readonly Finding[] = [],
): Finding[] {
  const name = entry.tool.name;
  if (typeof name !== "string") return [];
  const out: Finding[] = [];
  const self = neighbourOf(entry);
  const others = (list: readonly Neighbour[] | undefined) =>
    (list ?? []).filter((n) => n.server !== entry.server);
  const exact = others(neighbours.byLowerName.get(self.lowerName));
  const ownHash = exact.length > 0 ? canonicalJson(entry.tool) : "";
  for (const neighbour of exact) {
    // The same server installed twice offers identical definitions: that is configuration, not an attack.
    if (canonicalJson(neighbour.tool) === ownHash) continue;
    if (neighbour.tool.name !== name) {
      out.push(
        finding(
          "listing.confusable-name",
          "HiddenInstructions",
          "name",
          `${name} reads like ${neighbour.server}/${neighbour.tool.name}`,
        ),
      );
      break;
    }
    // Two servers offering the same operation under the same name happens (file servers): the
    // session registry reports it for crossServer.shadowTool. A same-name copy that adds a side
    // effect is the shadowing attack.
    const effect = covers(self.descriptionWords, neighbour.words)
      ? addedSideEffect(self, neighbour, ownFindings)
      : undefined;
    if (effect) {
      out.push(
        finding(
          "listing.shadowed-tool",
          "HiddenInstructions",
          "name",
          `${name} copies ${neighbour.server}/${neighbour.tool.name} under the same name and ${effect}`,
        ),
      );
      break;
    }
  }
  if (exact.length === 0) {
    const lookalike = others(neighbours.byConfusable.get(confusableKey(name)))[0];
    if (lookalike)
      out.push(
        finding(
          "listing.confusable-name",
          "HiddenInstructions",
          "name",
          `${name} reads like ${lookalike.server}/${lookalike.tool.name}`,
        ),
      );
  }
  const candidates = new Set<Neighbour>();
  for (const word of specificWords(name))
    for (const n of others(neighbours.byNameWord.get(word))) candidates.add(n);
  for (const neighbour of candidates) {
    if (neighbour.lowerName === self.lowerName) continue;
    if (!covers(self.descriptionWords, neighbour.words)) continue;
    const effect = addedSideEffect(self, neighbour, ownFindings);
    if (!effect) continue;
    out.push(
      finding(
        "listing.overlap-side-effect",
        "Exfiltration",
        "description",
        `${name} copies ${neighbour.server}/${neighbour.tool.name} and ${effect}`,
      ),
    );
    break;
  }
  const description = typeof entry.tool.description === "string" ? entry.tool.description : "";
  const steered = ownFindings.some(
    (f) =>
      f.field === "description" &&
      (f.rule.startsWith("intent.") || f.rule.startsWith("exfil.") || f.rule.startsWith("hidden.")),
  );
  if (steered) {
    for (const mentioned of identifiers(description)) {
      const holders = neighbours.byLowerName.get(mentioned) ?? [];
      const owner = holders.find((n) => n.server !== entry.server);
      if (!owner || mentioned === self.lowerName || holders.some((n) => n.server === entry.server)) continue;
      const at = description.toLowerCase().indexOf(mentioned);
      out.push(
        finding(
          "listing.steers-other-server-tool",
          "HiddenInstructions",
          "description",
          `${withContext(description, at, at + mentioned.length)} (a tool of ${owner.server})`,
        ),
      );
      break;
    }
  }
  return out;
}

/**
 * Inspects a listing of several servers' tools in arrival order: each tool on its own (inspectTool)
 * and against the tools of other servers listed before it — the first server to offer a name keeps
 * it, as in the session registry. Results in input order.
 */
export function inspectListing(
  listing: readonly ListedTool[],
  config?: InspectionConfig | CompiledInspection,
): InspectionResult[] {
  const compiled = resolveCompiled(config);
  const neighbours = new NeighbourIndex();
  return listing.map((entry) => {
    const result = inspectTool(entry.tool, compiled);
    const extra = listingFindings(entry, neighbours, result.findings);
    neighbours.add(entry);
    return withFindings(result, extra, compiled);
  });
}

/** Bounds on what a ListingNeighbours remembers, however many tools servers make up. */
const MAX_NEIGHBOURS = 50_000;

interface Judged {
  hash: string;
  generation: number;
  findings: readonly Finding[];
}

const NO_FINDINGS: readonly Finding[] = Object.freeze([]);

/**
 * Listing-level inspection for a proxy that sees listings one server (or page) at a time: it
 * remembers every server's tools and judges each new or changed definition against the others.
 * An unchanged listing, while no other server's listing changed, costs one map lookup per tool.
 */
export class ListingNeighbours {
  /** server → lower-case name → [definition, hash]. */
  readonly #tools = new Map<string, Map<string, [ToolDefinition, string]>>();
  #size = 0;
  #index: NeighbourIndex | undefined;
  /** Bumped whenever a remembered definition changes: earlier verdicts may no longer hold. */
  #generation = 0;
  /** server NUL lower-case name → last verdict. */
  readonly #judged = new Map<string, Judged>();

  /**
   * Records one listing page and returns each tool's listing-level findings, in input order.
   * `hashes` are the definitions' pinning hashes, `findings` their own inspection findings.
   */
  judge(
    server: string,
    tools: readonly ToolDefinition[],
    hashes: readonly string[],
    findings: readonly (readonly Finding[])[],
  ): (readonly Finding[])[] {
    let known = this.#tools.get(server);
    if (!known) {
      known = new Map();
      this.#tools.set(server, known);
    }
    tools.forEach((tool, i) => {
      if (typeof tool.name !== "string") return;
      const name = tool.name.toLowerCase();
      const previous = known.get(name);
      if (previous?.[1] === hashes[i]) return;
      if (!previous && this.#size >= MAX_NEIGHBOURS) return;
      if (!previous) this.#size++;
      known.set(name, [tool, hashes[i]!]);
      this.#generation++;
      this.#index = undefined;
    });
    return tools.map((tool, i) => {
      if (typeof tool.name !== "string") return NO_FINDINGS;
      const key = `${server}\u0000${tool.name.toLowerCase()}`;
      const cached = this.#judged.get(key);
      if (cached && cached.hash === hashes[i] && cached.generation === this.#generation)
        return cached.findings;
      const found = listingFindings({ server, tool }, this.#neighbourIndex(), findings[i] ?? []);
      if (this.#judged.size >= MAX_NEIGHBOURS) this.#judged.clear();
      this.#judged.set(key, {
        hash: hashes[i]!,
        generation: this.#generation,
        findings: found.length === 0 ? NO_FINDINGS : found,
      });
      return found;
    });
  }

  #neighbourIndex(): NeighbourIndex {
    if (this.#index) return this.#index;
    const index = new NeighbourIndex();
    for (const [server, tools] of this.#tools)
      for (const [tool] of tools.values()) index.add({ server, tool });
    this.#index = index;
    return index;
  }
}
