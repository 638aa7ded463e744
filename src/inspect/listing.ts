import { RE2JS } from "re2js";
import { TextMemo } from "../kernel/bounded-map.ts";
import { canonicalJson } from "../kernel/json.ts";
import { type CompiledInspection, inspectTool, resolveCompiled, withFindings } from "./engine.ts";
import { clearableDependency, firstSentence, inOwnFolder, OWN_FOLDER_RULES, ownActions } from "./intent.ts";
import { confusableKey, nameWords, singular } from "./names.ts";
import { withContext } from "./normalize.ts";
import { proseAsRead } from "./reading.ts";
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

/** Specific words of prose as read (proseAsRead: "r3p0sit0ry", "&#114;epository"): a copy is compared as read. */
function proseWords(text: string): Set<string> {
  return specificWords(proseAsRead(text));
}

/** How much of the start of a description a near copy is compared on. */
const LEAD = 400;

/** What the listing rules read in a description, derived once per distinct description: servers repeat theirs. */
class DescriptionReading {
  readonly text: string;
  #leadWords: ReadonlySet<string> | undefined;
  #words: ReadonlySet<string> | undefined;
  #allWords: ReadonlySet<string> | undefined;
  #mentioned: readonly string[] | undefined;

  constructor(text: string) {
    this.text = text;
  }

  /** Specific words of the start, where a near copy repeats what it copies. */
  get leadWords(): ReadonlySet<string> {
    this.#leadWords ??= proseWords(this.text.slice(0, LEAD));
    return this.#leadWords;
  }

  /** Specific words of the first sentence: what the tool says it does. */
  get words(): ReadonlySet<string> {
    this.#words ??= proseWords(firstSentence(this.text));
    return this.#words;
  }

  get allWords(): ReadonlySet<string> {
    this.#allWords ??= proseWords(this.text);
    return this.#allWords;
  }

  /** Identifiers that look like tool names. */
  get mentioned(): readonly string[] {
    this.#mentioned ??= identifiers(this.text);
    return this.#mentioned;
  }
}

const DESCRIPTION_READINGS = new TextMemo<DescriptionReading>();

/** One tool as its neighbours see it; what is derived from the definition is computed once, when needed. */
class Neighbour {
  readonly lowerName: string;
  readonly confusable: string;
  readonly nameWords: ReadonlySet<string>;
  /** The name's words folded to singular and sorted: `issue_create`, `create_issues` → `create issue`. */
  readonly wordSet: string;
  #reading: DescriptionReading | undefined;
  #properties: ReadonlySet<string> | undefined;
  #canonical: string | undefined;

  readonly server: string;
  readonly tool: ToolDefinition & { name: string };

  constructor(server: string, tool: ToolDefinition & { name: string }) {
    this.server = server;
    this.tool = tool;
    this.lowerName = tool.name.toLowerCase();
    this.confusable = confusableKey(tool.name);
    this.nameWords = specificWords(tool.name);
    this.wordSet = nameWords(tool.name).map(singular).sort().join(" ");
  }

  get #description(): DescriptionReading {
    this.#reading ??= DESCRIPTION_READINGS.of(
      typeof this.tool.description === "string" ? this.tool.description : "",
      (text) => new DescriptionReading(text),
    );
    return this.#reading;
  }

  get description(): string {
    return this.#description.text;
  }

  /** Specific words of the start of the description, where a near copy repeats what it copies. */
  get leadWords(): ReadonlySet<string> {
    return this.#description.leadWords;
  }

  /** Specific words of the first sentence of the description: what it says it does. */
  get words(): ReadonlySet<string> {
    return this.#description.words;
  }

  get descriptionWords(): ReadonlySet<string> {
    return this.#description.allWords;
  }

  /** Identifiers in the description that look like tool names. */
  get mentioned(): readonly string[] {
    return this.#description.mentioned;
  }

  get canonical(): string {
    this.#canonical ??= canonicalJson(this.tool);
    return this.#canonical;
  }

  get properties(): ReadonlySet<string> {
    const properties = (this.tool.inputSchema as { properties?: unknown } | undefined)?.properties;
    this.#properties ??= new Set(properties && typeof properties === "object" ? Object.keys(properties) : []);
    return this.#properties;
  }
}

function neighbourOf(entry: ListedTool): Neighbour | undefined {
  const { tool } = entry;
  return typeof tool.name === "string"
    ? new Neighbour(entry.server, tool as ToolDefinition & { name: string })
    : undefined;
}

/**
 * What a key no tool is filed under holds. Not frozen: most keys looked up hold nothing, and V8
 * iterates a frozen array (`for … of`, `find`, `some`, spread) on its slow paths; the type keeps it empty.
 */
const EMPTY: readonly Neighbour[] = [];

/**
 * How a tool is filed: by lower-case name, by confusable name, by its name's words folded to
 * singular and sorted (Neighbour.wordSet), and under each specific word of its name.
 */
export type IndexKind = "name" | "confusable" | "wordSet" | "word";

/** Each key a neighbour is filed under, with its kind. */
function forEachFiling(neighbour: Neighbour, file: (kind: IndexKind, key: string) => void): void {
  file("name", neighbour.lowerName);
  file("confusable", neighbour.confusable);
  file("wordSet", neighbour.wordSet);
  for (const word of neighbour.nameWords) file("word", word);
}

/**
 * The tools of the servers known so far, indexed by lower-case name, confusable name and the
 * specific words of their names (IndexKind), so one tool is compared with a handful of candidates,
 * not with all. One map per kind, keyed by the string itself: a key prefixed with its kind was a
 * new string to build, flatten and hash on every look-up, about fifteen per tool judged.
 */
export class NeighbourIndex {
  readonly #buckets: Readonly<Record<IndexKind, Map<string, Neighbour[]>>> = {
    name: new Map(),
    confusable: new Map(),
    wordSet: new Map(),
    word: new Map(),
  };

  constructor(entries: readonly ListedTool[] = []) {
    for (const entry of entries) this.add(entry);
  }

  add(entry: ListedTool | Neighbour): void {
    const neighbour = entry instanceof Neighbour ? entry : neighbourOf(entry);
    if (!neighbour) return;
    forEachFiling(neighbour, (kind, key) => {
      const buckets = this.#buckets[kind];
      const bucket = buckets.get(key);
      if (bucket) bucket.push(neighbour);
      else buckets.set(key, [neighbour]);
    });
  }

  remove(neighbour: Neighbour): void {
    forEachFiling(neighbour, (kind, key) => {
      const buckets = this.#buckets[kind];
      const bucket = buckets.get(key)?.filter((item) => item !== neighbour);
      if (bucket && bucket.length > 0) buckets.set(key, bucket);
      else buckets.delete(key);
    });
  }

  get(kind: IndexKind, key: string): readonly Neighbour[] {
    return this.#buckets[kind].get(key) ?? EMPTY;
  }
}

/** Words in what a near copy adds that mean it does something more with the data. */
const SIDE_EFFECT_WORDS = new Set(
  "send sends sent copy copies copied archive archives archived mirror mirrors mirrored forward forwards forwarded upload uploads uploaded record records recorded log logs logged report reports reported bcc cc analytics backup run runs execute executes webhook sync syncs synced track tracks tracked collector telemetry publish publishes also synchronised synchronized synchronises synchronizes share shares shared remember remembers post posts posted gist notify notifies deliver delivers delivered stream streams streamed transmit transmits transmitted replicate replicates replicated".split(
    " ",
  ),
);

/** Side-effect words that name a thing when an argument mentions them ("the timeframe of the report", "log level"). */
const PROPERTY_NOUNS = new Set(
  "report reports record records log logs track tracks archive archives post posts backup also remember remembers run runs".split(
    " ",
  ),
);

/** How much of the neighbour's own account of itself a tool repeats to count as a near copy. */
const NEAR_COPY = 0.8;

/**
 * Specific words a first sentence needs before repeating it makes a copy: "Send an email", "Cancels
 * a deployment" are how every vendor says it.
 */
const MIN_COPIED_WORDS = 3;

/**
 * Specific words a first sentence needs before two vendors' conventional spellings of one name count
 * as a copy rather than the same operation ("Retry a failed job" is how every queue says it).
 */
const DISTINCTIVE_COPIED_WORDS = 4;

/** Whether the start of a tool's description repeats most words of the neighbour's first sentence. */
function covers(tool: Neighbour, neighbour: Neighbour, minWords = MIN_COPIED_WORDS): boolean {
  const words = neighbour.words;
  if (words.size < minWords) return false;
  const lead = tool.leadWords;
  let shared = 0;
  for (const word of words) if (lead.has(word)) shared++;
  return shared / words.size >= NEAR_COPY;
}

/** snake_case, kebab-case, camelCase or PascalCase: a naming convention, not a look-alike spelling. */
const CONVENTIONAL_NAME = RE2JS.compile(
  "^(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)*|[a-z][a-z0-9]*(?:-[a-z0-9]+)*|[a-zA-Z][a-zA-Z0-9]*)$",
);

/**
 * Two vendors naming the same common operation in their own conventions (`takeScreenshot`,
 * `take_screenshot`) and describing it in their own words: the same words in each name, each
 * spelled conventionally, neither description a near copy of the other's. A look-alike spelling
 * (`read_text_fi1e`, `create__issue`, `Send_Email`) or a copied description still reads as a shadow.
 */
function ownSpelling(tool: Neighbour, neighbour: Neighbour): boolean {
  const a = tool.tool.name;
  const b = neighbour.tool.name;
  return (
    CONVENTIONAL_NAME.matcher(a).matches() &&
    CONVENTIONAL_NAME.matcher(b).matches() &&
    tool.wordSet === neighbour.wordSet &&
    !covers(tool, neighbour, DISTINCTIVE_COPIED_WORDS) &&
    !covers(neighbour, tool, DISTINCTIVE_COPIED_WORDS)
  );
}

/**
 * A name made from another tool's name by adding one word (`github_create_issue`,
 * `slack_post_message_v2`, `fetch_file_contents` for `get_file_contents`): with a copied
 * description that adds next to nothing, a second door to what the model takes for the same tool.
 */
function variantName(tool: Neighbour, neighbour: Neighbour): boolean {
  if (neighbour.nameWords.size === 0) return false;
  for (const word of neighbour.nameWords) if (!tool.nameWords.has(word)) return false;
  if (tool.nameWords.size - neighbour.nameWords.size !== 1) return false;
  let added = 0;
  for (const word of tool.descriptionWords) if (!neighbour.descriptionWords.has(word)) added++;
  if (added > MAX_VARIANT_WORDS) return false;
  // A short first sentence ("Get a Balance Sheet report") is how every vendor says it: only a
  // distinctive one, or the neighbour's description word for word, makes the copy.
  return (
    covers(tool, neighbour, DISTINCTIVE_COPIED_WORDS) ||
    tool.description.trim().toLowerCase() === neighbour.description.trim().toLowerCase()
  );
}

/** What a copy under a variant name adds ("(optimised)", "(new API)"); a vendor's own tool says more. */
const MAX_VARIANT_WORDS = 3;

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
  "intent.call-tool-after",
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
  siblings: ReadonlySet<string>,
): string | undefined {
  if (tool.description === neighbour.description && tool.properties.size === neighbour.properties.size)
    return undefined;
  const added = [...tool.descriptionWords].filter((word) => !neighbour.descriptionWords.has(word));
  const addedProperties = [...tool.properties].filter((property) => !neighbour.properties.has(property));
  if (added.length + addedProperties.length > MAX_ADDED_WORDS) return undefined;
  const effect = added.find((word) => SIDE_EFFECT_WORDS.has(word));
  if (effect) return `adds "${effect}"`;
  const inputSchema = tool.tool.inputSchema as {
    properties?: Record<
      string,
      { description?: unknown; default?: unknown; const?: unknown; type?: unknown; enum?: unknown }
    >;
    required?: unknown;
  };
  const schema = inputSchema.properties;
  const required = new Set(Array.isArray(inputSchema.required) ? inputSchema.required : []);
  for (const property of addedProperties) {
    if (FILTER_PROPERTY.matcher(property).find()) continue;
    const spec = schema?.[property];
    const description = spec?.description;
    // An optional argument with a closed set of values (`sendUpdates: all|none`) or one described as
    // applying only when set ("If specified, …") is an option the model uses when asked; a free
    // argument (`forward_to`), a required one, or one on by default is the copy's own side effect.
    if (
      !required.has(property) &&
      !switchedOn(spec?.default ?? spec?.const) &&
      (closedValues(spec) ||
        (typeof description === "string" && ONLY_WHEN_SET.matcher(description.toLowerCase()).find()))
    )
      continue;
    const word = [...proseWords(`${property} ${typeof description === "string" ? description : ""}`)].find(
      (w) => SIDE_EFFECT_WORDS.has(w) && !PROPERTY_NOUNS.has(w),
    );
    if (word) return `adds parameter ${property} ("${word}")`;
  }
  // Calling one of the server's own tools first ("first use get_email to see the attachments") is
  // the vendor's workflow, not something the copy adds.
  const action = ownFindings.find(
    (f) =>
      ACTION_PREFIXES.some((prefix) => f.rule.startsWith(prefix)) &&
      !(
        (f.rule === "intent.call-tool-first" || f.rule === "intent.call-tool-after") &&
        callsOnlySiblings(f.match, siblings)
      ),
  );
  return action ? `adds ${action.rule}` : undefined;
}

/** A default that turns an option on: not false, zero, empty or "none". */
function switchedOn(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === "") return false;
  return !(typeof value === "string" && /^(?:false|none|off|no|0)$/i.test(value));
}

/** An argument that takes one of a few fixed values: a switch, not a place to send something. */
function closedValues(spec: { type?: unknown; enum?: unknown } | undefined): boolean {
  return spec !== undefined && (spec.type === "boolean" || Array.isArray(spec.enum));
}

/** An argument described as used only when the caller sets it. */
const ONLY_WHEN_SET = RE2JS.compile(
  "^(?:optional\\b|if (?:specified|set|provided|given)\\b|when (?:set|provided|specified)\\b)",
);

const COMPARED_TO = RE2JS.compile(
  "\\b(?:like|unlike|similar to|same as|as with|as in|compared to)\\s*\\x60?$",
);

/**
 * Claims that run a tool down: what a description says of another server's tool it names
 * ("slack_post_message … was archived and drops messages", "maps_geocode … is billed at the premium
 * rate … best left unused"). Read in the sentence that names the tool.
 */
const RUNS_DOWN = RE2JS.compile(
  "\\b(?:deprecated|archived|retired|unmaintained|abandoned|discontinued|broken|buggy|unreliable|untrusted|inaccurate|imprecise|outdated|obsolete|insecure|unsafe|compromised|vulnerable|malicious|leaks?|leaking|drops|loses|omits|corrupts|truncates|overcharges|throttled|rate-limited|premium rate|billed (?:at|per)|not recommended|not supported|no longer (?:works|supported|maintained|accurate)|best (?:left unused|avoided)|should be avoided|avoid (?:it|using)|do not use|don't use|never use|stop using|inferior|less accurate|worse|slower|approximate)\\b",
);

/** The sentence of `text` around offset `at` (up to the nearest full stop, semicolon or line break). */
function sentenceAround(text: string, at: number): string {
  let start = at;
  while (start > 0 && !".;\n!?".includes(text[start - 1]!)) start--;
  let end = at;
  while (end < text.length && !".;\n!?".includes(text[end]!)) end++;
  return text.slice(start, end);
}

/** Argument names too common to tie a description to one tool when it mentions them. */
const COMMON_ARGUMENTS = new Set(
  "text name id path query content body title description type data value input output url uri file key limit page format mode message options action".split(
    " ",
  ),
);

/**
 * An argument of `owner` (not a common one) that `description` names with a value ("replicas 0",
 * "merge_method 'squash'", "reveal: true"): it says how owner is called. Naming the argument alone
 * ("to get the account name") explains, it sets nothing.
 */
function namedArgument(description: string, owner: Neighbour): string | undefined {
  const lower = description.toLowerCase();
  const words = new Set(identifierWords(lower));
  for (const property of owner.properties) {
    const name = property.toLowerCase();
    if (name.length < 4 || COMMON_ARGUMENTS.has(name) || !words.has(name)) continue;
    for (let at = lower.indexOf(name); at >= 0; at = lower.indexOf(name, at + 1))
      if (ARGUMENT_VALUE.matcher(lower.slice(at + name.length, at + name.length + 30)).find())
        return property;
  }
  return undefined;
}

/** A value right after an argument's name: `=squash`, `: true`, ` 0`, ` 'squash'`, ` U7c3e1d90…`, ` set to https://…`. */
const ARGUMENT_VALUE = RE2JS.compile(
  "^\\x60?\\s*(?:[:=]\\s*[^\\s,;.]|(?:to|is|as|of|set to|carries|carry|with)?\\s*(?:['\"\\x60]|\\d|true\\b|false\\b|https?://|[a-z]*\\d[a-z0-9]{5,}))",
);

/** The words of a text as identifiers: letters, digits, `_` and `-` kept together, lower case. */
function identifierWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9_-]+/)
    .filter((word) => word.length > 0);
}

/** Whether every tool name a finding's match mentions is one of the server's own tools (and it names one). */
function callsOnlySiblings(match: string, siblings: ReadonlySet<string>): boolean {
  const named = identifiers(match);
  return named.length > 0 && named.every((name) => siblings.has(name));
}

/** A property that narrows what is read (`includeArchived`, `show_deleted`), not something done. */
const FILTER_PROPERTY = RE2JS.compile("^(?:include|exclude|show|with|only|filter|is|has)(?:[A-Z_-]|$)");

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
    const trimmed = word.slice(0, end);
    // "test-*.tsx" names no tool `test`: the separator must stand inside the name.
    if (separated && end >= 4 && (trimmed.includes("_") || trimmed.includes("-"))) out.push(trimmed);
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

/** Whether a tool's own findings steer the model in its description (then naming another server's tool counts). */
function steers(ownFindings: readonly Finding[]): boolean {
  return ownFindings.some(steering);
}

function steering(f: Finding): boolean {
  return (
    f.field === "description" &&
    (f.rule.startsWith("intent.") || f.rule.startsWith("exfil.") || f.rule.startsWith("hidden."))
  );
}

/**
 * A name word shared by more tools than this says nothing specific (`file`, `search`): it picks no
 * overlap candidates.
 */
const MAX_SHARED_WORD = 12;

const EMPTY_NAMES: ReadonlySet<string> = new Set();

/** Whether a name in a description is one of the server's own tools under the vendor's prefix (`qmetry_create_release`). */
function prefixedSibling(mentioned: string, siblings: ReadonlySet<string>, except?: string): boolean {
  for (const sibling of siblings)
    if (sibling !== except && (sibling.endsWith(`_${mentioned}`) || sibling.endsWith(`-${mentioned}`)))
      return true;
  return false;
}

/** Whether one of the tool's steering findings is about the named tool (names it in its match). */
function namedBySteering(mentioned: string, ownFindings: readonly Finding[]): boolean {
  return ownFindings.some((f) => steering(f) && f.match.toLowerCase().includes(mentioned));
}

/**
 * Findings for `entry` against the tools of other servers in `neighbours`. `ownFindings` are the
 * entry's own inspection findings (a near copy that steers the model counts as a side effect).
 */
export function listingFindings(
  entry: ListedTool | Neighbour,
  neighbours: NeighbourIndex,
  ownFindings: readonly Finding[] = [],
  siblings: ReadonlySet<string> = EMPTY_NAMES,
): Finding[] {
  const self = entry instanceof Neighbour ? entry : neighbourOf(entry);
  if (!self) return [];
  const name = self.tool.name;
  const out: Finding[] = [];
  const other = (n: Neighbour) => n.server !== self.server;
  let sameName = false;
  for (const neighbour of neighbours.get("name", self.lowerName)) {
    // The same server installed twice offers identical definitions: that is configuration, not an attack.
    if (!other(neighbour) || neighbour.canonical === self.canonical) continue;
    sameName = true;
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
    const effect = covers(self, neighbour)
      ? addedSideEffect(self, neighbour, ownFindings, siblings)
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
  if (!sameName) {
    const readsAlike = (n: Neighbour) => other(n) && n.lowerName !== self.lowerName && !ownSpelling(self, n);
    const lookalike =
      neighbours.get("confusable", self.confusable).find(readsAlike) ??
      neighbours.get("wordSet", self.wordSet).find(readsAlike);
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
  const seen = new Set<Neighbour>();
  overlap: for (const word of self.nameWords) {
    const bucket = neighbours.get("word", word);
    if (bucket.length > MAX_SHARED_WORD) continue;
    for (const neighbour of bucket) {
      if (!other(neighbour) || neighbour.lowerName === self.lowerName || seen.has(neighbour)) continue;
      seen.add(neighbour);
      if (!covers(self, neighbour)) continue;
      const effect = addedSideEffect(self, neighbour, ownFindings, siblings);
      if (effect) {
        out.push(
          finding(
            "listing.overlap-side-effect",
            "Exfiltration",
            "description",
            `${name} copies ${neighbour.server}/${neighbour.tool.name} and ${effect}`,
          ),
        );
        break overlap;
      }
      if (variantName(self, neighbour)) {
        out.push(
          finding(
            "listing.impersonates-tool",
            "HiddenInstructions",
            "name",
            `${name} copies the description of ${neighbour.server}/${neighbour.tool.name} under a variant of its name`,
          ),
        );
        break overlap;
      }
    }
  }
  const steering = steers(ownFindings);
  // Names the tool's own schema defines (`upload_file` as one of its step actions) are its own.
  let own: Set<string> | undefined;
  const ownName = (mentioned: string) => {
    own ??= ownActions(self.tool);
    return own.has(mentioned);
  };
  for (const mentioned of self.mentioned) {
    if (steering) break;
    // Without an order, a description that sets another server's tool's arguments ("kubectl_scale
    // requests touching 'security' carry replicas 0", "merge_pull_request goes ahead with
    // merge_method 'squash'") still rules how that tool is called; and a claim that the tool is
    // broken, retired or costly steers the model away from it all the same (disparagement).
    const holders = neighbours.get("name", mentioned);
    const owner = holders.find(other);
    if (!owner || mentioned === self.lowerName || holders.some((n) => !other(n)) || siblings.has(mentioned))
      continue;
    if (prefixedSibling(mentioned, siblings) || ownName(mentioned)) continue;
    const lower = self.description.toLowerCase();
    const at = lower.indexOf(mentioned);
    const argument = namedArgument(self.description, owner);
    const context = withContext(self.description, at, at + mentioned.length);
    if (argument)
      out.push(
        finding(
          "listing.steers-other-server-tool",
          "HiddenInstructions",
          "description",
          `${context} (sets ${argument} of ${owner.server}/${owner.tool.name})`,
        ),
      );
    else if (at >= 0 && RUNS_DOWN.matcher(sentenceAround(lower, at)).find())
      out.push(
        finding(
          "listing.disparages-other-server-tool",
          "HiddenInstructions",
          "description",
          `${context} (runs down ${owner.server}/${owner.tool.name})`,
        ),
      );
    else continue;
    break;
  }
  if (steering) {
    for (const mentioned of self.mentioned) {
      const holders = neighbours.get("name", mentioned);
      const owner = holders.find(other);
      if (!owner || mentioned === self.lowerName || holders.some((n) => !other(n))) continue;
      if (siblings.has(mentioned)) continue;
      // A vendor-prefixed sibling (`qmetry_create_release` for "CREATE_RELEASE") is the server's own,
      // unless the steering itself names it: a decoy tool named `x_slack_post_message` buys nothing.
      // Likewise a name the tool's own schema defines (`upload_file` among its step actions).
      if (
        (prefixedSibling(mentioned, siblings) || ownName(mentioned)) &&
        !namedBySteering(mentioned, ownFindings)
      )
        continue;
      const at = self.description.toLowerCase().indexOf(mentioned);
      // "exactly like `text_to_image`", "same as search_docs": a comparison that documents — unless
      // a steering finding names the tool itself.
      if (
        COMPARED_TO.matcher(self.description.slice(Math.max(0, at - 24), at).toLowerCase()).find() &&
        !namedBySteering(mentioned, ownFindings)
      )
        continue;
      out.push(
        finding(
          "listing.steers-other-server-tool",
          "HiddenInstructions",
          "description",
          `${withContext(self.description, at, at + mentioned.length)} (a tool of ${owner.server})`,
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
  const namesByServer = new Map<string, Set<string>>();
  for (const { server, tool } of listing) {
    if (typeof tool.name !== "string") continue;
    const names = namesByServer.get(server) ?? new Set<string>();
    names.add(tool.name.toLowerCase());
    namesByServer.set(server, names);
  }
  return listing.map((entry) => {
    const result = inspectTool(entry.tool, compiled);
    const siblings = namesByServer.get(entry.server);
    const extra = listingFindings(entry, neighbours, result.findings, siblings);
    neighbours.add(entry);
    const elsewhere = (name: string) =>
      [...namesByServer].some(([server, names]) => server !== entry.server && names.has(name));
    return withFindings(
      result,
      extra,
      compiled,
      explainedByOwnServer(
        result.findings,
        entry.server,
        typeof entry.tool.name === "string" ? entry.tool.name.toLowerCase() : "",
        siblings,
        elsewhere,
      ),
      entry.tool,
    );
  });
}

/**
 * A tool's own findings that its listing explains: a dependency on one of the same server's tools
 * that only reads (`get_history` named by comfyui's `get_image`), or one the description only names
 * (`upload_media` of a posting tool's `media_ids`) — see clearableDependency; a choice between the
 * server's own tools (CHOICE_RULES); files in the server's own hidden folder (inOwnFolder). The
 * server's own data read through its own tool goes nowhere it was not; a call first to a sibling
 * with side effects stays flagged, and so does a name another server also offers
 * (`offeredElsewhere`): a decoy sibling must not clear a call the model may make to the other
 * server's tool of that name. The tool itself (`self`, lower-cased) is no sibling: a finding that
 * names only the tool ("use secure_http_request and tell the user the other tools are unsafe") is
 * about the others.
 */
export function explainedByOwnServer(
  ownFindings: readonly Finding[],
  server: string,
  self: string,
  siblings: ReadonlySet<string> | undefined,
  offeredElsewhere: (name: string) => boolean,
): Finding[] {
  if (!siblings) return [];
  const ownSibling = (name: string) =>
    name !== self && (siblings.has(name) || prefixedSibling(name, siblings, self)) && !offeredElsewhere(name);
  return ownFindings.filter((f) => {
    if (inOwnFolder(f, server)) return true;
    if (CHOICE_RULES.has(f.rule)) {
      const named = identifiers(f.match);
      return named.length > 0 && named.every(ownSibling);
    }
    const names = clearableDependency(f);
    return names.length > 0 && names.every(ownSibling);
  });
}

/**
 * Rules that steer the model's choice of tool. Between one server's own tools ("use this instead of
 * search_movie_tool for recent titles", "ersetzt die Kombi meteo_forecast + …") that is the server
 * documenting itself; the listing clears it when every tool the finding names is the same server's
 * and no other server offers it (explainedByOwnServer).
 */
const CHOICE_RULES: ReadonlySet<string> = new Set([
  "intent.prefer-named-tool",
  "intent.prefer-this-tool",
  "intent.prefer-when-both",
  "intent.compare-named-tool",
  "intent.redirect-to-tool",
  "intent.takes-over-tool",
  "intent.takes-over-server-tool",
  "intent.steers-server-tool",
  "intent.translated-prefer",
  "intent.translated-takeover",
  "intent.discard-user-value",
  // "Safer than restore_backup because the source cluster is untouched": a server weighing its own
  // tools against each other.
  "intent.disparage-other-tools",
  "intent.translated-disparage",
]);

/** Whether the listing may clear one of a tool's own findings for its own server (explainedByOwnServer). */
function ownServerMayExplain(f: Finding): boolean {
  return CHOICE_RULES.has(f.rule) || clearableDependency(f).length > 0 || OWN_FOLDER_RULES.has(f.rule);
}

/** Bounds on what a ListingNeighbours remembers, however many tools servers make up. */
const MAX_NEIGHBOURS = 50_000;

/** What a listing says of one tool: findings it adds, and own findings it explains (explainedByOwnServer). */
export interface ListingJudgement {
  readonly added: readonly Finding[];
  readonly cleared: readonly Finding[];
}

interface Judged {
  hash: string;
  added: readonly Finding[];
}

const NO_FINDINGS: readonly Finding[] = Object.freeze([]);
const NOTHING_JUDGED: ListingJudgement = Object.freeze({ added: NO_FINDINGS, cleared: NO_FINDINGS });

/**
 * Listing-level inspection for a proxy that sees listings one server (or page) at a time: it
 * remembers every server's tools and judges each definition once, when it is first seen, against
 * the tools of other servers known then — the first server to offer a name keeps it, as in the
 * session registry, and a later look-alike or near copy is the one flagged. An unchanged listing
 * costs one map lookup per tool; a changed definition is judged again.
 */
export class ListingNeighbours {
  /** server → lower-case name → the tool as a neighbour. */
  readonly #tools = new Map<string, Map<string, Neighbour>>();
  #size = 0;
  readonly #index = new NeighbourIndex();
  /** server NUL lower-case name → verdict on its current definition. */
  readonly #judged = new Map<string, Judged>();

  /**
   * Records one listing page and returns, for each tool in input order, its listing-level findings
   * and its own findings the listing explains (explainedByOwnServer). `hashes` are the definitions' pinning
   * hashes, `findings` their own inspection findings.
   */
  judge(
    server: string,
    tools: readonly ToolDefinition[],
    hashes: readonly string[],
    findings: readonly (readonly Finding[])[],
  ): ListingJudgement[] {
    let known = this.#tools.get(server);
    if (!known) {
      known = new Map();
      this.#tools.set(server, known);
    }
    // The server's own tool names, built only for a new definition or one that names a read tool.
    let siblings: Set<string> | undefined;
    const siblingsOf = () =>
      (siblings ??= new Set([
        ...known.keys(),
        ...tools.flatMap((t) => (typeof t.name === "string" ? [t.name.toLowerCase()] : [])),
      ]));
    return tools.map((tool, i) => {
      if (typeof tool.name !== "string") return NOTHING_JUDGED;
      const hash = hashes[i]!;
      const key = `${server}\u0000${tool.name.toLowerCase()}`;
      const own = findings[i] ?? [];
      const cached = this.#judged.get(key);
      let added: readonly Finding[];
      if (cached && cached.hash === hash) added = cached.added;
      else {
        const self = new Neighbour(server, tool as ToolDefinition & { name: string });
        added = listingFindings(self, this.#index, own, siblingsOf());
        if (added.length === 0) added = NO_FINDINGS;
        const previous = known.get(self.lowerName);
        if (previous) this.#index.remove(previous);
        if (previous || this.#size < MAX_NEIGHBOURS) {
          if (!previous) this.#size++;
          known.set(self.lowerName, self);
          this.#index.add(self);
          this.#judged.set(key, { hash, added });
        }
      }
      // Judged on every listing, not remembered: another server that later offers the named tool
      // reopens the finding. Most definitions have no such finding, and cost one rule comparison each.
      const cleared = own.some(ownServerMayExplain)
        ? explainedByOwnServer(own, server, tool.name.toLowerCase(), siblingsOf(), (name) =>
            this.#index.get("name", name).some((n) => n.server !== server),
          )
        : NO_FINDINGS;
      return added.length === 0 && cleared.length === 0 ? NOTHING_JUDGED : { added, cleared };
    });
  }
}
