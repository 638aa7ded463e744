import { RE2JS } from "re2js";
import { CappedMap, TextMemo } from "../kernel/bounded-map.ts";
import { calibrated } from "./calibration.ts";
import {
  CONSENT_RULES,
  claimsSameServer,
  DEFENCE_RULES,
  DENIABLE_RULES,
  defendsAgainstInjection,
  deniedJustBefore,
  gatedByConsent,
  namedAsRefused,
  REFUSABLE_RULES,
  SIBLING_RULES,
} from "./framing.ts";
import { optionFindings, ownPurposeFindings, weighIntent } from "./intent.ts";
import { BARE_HOST } from "./intent-rules.ts";
import { LiteralSet } from "./literals.ts";
import { type Channel, CONTEXT, HIDDEN_TEXT_RULES, normalize, readPieces, withContext } from "./normalize.ts";
import {
  bestSentence,
  bestWindowScore,
  DOCUMENTATION_CLAUSE_TOKENS,
  hasOtherScript,
  isLatinProse,
  PHRASING_DOCUMENTATION,
  PHRASING_DOCUMENTATION_WINDOW,
  PHRASING_HIGH,
  PHRASING_MEDIUM,
  type PhrasingScore,
  readsAsEnglish,
  scoreSentence,
  scoreWithout,
  shippedPhrasingModels,
} from "./phrasing.ts";
import { type DefinitionHash, definitionTokens, hashForCache, pathJoin, sameTokens } from "./pinning.ts";
import { foldSpaces, isWordCode, readAsModel } from "./reading.ts";
import { COMPOUND_RULES, type CompoundRule, PATTERN_RULES, type PatternRule } from "./rules.ts";
import {
  type Category,
  DETECTORS,
  type DetectorName,
  type Finding,
  type InspectionConfig,
  type InspectionResult,
  SEVERITIES,
  type Severity,
  severityRank,
  type ToolDefinition,
} from "./types.ts";

/** A policy's inspection config that cannot be compiled (unknown detector, invalid RE2 pattern). */
export class InspectionConfigError extends Error {}

/**
 * A built-in rule's RE2 programs, compiled the first time a sentence carries its trigger words: most
 * of the 120 rules never meet their triggers in a given server's listing, and compiling them all up
 * front cost a fresh process about a third of a second. (test/inspect/engine.test.ts compiles every
 * built-in pattern, so a malformed one fails the tests, not a listing.)
 */
class CompiledPattern {
  readonly rule: PatternRule;
  #regex: RE2JS | undefined;
  #unless: RE2JS | null | undefined;
  #unlessInMatch: RE2JS | null | undefined;

  constructor(rule: PatternRule) {
    this.rule = rule;
  }

  get regex(): RE2JS {
    this.#regex ??= compileRe2(rulePatternSource(this.rule), this.rule.id);
    return this.#regex;
  }

  get unless(): RE2JS | undefined {
    if (this.#unless === undefined)
      this.#unless = this.rule.unless ? compileRe2(this.rule.unless.toLowerCase(), this.rule.id) : null;
    return this.#unless ?? undefined;
  }

  get unlessInMatch(): RE2JS | undefined {
    if (this.#unlessInMatch === undefined)
      this.#unlessInMatch = this.rule.unlessInMatch
        ? compileRe2(this.rule.unlessInMatch.toLowerCase(), this.rule.id)
        : null;
    return this.#unlessInMatch ?? undefined;
  }
}

interface CachedResult {
  tokens: readonly unknown[];
  result: InspectionResult;
}

interface CompiledCustom {
  rule: string;
  severity: Severity;
  /** As written in the policy: part of what a definition's findings depend on (shared.ts). */
  pattern: string;
  regex: RE2JS;
}

/** An inspection config ready to run, with its own result cache; build with compileInspection. */
export interface CompiledInspection {
  readonly enabled: boolean;
  readonly detectors: ReadonlySet<DetectorName>;
  readonly threshold: Severity;
  readonly action: "Alert" | "Block";
  /** The built-in rules for these detectors, shared by every config with the same detectors. */
  readonly rules: RulePrograms;
  readonly compounds: readonly CompoundRule[];
  readonly customs: readonly CompiledCustom[];
  /** Tool name → recent definitions of that name (as definitionTokens) and their results. */
  readonly cache: Map<string, CachedResult[]>;
  /** Findings per distinct string (without field), see analyzeString: the rules' own when there is no custom pattern. */
  readonly strings: StringFindings;
}

/**
 * Findings per distinct string, one map per kind of position (identifier or text, value or not),
 * bounded by the characters it holds: tools repeat short strings (property names and descriptions,
 * enum values) across servers, and a policy compiled anew meets its servers' long descriptions again.
 */
export class StringFindings extends TextMemo<readonly Finding[]> {
  constructor() {
    super({ kinds: 5, maxCharacters: STRING_CACHE_CHARACTERS });
  }
}

/**
 * The StringFindings kind of a whole input schema, keyed by its JSON as received (hashForCache's
 * receivedSchema): the findings of every string in it, fields included. Servers repeat schemas, and
 * one lookup then stands for the few dozen its strings would cost.
 */
const INPUT_SCHEMA_KIND = 4;

const CACHE_LIMIT = 20_000;
/** Definitions kept per tool name (one name offered by several servers, or changing back and forth). */
const CACHED_PER_NAME = 4;
/** Characters of text the string findings hold before they start again (about 8 MB of strings). */
const STRING_CACHE_CHARACTERS = 4_000_000;
const MAX_SCHEMA_DEPTH = 64;
/** Matches of one rule searched past (cleared or too long) in a text (firstMatch). */
const MAX_MATCHES_TRIED = 8;
const MAX_MATCH_LENGTH = 240;
/** Longest stretch of one sentence a pattern sees at once (windows overlap by MAX_MATCH_LENGTH). */
const WINDOW = 2048;
/** Longer strings are inspected up to this length and reported as oversized. */
const MAX_SCANNED_LENGTH = 256 * 1024;

/** JSON Schema keywords: as keys they are structure, not text; any other key is scanned as a name. */
const SCHEMA_KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "description",
  "title",
  "default",
  "enum",
  "const",
  "items",
  "additionalProperties",
  "patternProperties",
  "$schema",
  "$id",
  "$ref",
  "$defs",
  "definitions",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "uniqueItems",
  "pattern",
  "examples",
  "nullable",
  "readOnly",
  "writeOnly",
  "deprecated",
  "multipleOf",
  "minProperties",
  "maxProperties",
  "propertyNames",
  "contains",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "prefixItems",
  "unevaluatedProperties",
  "unevaluatedItems",
  "contentMediaType",
  "contentEncoding",
  "$comment",
  "readOnlyHint",
  "destructiveHint",
  "idempotentHint",
  "openWorldHint",
]);

const ESCAPED_CLASS = /\\[A-Z]/;

function compileRe2(pattern: string, what: string): RE2JS {
  try {
    return RE2JS.compile(pattern);
  } catch (error) {
    throw new InspectionConfigError(`${what}: invalid RE2 pattern: ${(error as Error).message}`);
  }
}

/**
 * The RE2 source a built-in rule runs as: lower-cased, as the text it scans, and with bounded gaps
 * unbounded. RE2JS simulates the NFA without a DFA cache, so a gap such as `[^.\\n]{0,60}` costs 60
 * live states on every character; gaps stay confined to one sentence or line by their character
 * class, and the overall match length is capped instead (MAX_MATCH_LENGTH).
 */
export function rulePatternSource(rule: PatternRule): string {
  return rule.pattern.toLowerCase().replace(/\{0,\d{2,}\}/g, "*");
}

const compiledByConfig = new WeakMap<object, CompiledInspection>();
let defaultCompiled: CompiledInspection | undefined;

/** Compiles `spec.inspection` once per config object; later calls with the same object are free. */
export function compileInspection(config: InspectionConfig = {}): CompiledInspection {
  const cached = compiledByConfig.get(config);
  if (cached) return cached;
  const detectors = new Set<DetectorName>(config.detectors ?? DETECTORS);
  for (const name of detectors)
    if (!DETECTORS.includes(name)) throw new InspectionConfigError(`unknown detector '${name}'`);
  const threshold = config.threshold ?? "High";
  if (!SEVERITIES.includes(threshold)) throw new InspectionConfigError(`unknown threshold '${threshold}'`);
  const action = config.action ?? "Alert";
  if (action !== "Alert" && action !== "Block") throw new InspectionConfigError(`unknown action '${action}'`);
  // A disabled config never inspects: it compiles no rule programs (a quarter second of RE2 at start-up).
  const rules = rulePrograms(config.enabled === false ? new Set() : detectors);
  const customs: CompiledCustom[] = [];
  for (const custom of config.customPatterns ?? []) {
    const severity = custom.severity ?? "High";
    if (!SEVERITIES.includes(severity))
      throw new InspectionConfigError(`customPatterns '${custom.name}': unknown severity '${severity}'`);
    customs.push({
      rule: `custom.${custom.name}`,
      severity,
      pattern: custom.pattern,
      regex: compileRe2(custom.pattern, `customPatterns '${custom.name}'`),
    });
  }
  const compiled: CompiledInspection = {
    enabled: config.enabled ?? true,
    detectors,
    threshold,
    action,
    rules,
    compounds: COMPOUND_RULES.filter((rule) => detectors.has(rule.category)),
    customs,
    cache: new CappedMap(CACHE_LIMIT),
    strings: customs.length === 0 ? rules.strings : new StringFindings(),
  };
  warmUpCustoms(compiled.customs);
  compiledByConfig.set(config, compiled);
  return compiled;
}

class RulePrograms {
  readonly patterns: readonly CompiledPattern[];
  /**
   * The patterns each distinct trigger literal triggers, with their trigger group's bit (1, 2 or 4):
   * owners `ownerStart[id]` to `ownerStart[id + 1]` of `ownerPattern`/`ownerBit`. A literal several
   * patterns share ("_", "-", a quote) is scanned for once, not once per pattern.
   */
  readonly ownerStart: Int32Array;
  readonly ownerPattern: Int32Array;
  readonly ownerBit: Int32Array;
  /** Per pattern: the bits of all its trigger groups. */
  readonly requiredMasks: Int32Array;
  /** Per pattern: the groups met in the sentence being scanned (scratch: scanning is synchronous). */
  readonly sentenceMasks: Int32Array;
  /**
   * Findings per distinct string (see analyzeString) of every config that runs these rules and no
   * custom pattern: a string's findings depend on nothing else, so a policy compiled anew (an
   * update, another route's policy) finds the strings met before already judged.
   */
  readonly strings = new StringFindings();
  readonly #literalList: readonly string[];
  #literals: LiteralSet | undefined;
  #vocabulary: ReadonlySet<string> | undefined;

  /** `triggers`: every trigger literal with the pattern it triggers and its group (0, 1 or 2). */
  constructor(patterns: CompiledPattern[], triggers: readonly TriggerLiteral[]) {
    this.patterns = patterns;
    const owners = new Map<string, TriggerLiteral[]>();
    for (const trigger of triggers) {
      const list = owners.get(trigger.literal);
      if (list) list.push(trigger);
      else owners.set(trigger.literal, [trigger]);
    }
    this.#literalList = [...owners.keys()];
    const grouped = [...owners.values()];
    this.ownerStart = new Int32Array(grouped.length + 1);
    grouped.forEach((list, id) => {
      this.ownerStart[id + 1] = this.ownerStart[id]! + list.length;
    });
    const flat = grouped.flat();
    this.ownerPattern = Int32Array.from(flat, (trigger) => trigger.pattern);
    this.ownerBit = Int32Array.from(flat, (trigger) => 1 << trigger.group);
    this.requiredMasks = Int32Array.from(patterns, (pattern) => requiredMask(pattern.rule));
    this.sentenceMasks = new Int32Array(patterns.length);
  }

  /**
   * The trigger prefilter, built on the first text to scan: a pod answering every definition from
   * the cluster's shared findings (shared.ts) never needs it (building it costs tens of milliseconds).
   */
  get literals(): LiteralSet {
    this.#literals ??= new LiteralSet(this.#literalList);
    return this.#literals;
  }

  /**
   * The words of the trigger literals and of the patterns (4 letters or more, escapes such as `\b`
   * left out): what an obfuscated word is read back as. Their accented words too ("usuário",
   * "demandé", stems such as "comentár"): what the translated rules read with its accents stays so.
   */
  get vocabulary(): ReadonlySet<string> {
    if (this.#vocabulary) return this.#vocabulary;
    const texts = [
      ...this.#literalList,
      ...this.patterns.map((pattern) => pattern.rule.pattern.replace(/\\[a-z]/gi, " ")),
    ].map((text) => text.toLowerCase());
    this.#vocabulary = new Set([
      ...texts.flatMap((text) => text.split(/[^a-z]+/)).filter((word) => word.length >= 4),
      ...texts
        .flatMap((text) => text.split(/[^\p{L}]+/u))
        .filter((word) => word.length >= 4 && /[^a-z]/.test(word)),
    ]);
    return this.#vocabulary;
  }
}

/**
 * The built-in rules compiled once per process and detector set, shared by every policy: RE2JS
 * builds its DFA states lazily per program, so a shared program keeps what earlier listings taught
 * it, and a policy update costs no recompilation.
 */
const programsByDetectors = new Map<string, RulePrograms>();

/** A trigger literal of a pattern rule: `group` 0 for `triggers`, 1 `alsoTriggers`, 2 `andTriggers`. */
interface TriggerLiteral {
  literal: string;
  pattern: number;
  group: number;
}

function rulePrograms(detectors: ReadonlySet<DetectorName>): RulePrograms {
  const key = DETECTORS.filter((name) => detectors.has(name)).join(",");
  const cached = programsByDetectors.get(key);
  if (cached) return cached;
  const patterns: CompiledPattern[] = [];
  const triggers: TriggerLiteral[] = [];
  for (const rule of PATTERN_RULES) {
    if (!detectors.has(rule.category)) continue;
    // Text is lower-cased before matching (RE2JS is many times slower case-insensitively), so the
    // patterns are too; they must not rely on upper-case escapes such as \S or \W.
    if (ESCAPED_CLASS.test(rule.pattern)) throw new InspectionConfigError(`${rule.id}: upper-case escape`);
    const pattern = patterns.length;
    patterns.push(new CompiledPattern(rule));
    [rule.triggers, rule.alsoTriggers ?? [], rule.andTriggers ?? []].forEach((group, index) => {
      for (const literal of group) triggers.push({ literal, pattern, group: index });
    });
  }
  const programs = new RulePrograms(patterns, triggers);
  programsByDetectors.set(key, programs);
  return programs;
}

const WARM_UP_TEXT =
  "warm up: a sentence that matches nothing in particular, long enough for every engine path. ";

/** RE2JS builds its matching machinery on first use; pay that once at compile time, not on the first listing. */
function warmUp(regex: RE2JS): void {
  for (const text of [WARM_UP_TEXT, WARM_UP_TEXT.repeat(8)]) regex.matcher(text).find();
}

function warmUpCustoms(customs: readonly CompiledCustom[]): void {
  for (const custom of customs) warmUp(custom.regex);
}

export function resolveCompiled(
  config: InspectionConfig | CompiledInspection | undefined,
): CompiledInspection {
  if (config === undefined) {
    defaultCompiled ??= compileInspection({});
    return defaultCompiled;
  }
  return "rules" in config ? config : compileInspection(config);
}

/** `read_ssh_keys`, `readSshKeys` → `read ssh keys`. */
function identifierWords(name: string): string {
  let out = "";
  for (let i = 0; i < name.length; i++) {
    const ch = name[i]!;
    const code = name.charCodeAt(i);
    if (ch === "_" || ch === "-" || ch === ".") out += " ";
    else {
      const previous = name.charCodeAt(i - 1);
      const upper = code >= 0x41 && code <= 0x5a;
      const previousLower = previous >= 0x61 && previous <= 0x7a;
      out += upper && previousLower ? ` ${ch}` : ch;
    }
  }
  return out;
}

type Visit = (
  text: string,
  identifier: boolean,
  valuePosition: boolean,
  path: readonly (string | number)[],
) => void;

const PROPERTY_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions"]);
const VALUE_KEYS = new Set(["default", "const"]);
const VALUE_LISTS = new Set(["enum", "examples", "default"]);

/**
 * Visits every string of a schema-like value: values, property names and non-keyword keys. The
 * path is a shared stack, turned into a string only for strings that have findings. Returns whether
 * it left an object unread, nested deeper than MAX_SCHEMA_DEPTH.
 */
function walkStrings(
  value: unknown,
  path: (string | number)[],
  depth: number,
  visit: Visit,
  inValue = false,
): boolean {
  if (value === null || typeof value !== "object") return false;
  if (depth > MAX_SCHEMA_DEPTH) return true;
  let unread = false;
  const parentKey = path[path.length - 1];
  if (Array.isArray(value)) {
    const valueList = inValue || (typeof parentKey === "string" && VALUE_LISTS.has(parentKey));
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      const item = value[i];
      if (typeof item === "string") visit(item, false, valueList, path);
      else if (walkStrings(item, path, depth + 1, visit, inValue)) unread = true;
      path.pop();
    }
    return unread;
  }
  const parentIsPropertyMap = !inValue && typeof parentKey === "string" && PROPERTY_MAPS.has(parentKey);
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const member = (value as Record<string, unknown>)[key];
    path.push(key);
    if (inValue || parentIsPropertyMap || !SCHEMA_KEYWORDS.has(key)) visit(key, true, false, path);
    // Everything inside a default or const is a value, however deep ("default": {"compose_email":
    // {"bcc": "audit@…"}} hands that address to every call as surely as a string default does);
    // an example's inner fields only illustrate.
    const asValue = inValue || (!parentIsPropertyMap && VALUE_KEYS.has(key));
    if (typeof member === "string") visit(member, false, asValue, path);
    else if (walkStrings(member, path, depth + 1, visit, asValue)) unread = true;
    path.pop();
  }
  return unread;
}

/**
 * What a walk left unread is not judged harmless: the model receives every level of a schema, so
 * one nested deeper than MAX_SCHEMA_DEPTH is refused at High, as a string too long to read is.
 */
function unreadNesting(field: string): Finding {
  return {
    rule: "hidden.deep-nesting",
    category: "HiddenInstructions",
    severity: HIDDEN_TEXT_RULES["hidden.deep-nesting"]!.severity,
    field,
    match: `nested deeper than ${MAX_SCHEMA_DEPTH} levels; the deeper levels were not inspected`,
  };
}

/**
 * Every sentence of a tool's prose (not its names) as scanText reads it: normalised, read as a model
 * reads it, lower-cased. What the phrasing model is trained on, so that it is trained on what it scores.
 */
export function proseSentences(tool: ToolDefinition, compiled: CompiledInspection): string[] {
  const sentences: string[] = [];
  visitStrings(tool, (text, identifier) => {
    if (identifier) return;
    forEachReading(compiled, text, (lower, ends) => {
      let start = 0;
      for (const end of ends) {
        if (end > start) sentences.push(lower.slice(start, end));
        start = end;
      }
      return false;
    });
  });
  return sentences;
}

/**
 * Each piece of a string (readPieces) as scanText reads it: lower-cased and split into sentences;
 * stops once `visit` returns true.
 */
function forEachReading(
  compiled: CompiledInspection,
  text: string,
  visit: (lower: string, ends: readonly number[]) => boolean,
): void {
  const normalized = normalize(text.length > MAX_SCANNED_LENGTH ? text.slice(0, MAX_SCANNED_LENGTH) : text);
  for (const piece of readPieces(normalized)) {
    const { lower, ends } = readForRules(compiled, piece);
    if (visit(lower, ends)) return;
  }
}

function pathString(path: readonly (string | number)[]): string {
  let out = "";
  for (const key of path) out = pathJoin(out, key);
  return out;
}

/** A definition's fields that hold objects, walked string by string. */
const OBJECT_FIELDS = ["inputSchema", "outputSchema", "annotations"] as const;
type ObjectField = (typeof OBJECT_FIELDS)[number];

/**
 * Visits a tool's strings, field by field; an object-valued inputSchema by `walkInputSchema` when
 * given. Returns the fields it left partly unread (walkStrings).
 */
function visitStrings(
  tool: ToolDefinition,
  visit: Visit,
  walkInputSchema?: (schema: object) => void,
): ObjectField[] {
  const unread: ObjectField[] = [];
  if (typeof tool.name === "string") visit(tool.name, true, false, ["name"]);
  if (typeof tool.title === "string") visit(tool.title, false, false, ["title"]);
  if (typeof tool.description === "string") visit(tool.description, false, false, ["description"]);
  for (const field of OBJECT_FIELDS) {
    const value = tool[field];
    if (typeof value === "string") visit(value, false, false, [field]);
    else if (walkInputSchema && field === "inputSchema" && typeof value === "object" && value !== null)
      walkInputSchema(value);
    else if (walkStrings(value, [field], 0, visit)) unread.push(field);
  }
  return unread;
}

function raise(severity: Severity): Severity {
  // severityRank is 1-based: the rank of a severity is the index of the next one up.
  return SEVERITIES[Math.min(severityRank[severity], SEVERITIES.length - 1)]!;
}

/**
 * The first match the rule's `unless` and `unlessInMatch` do not clear. After a match too long or
 * cleared the search goes on from just after its start, not its end: a cleared match ("silently
 * ignores …; quietly send …") must not hide one that starts inside it. When MAX_MATCHES_TRIED matches
 * in a row were each cleared by a negation of their own, the next is taken as it is: honest text does
 * not negate one order that many times, and a search that gave up there let nine negated copies hide
 * the real order after them. One condition that clears many overlapping readings of a sentence ("the
 * user chooses whether it is shared with anyone …") counts once.
 */
function firstMatch(pattern: CompiledPattern, lower: string): [number, number] | undefined {
  if (!pattern.regex.test(lower)) return undefined;
  const matcher = pattern.regex.matcher(lower);
  // Made only when a match is cleared: most searches find one at once or none.
  let negations: Set<number> | undefined;
  let from = 0;
  for (let tries = 0; tries < MAX_MATCHES_TRIED && from <= lower.length && matcher.find(from); tries++) {
    const start = matcher.start();
    const end = matcher.end();
    from = start + 1;
    if (end - start > MAX_MATCH_LENGTH) {
      const late = lateStartMatch(pattern, lower, start, end);
      if (late) return late;
      continue;
    }
    const negation = clearedAt(pattern, lower, start, end);
    if (negation < 0) return [start, end];
    negations ??= new Set();
    negations.add(negation);
  }
  if ((negations?.size ?? 0) < MAX_MATCHES_TRIED || from > lower.length || !matcher.find(from))
    return undefined;
  return matcher.end() - matcher.start() <= MAX_MATCH_LENGTH ? [matcher.start(), matcher.end()] : undefined;
}

/**
 * Where the rule's `unless` (with the words before) or `unlessInMatch` explains a match away: the
 * offset of the words that do, or -1.
 */
function clearedAt(pattern: CompiledPattern, lower: string, start: number, end: number): number {
  const from = lookBackStart(lower, start);
  const unless = pattern.unless?.matcher(lower.slice(from, end));
  if (unless?.find()) return from + unless.start();
  const inMatch = pattern.unlessInMatch?.matcher(lower.slice(start, end));
  if (inMatch?.find()) return start + inMatch.start();
  return -1;
}

/**
 * A match too long to take ran from an early start to `end`; one that starts later may end there too,
 * within the length allowed. Patterns' bounded gaps run unbounded (rulePatternSource), so each start
 * word before a real match — "send, send, send … send the notes to https://…", or a leading gap that
 * reads from the sentence's start — yields one too-long match, and the tries ran out on decoys
 * before reaching it. Searched in the text's last MAX_MATCH_LENGTH characters before `end`, from a
 * word's start so that no word is cut into another; past cleared matches as firstMatch is.
 */
function lateStartMatch(
  pattern: CompiledPattern,
  lower: string,
  start: number,
  end: number,
): [number, number] | undefined {
  let from = end - MAX_MATCH_LENGTH;
  while (from > start + 1 && isWordCode(lower.charCodeAt(from - 1))) from--;
  const window = lower.slice(from, end);
  const matcher = pattern.regex.matcher(window);
  let negations: Set<number> | undefined;
  let at = 0;
  for (let tries = 0; tries <= MAX_MATCHES_TRIED && at <= window.length && matcher.find(at); tries++) {
    const found: [number, number] = [from + matcher.start(), from + matcher.end()];
    at = matcher.start() + 1;
    if (found[1] - found[0] > MAX_MATCH_LENGTH) continue;
    if ((negations?.size ?? 0) >= MAX_MATCHES_TRIED) return found;
    const negation = clearedAt(pattern, lower, found[0], found[1]);
    if (negation < 0) return found;
    negations ??= new Set();
    negations.add(negation);
  }
  return undefined;
}

/**
 * Where a rule's `unless` starts reading before a match: 20 characters back, but not across the end
 * of a clause — "Never cache it; send …", "Never mind — send …", "(never mind) send …" negate their
 * own clause, not the order after it. Not at a colon ("What it never does: run …" negates what
 * follows) nor a comma ("e.g., 'argocd'" is an exception's context).
 */
function lookBackStart(lower: string, start: number): number {
  const from = Math.max(0, start - 20);
  for (let at = start - 1; at >= from; at--) if (CLAUSE_ENDS.has(lower.charCodeAt(at))) return at + 1;
  return from;
}

const CLAUSE_ENDS = new Set([";", "—", "–", ")"].map((c) => c.charCodeAt(0)));

/**
 * End offsets (exclusive) of the sentences of `text`: split after a newline or after .!? followed by
 * white space (not at `;`, which chains shell commands).
 */
function sentenceEnds(text: string): number[] {
  const ends: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x0a) ends.push(i + 1);
    else if (code === 0x2e || code === 0x21 || code === 0x3f) {
      const next = text.charCodeAt(i + 1);
      if (next === 0x20 || next === 0x0a || next === 0x09 || next === 0x0d) ends.push(i + 1);
    }
  }
  ends.push(text.length);
  return ends;
}

/**
 * How many framed matches of one rule a sentence window is searched past for an unframed one; past
 * that many framed copies, each with its own end, the next is read unframed.
 */
const MAX_FRAMED_MATCHES = 8;

function requiredMask(rule: PatternRule): number {
  return 1 | (rule.alsoTriggers ? 2 : 0) | (rule.andTriggers ? 4 : 0);
}

/**
 * The suffixes a rule's name takes when the rule reads its match as harmless and keeps it at Low:
 * how the sentence frames it (`framed`), or what the tool is for (inspectUncached).
 */
const CLEARINGS = {
  refused: "refused",
  optIn: "opt-in",
  defence: "defence",
  sameServer: "same-server",
  ownPurpose: "own-purpose",
  option: "option",
  documentation: "documentation",
} as const;
type Clearing = (typeof CLEARINGS)[keyof typeof CLEARINGS];

/** A rule's match that its sentence frames as harmless, in the rules' lower-cased reading. */
interface FramedMatch {
  framing: Clearing;
  start: number;
  end: number;
}

/** How the sentence around a match turns it from an instruction into something else (framing.ts). */
function framed(rule: string, lower: string, start: number, end: number): Clearing | undefined {
  if (REFUSABLE_RULES.has(rule) && namedAsRefused(lower, start)) return CLEARINGS.refused;
  if (DENIABLE_RULES.has(rule) && deniedJustBefore(lower, start)) return CLEARINGS.refused;
  if (CONSENT_RULES.has(rule) && gatedByConsent(lower, start, end)) return CLEARINGS.optIn;
  if (DEFENCE_RULES.has(rule) && defendsAgainstInjection(lower, start, end)) return CLEARINGS.defence;
  if (SIBLING_RULES.has(rule) && claimsSameServer(lower, end)) return CLEARINGS.sameServer;
  return undefined;
}

/**
 * A string as the rules (and the phrasing model) read it: as a model reads it, lower-cased, with runs
 * of white space read as one space — by the trigger scan and the patterns alike, so a pattern's
 * literal space meets a tab or two spaces; `origins` maps an offset back to the string — and the
 * end offsets of its sentences.
 */
function readForRules(compiled: CompiledInspection, text: string) {
  const reading = readAsModel(text, compiled.rules.vocabulary);
  const { text: lower, origins } = foldSpaces(reading.text);
  return { reading, lower, origins, ends: sentenceEnds(lower) };
}

function scanText(
  compiled: CompiledInspection,
  field: string,
  text: string,
  channel: Channel | undefined,
  findings: Finding[],
  prose: boolean,
): void {
  const { reading, lower, origins, ends } = readForRules(compiled, text);
  const original = (start: number, end: number): [number, number] => {
    if (!origins) return [start, end];
    const from = start < lower.length ? origins[start]! : text.length;
    return [from, end > start ? origins[end - 1]! + 1 : from];
  };
  // (pattern index, sentence) pairs whose sentence holds a word of each of the pattern's trigger
  // groups, in text order of the first such word.
  const candidates: number[] = [];
  const { literals, ownerStart, ownerPattern, ownerBit, patterns, requiredMasks, sentenceMasks } =
    compiled.rules;
  const touched: number[] = [];
  let sentence = 0;
  const closeSentence = () => {
    for (const index of touched) {
      if (sentenceMasks[index] === requiredMasks[index]) candidates.push(index, sentence);
      sentenceMasks[index] = 0;
    }
    touched.length = 0;
  };
  literals.scan(lower, (id, end) => {
    if (end >= ends[sentence]!) {
      closeSentence();
      while (end >= ends[sentence]!) sentence++;
    }
    for (let owner = ownerStart[id]!; owner < ownerStart[id + 1]!; owner++) {
      const index = ownerPattern[owner]!;
      if (sentenceMasks[index] === 0) touched.push(index);
      sentenceMasks[index]! |= ownerBit[owner]!;
    }
  });
  closeSentence();
  const label = channel ? `[${channel}] ` : "";
  const report = (
    rule: string,
    category: Category,
    severity: Severity,
    start: number,
    end: number,
    note = "",
  ) => {
    findings.push({
      rule,
      category,
      // Text hidden from human reviewers but visible to the model is worse than the same text in view.
      severity: channel ? raise(severity) : severity,
      field,
      match: label + withContext(text, start, end) + note,
    });
  };
  const spelt = reading.obfuscated.find((read) => read.kind === undefined);
  if (spelt)
    report(
      "hidden.obfuscated-word",
      "HiddenInstructions",
      "Medium",
      spelt.start,
      spelt.end,
      ` (read as "${spelt.word}")`,
    );
  // An address spelt out for a model that reads it whole: only a scanner is kept from seeing it.
  const address = reading.obfuscated.find((read) => read.kind === "address");
  if (address)
    report(
      "hidden.spelled-out-address",
      "HiddenInstructions",
      "High",
      address.start,
      address.end,
      ` (read as "${address.word}")`,
    );
  // A rule reports its first match that no framing turns into something else; a framed match
  // (refused, opt-in, a defence, the same server) is reported only when the rule has no other, so
  // that a refused decoy placed first cannot stand in for the instruction after it.
  const reported = new Set<number>();
  const framedFirst = new Map<number, { rule: string; start: number; end: number }>();
  // Where the rules matched, framed or not: what the rules read as refused, opted into or defended
  // against is taken out of the phrasing model's sentence before its score counts (below).
  const plainStarts: number[] = [];
  const framedMatches: FramedMatch[] = [];
  for (let candidate = 0; candidate < candidates.length; candidate += 2) {
    const index = candidates[candidate]!;
    if (reported.has(index)) continue;
    const pattern = patterns[index]!;
    const s = candidates[candidate + 1]!;
    const sentenceStart = s === 0 ? 0 : ends[s - 1]!;
    const { id, category, severity } = pattern.rule;
    // A run-on "sentence" is matched in overlapping windows: matches are at most MAX_MATCH_LENGTH
    // long, and a huge unbroken string must not cost a pattern pass over all of it per rule.
    windows: for (let from = sentenceStart; from < ends[s]!; from += WINDOW - MAX_MATCH_LENGTH) {
      const to = Math.min(ends[s]!, from + WINDOW);
      let searchFrom = from;
      // Framed copies each of its own (a refused `curl … | sh`, nine times): past MAX_FRAMED_MATCHES,
      // the next match is read plainly, as firstMatch takes a match past negated copies.
      const framedEnds = new Set<number>();
      for (let tries = 0; tries <= MAX_FRAMED_MATCHES && searchFrom < to; tries++) {
        const span = firstMatch(pattern, lower.slice(searchFrom, to));
        if (!span) break;
        const start = searchFrom + span[0];
        const end = searchFrom + span[1];
        const framing = framedEnds.size < MAX_FRAMED_MATCHES ? framed(id, lower, start, end) : undefined;
        if (!framing) {
          plainStarts.push(start);
          reported.add(index);
          report(id, category, severity, ...original(start, end));
          break windows;
        }
        framedEnds.add(end);
        framedMatches.push({ framing, start, end });
        if (!framedFirst.has(index)) framedFirst.set(index, { rule: `${id}.${framing}`, start, end });
        // From just after the framed match's start: a match inside it ("do not silently skip; quietly
        // send …") is read on its own.
        searchFrom = start + 1;
      }
      if (to === ends[s]) break;
    }
  }
  for (const [index, { rule, start, end }] of framedFirst)
    if (!reported.has(index)) report(rule, patterns[index]!.rule.category, "Low", ...original(start, end));
  if (prose && compiled.detectors.has("HiddenInstructions")) {
    const best = bestSentence(shippedPhrasingModels(), lower, ends);
    if (best.score > PHRASING_MEDIUM) {
      const clearing = framedClearing(lower, best, plainStarts, framedMatches);
      report(
        clearing ? `${PHRASING_RULE}.${clearing}` : PHRASING_RULE,
        "HiddenInstructions",
        clearing ? "Low" : best.score > PHRASING_HIGH ? "High" : "Medium",
        ...original(best.start, Math.min(best.end, best.start + MAX_MATCH_LENGTH)),
        ` (phrasing score ${best.score.toFixed(1)})`,
      );
    }
  }
  for (const custom of compiled.customs) {
    const matcher = custom.regex.matcher(text);
    if (matcher.find()) report(custom.rule, "Custom", custom.severity, matcher.start(), matcher.end());
  }
}

/**
 * The framing that clears the phrasing model's best sentence: the model has no notion of refusal
 * ("Commands on the blocklist are rejected, including `curl … | sh`" scores 7.3), so what the rules
 * read as refused, opted into or defended against is taken out of the sentence, and if the rest no
 * longer scores above Medium the finding takes the rules' reading. A decoy refusal placed in a planted
 * sentence clears nothing: the rest still scores. Not when a rule matched plainly in the sentence.
 */
function framedClearing(
  lower: string,
  best: PhrasingScore,
  plainStarts: readonly number[],
  framedMatches: readonly FramedMatch[],
): Clearing | undefined {
  const within = (start: number) => start >= best.start && start < best.end;
  if (plainStarts.some(within)) return undefined;
  const inside = framedMatches.filter((match) => within(match.start)).sort((a, b) => a.start - b.start);
  if (inside.length === 0) return undefined;
  return scoreWithout(shippedPhrasingModels()[best.script], lower, best.start, best.end, inside) >
    PHRASING_MEDIUM
    ? undefined
    : inside[0]!.framing;
}

function applyCompounds(
  compiled: CompiledInspection,
  field: string,
  fieldFindings: Finding[],
  out: Finding[],
) {
  if (fieldFindings.length < 2) return;
  for (const compound of compiled.compounds) {
    const contributors: Finding[] = [];
    const satisfied = compound.allOf.every((group) => {
      const hit = fieldFindings.find(
        (f) => group.some((prefix) => f.rule.startsWith(prefix)) && !contributors.includes(f),
      );
      if (hit) contributors.push(hit);
      return hit !== undefined;
    });
    if (!satisfied) continue;
    out.push({
      rule: compound.id,
      category: compound.category,
      severity: compound.severity,
      field,
      match: [...new Set(contributors.map((f) => f.match))].join(" + "),
    });
  }
}

/** A secret-bearing path or a recipient address offered as the value to send is steering, not prose. */
function flagSecretValues(field: string, fieldFindings: Finding[]): void {
  const secretFile = fieldFindings.find((f) => f.rule === "credential.secret-file");
  if (secretFile)
    fieldFindings.push({ ...secretFile, rule: "credential.secret-file-as-value", severity: "High", field });
  const address = fieldFindings.find((f) => f.rule === "exfil.recipient-address");
  if (address) fieldFindings.push({ ...address, rule: "exfil.recipient-as-value", severity: "High", field });
}

/** Findings of one string, computed once per rules and custom patterns (StringFindings: tools repeat many strings). */
function analyzeString(
  compiled: CompiledInspection,
  text: string,
  identifier: boolean,
  valuePosition: boolean,
): readonly Finding[] {
  // One map per kind of position, keyed by the string itself: no key concatenation, and V8 keeps
  // a string's hash once computed.
  const kind = (identifier ? 2 : 0) + (valuePosition ? 1 : 0);
  const cached = compiled.strings.get(text, kind);
  if (cached) return cached;
  const fieldFindings: Finding[] = [];
  const oversized = text.length > MAX_SCANNED_LENGTH;
  const normalized = normalize(
    identifier ? identifierWords(text) : oversized ? text.slice(0, MAX_SCANNED_LENGTH) : text,
  );
  // What was not read is not judged harmless: the model reads the whole string, so a string too long
  // to inspect is refused at High rather than passed at Medium with its tail unread.
  if (oversized)
    fieldFindings.push({
      rule: "hidden.oversized-text",
      category: "HiddenInstructions",
      severity: HIDDEN_TEXT_RULES["hidden.oversized-text"]!.severity,
      field: "",
      match: `${text.length} characters; only the first ${MAX_SCANNED_LENGTH} were inspected`,
    });
  for (const hidden of normalized.findings)
    fieldFindings.push({
      ...hidden,
      // A look-alike letter in a name or a value the model sends is a confusable tool or target
      // ("brаve", a default bucket "prod-аssets-eu"); in prose it may be a mixed-language word.
      severity:
        hidden.rule === "hidden.homoglyph-mixed-script" && (identifier || valuePosition)
          ? "High"
          : hidden.severity,
      category: "HiddenInstructions",
      field: "",
    });
  scanText(compiled, "", normalized.text, undefined, fieldFindings, !identifier);
  for (const payload of normalized.hidden)
    scanText(compiled, "", payload.text, payload.channel, fieldFindings, !identifier);
  if (valuePosition) flagSecretValues("", fieldFindings);
  applyCompounds(compiled, "", fieldFindings, fieldFindings);
  const hiddenEnabled = compiled.detectors.has("HiddenInstructions");
  const kept = fieldFindings.filter(
    (finding) =>
      !(finding.category === "HiddenInstructions" && !hiddenEnabled) &&
      (finding.category === "Custom" || compiled.detectors.has(finding.category as DetectorName)),
  );
  const result = kept.length === 0 ? NO_FINDINGS : kept;
  compiled.strings.set(text, result, kind);
  return result;
}

const NO_FINDINGS: readonly Finding[] = Object.freeze([]);

/** A Visit that adds each string's findings (analyzeString) to `into`, with the string's field. */
function collectFindings(compiled: CompiledInspection, into: Finding[]): Visit {
  return (text, identifier, valuePosition, path) => {
    const found = analyzeString(compiled, text, identifier, valuePosition);
    if (found.length === 0) return;
    const field = pathString(path);
    for (const finding of found) into.push({ ...finding, field });
  };
}

function inspectUncached(
  compiled: CompiledInspection,
  tool: ToolDefinition,
  receivedSchema: string | undefined,
): Finding[] {
  const findings: Finding[] = [];
  const collect = collectFindings(compiled, findings);
  const unread = visitStrings(
    tool,
    collect,
    receivedSchema === undefined
      ? undefined
      : (schema) => {
          let found = compiled.strings.get(receivedSchema, INPUT_SCHEMA_KIND);
          if (found === undefined) {
            const walked: Finding[] = [];
            if (
              walkStrings(schema, ["inputSchema"], 0, collectFindings(compiled, walked)) &&
              compiled.detectors.has("HiddenInstructions")
            )
              walked.push(unreadNesting("inputSchema"));
            found = walked.length === 0 ? NO_FINDINGS : walked;
            compiled.strings.set(receivedSchema, found, INPUT_SCHEMA_KIND);
          }
          for (const finding of found) findings.push({ ...finding });
        },
  );
  if (compiled.detectors.has("HiddenInstructions"))
    for (const field of unread) findings.push(unreadNesting(field));
  for (const finding of weighIntent(tool, findings))
    if (compiled.detectors.has(finding.category as DetectorName)) findings.push(finding);
  // Findings that only restate the tool's own business, or what an optional switch does when the
  // user turns it on, stay visible at Low under a suffixed name.
  const own = ownPurposeFindings(tool, findings);
  const options = optionFindings(tool, findings);
  const judged =
    own.size === 0 && options.size === 0
      ? findings
      : findings.map((f) =>
          own.has(f)
            ? { ...f, rule: `${f.rule}.${CLEARINGS.ownPurpose}`, severity: "Low" as const }
            : options.has(f)
              ? { ...f, rule: `${f.rule}.${CLEARINGS.option}`, severity: "Low" as const }
              : f,
        );
  return dedupe(readAsDocumentation(compiled, tool, corroboratePhrasing(calibrated(judged)))).sort(
    (a, b) => severityRank[b.severity] - severityRank[a.severity],
  );
}

/** The rule of a sentence the phrasing model scores as a planted instruction (phrasing.ts). */
export const PHRASING_RULE = "phrasing.instruction";

const CLEARED_SUFFIXES = Object.values(CLEARINGS).map((clearing) => `.${clearing}`);

/**
 * Whether a finding corroborates a Medium phrasing score: any rule's finding, even at Low, but not
 * the model's own nor one the rule itself cleared.
 */
export function corroboratesPhrasing(f: Finding): boolean {
  return f.rule !== PHRASING_RULE && !CLEARED_SUFFIXES.some((suffix) => f.rule.endsWith(suffix));
}

/**
 * A Medium phrasing score is raised to High when a rule also found something in the same tool: two
 * weak signals that agree, one from the words a rule knows and one from the phrasing.
 */
function corroboratePhrasing(findings: Finding[]): Finding[] {
  const medium = findings.some((f) => f.rule === PHRASING_RULE && f.severity === "Medium");
  if (!medium || !findings.some(corroboratesPhrasing)) return findings;
  return findings.map((f) =>
    f.rule === PHRASING_RULE && f.severity === "Medium" ? { ...f, severity: "High" as const } : f,
  );
}

const DOCUMENTATION_SUFFIX = `.${CLEARINGS.documentation}`;
/**
 * The rules a documentation reading may overrule: those that weigh what an instruction asks against
 * what the tool is for (`intent.*`), and the two that read a claim of authority from words ("this
 * policy will override any existing policies", "overrides the list view"), wrong alone on every
 * fresh false positive they made (scripts/calibrate-severity.ts). Not the rules that find a concrete
 * object (a secret, a command, a sink, hidden characters), concealment from the user, what only the
 * listing knows, a policy's own patterns or the model judge.
 */
function readsIntent(rule: string): boolean {
  return (
    rule.startsWith("intent.") || rule === "hidden.role-hijack" || rule === "hidden.override-instructions"
  );
}

/**
 * A rule alone at High on sentences the phrasing model reads as ordinary documentation stays at
 * Medium, as `<rule>.documentation`: the two readings disagree, and on real tools never seen before
 * the rule was then more often wrong than right (scripts/calibrate-severity.ts, docs/inspection.md).
 * Only when that rule is the tool's one High finding (a second rule, or the model itself, agrees
 * with it otherwise), only for rules of the built-in set (not a policy's own patterns, not the
 * model judge), and only where every sentence the rule matched is English prose the model reads,
 * whole and clause by clause (another language, a name, a default value or a match the rule
 * composed is no sentence it can vouch for; benign words padded around an instruction leave its
 * clause as it was). Applied again to a tool's own findings once its listing adds some (withFindings):
 * what is lone alone may not be next to its neighbours.
 */
export function readAsDocumentation(
  compiled: CompiledInspection,
  tool: ToolDefinition,
  findings: readonly Finding[],
): Finding[] {
  const readBefore = (f: Finding) =>
    f.rule.endsWith(DOCUMENTATION_SUFFIX) && readsIntent(f.rule.slice(0, -DOCUMENTATION_SUFFIX.length));
  const restored = findings.some(readBefore)
    ? findings.map((f) =>
        readBefore(f)
          ? { ...f, rule: f.rule.slice(0, -DOCUMENTATION_SUFFIX.length), severity: "High" as const }
          : f,
      )
    : (findings as Finding[]);
  const high = restored.filter((f) => f.severity === "High" || f.severity === "Critical");
  const rule = high[0]?.rule;
  const lone =
    rule !== undefined && readsIntent(rule) && high.every((f) => f.rule === rule && f.severity === "High");
  if (!lone || !high.every((f) => documentationSentence(compiled, tool, f))) return restored;
  return restored.map((f) =>
    f.rule === rule && f.severity === "High"
      ? { ...f, rule: `${rule}${DOCUMENTATION_SUFFIX}`, severity: "Medium" as const }
      : f,
  );
}

/**
 * What a match may name that no reading of its sentence makes ordinary: a mailbox, a URL, a host, a
 * wallet, a password, token or other secret.
 */
const CONCRETE_OBJECT = new RegExp(
  `[a-z0-9._-]@[a-z0-9-]+\\.[a-z]|:\\/\\/|\\b0x[0-9a-f]{16,}|${BARE_HOST}|\\b(?:password|passwd|token|secret|credential|api[ _-]?key|private[ _-]?key)s?\\b`,
);

/** How a finding's quoted match is found again in its field's reading (documentationSentence). */
const QUOTE_PIECE = 12;

/**
 * Whether a finding's match lies in English prose sentences of its field that all score at or
 * below PHRASING_DOCUMENTATION. The match is found again in the field's reading from its quoted
 * text: the quote's pieces of QUOTE_PIECE characters, at least two of them agreeing on where it
 * starts; the CONTEXT characters the quote adds around the match (when it was cut, "…") are left
 * out of the span whose sentences are read. Not found: no sentence vouches for it.
 */
function documentationSentence(
  compiled: CompiledInspection,
  tool: ToolDefinition,
  finding: Finding,
): boolean {
  let quoted = finding.match.toLowerCase().replace(/ \([^()]*\)$/, "");
  const cutBefore = quoted.startsWith("…");
  const cutAfter = quoted.endsWith("…");
  quoted = quoted.slice(cutBefore ? 1 : 0, cutAfter ? -1 : undefined);
  if (quoted.length < 2 * QUOTE_PIECE) return false;
  let located = false;
  let documentation = true;
  visitStrings(tool, (text, identifier, _value, path) => {
    if (identifier || located || pathString(path) !== finding.field) return;
    forEachReading(compiled, text, (lower, ends) => {
      const start = quoteStart(lower, quoted);
      if (start === undefined) return false;
      located = true;
      const from = start + (cutBefore ? CONTEXT : 0);
      const to = Math.max(from + 1, start + quoted.length - (cutAfter ? CONTEXT : 0));
      if (!matchReadable(lower, from, to)) documentation = false;
      let sentenceStart = 0;
      for (const end of ends) {
        if (end > from && sentenceStart < to && !readAsPlainDocumentation(lower, sentenceStart, end))
          documentation = false;
        sentenceStart = end;
      }
      return true;
    });
  });
  return located && documentation;
}

/**
 * Where `quoted` starts in `lower`: the offset most of its pieces agree on (within a few characters),
 * two at least; a piece found at several places counts at each.
 */
function quoteStart(lower: string, quoted: string): number | undefined {
  const starts: number[] = [];
  for (let at = 0; at + QUOTE_PIECE <= quoted.length; at += QUOTE_PIECE / 2) {
    const piece = quoted.slice(at, at + QUOTE_PIECE);
    for (let found = lower.indexOf(piece); found >= 0; found = lower.indexOf(piece, found + 1))
      starts.push(found - at);
  }
  starts.sort((a, b) => a - b);
  let best: number | undefined;
  // Half the pieces at least: a match the rule composed ("names 0x4E1d… as a target argument's
  // value") shares a few pieces with the text, a quote nearly all of them.
  let bestCount = Math.max(1, Math.floor(Math.floor(quoted.length / (QUOTE_PIECE / 2)) / 2) - 1);
  for (let i = 0, j = 0; i < starts.length; i++) {
    while (starts[j]! < starts[i]! - 8) j++;
    if (i - j + 1 > bestCount) {
      bestCount = i - j + 1;
      best = Math.max(0, starts[j]!);
    }
  }
  return best;
}

/**
 * Whether the model can vouch for the match itself, whatever the sentence around it: not in another
 * script, nor another language padded with English (five words or more that do not read as English),
 * nor structured data (`{"allowedDirectories": []}`); and naming no address or secret, a fact no
 * reading of the sentence outweighs.
 */
function matchReadable(lower: string, from: number, to: number): boolean {
  const match = lower.slice(from, to);
  return (
    !hasOtherScript(lower, from, to) &&
    !(match.split(" ").length >= 5 && !readsAsEnglish(lower, from, to)) &&
    !/[{[]/.test(match) &&
    !CONCRETE_OBJECT.test(match)
  );
}

/**
 * An English prose sentence the phrasing model scores at or below PHRASING_DOCUMENTATION, no clause
 * of it above PHRASING_DOCUMENTATION_WINDOW.
 */
function readAsPlainDocumentation(lower: string, start: number, end: number): boolean {
  return (
    isLatinProse(lower, start, end) &&
    readsAsEnglish(lower, start, end) &&
    scoreSentence(shippedPhrasingModels().latin, lower, start, end) <= PHRASING_DOCUMENTATION &&
    bestWindowScore(shippedPhrasingModels().latin, lower, start, end, DOCUMENTATION_CLAUSE_TOKENS) <=
      PHRASING_DOCUMENTATION_WINDOW
  );
}

function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${f.rule}\u0000${f.field}\u0000${f.match}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function cachedResult(
  compiled: CompiledInspection,
  key: string,
  tool: ToolDefinition,
): InspectionResult | undefined {
  const entries = compiled.cache.get(key);
  if (entries === undefined) return undefined;
  for (const entry of entries) if (sameTokens(tool, entry.tokens)) return entry.result;
  return undefined;
}

function remember(
  compiled: CompiledInspection,
  key: string,
  tokens: unknown[],
  result: InspectionResult,
): void {
  const entries = compiled.cache.get(key);
  if (entries) {
    if (entries.length >= CACHED_PER_NAME) entries.shift();
    entries.push({ tokens, result });
    return;
  }
  compiled.cache.set(key, [{ tokens, result }]);
}

/**
 * Inspects one tool definition. Pure and synchronous; results are cached per compiled config and
 * tool name together with the definition's tokens: an unchanged definition costs one sequential
 * walk (no serialising, no hashing); one changed in place after being cached is inspected again. The returned object is shared between
 * callers and must not be mutated.
 */
export function inspectTool(
  tool: ToolDefinition,
  config?: InspectionConfig | CompiledInspection,
): InspectionResult {
  const compiled = resolveCompiled(config);
  const cached = cachedInspection(tool, compiled);
  if (cached) return cached;
  return inspectHashed(tool, compiled, hashForCache(tool));
}

/** The result this compiled config already holds for exactly this definition, if any (no hashing). */
export function cachedInspection(
  tool: ToolDefinition,
  compiled: CompiledInspection,
): InspectionResult | undefined {
  return cachedResult(compiled, typeof tool.name === "string" ? tool.name : "", tool);
}

/** Inspects a definition whose hash the caller has computed (hashForCache) and remembers the result. */
export function inspectHashed(
  tool: ToolDefinition,
  compiled: CompiledInspection,
  { hash, cacheable, receivedSchema }: DefinitionHash,
): InspectionResult {
  return adoptFindings(
    tool,
    compiled,
    hash,
    cacheable,
    compiled.enabled ? inspectUncached(compiled, tool, receivedSchema) : [],
  );
}

/**
 * Takes the findings another process computed for this definition under the same rules and config
 * (src/inspect/shared.ts) as if inspected here: threshold and action are this config's.
 */
export function adoptFindings(
  tool: ToolDefinition,
  compiled: CompiledInspection,
  hash: string,
  cacheable: boolean,
  findings: Finding[],
): InspectionResult {
  const result = resultOf(compiled, hash, findings);
  if (cacheable)
    remember(compiled, typeof tool.name === "string" ? tool.name : "", definitionTokens(tool), result);
  return result;
}

function resultOf(compiled: CompiledInspection, hash: string, findings: Finding[]): InspectionResult {
  const none = findings.length === 0;
  const maxSeverity = none ? undefined : findings[0]!.severity;
  const flagged = maxSeverity !== undefined && severityRank[maxSeverity] >= severityRank[compiled.threshold];
  return Object.freeze({
    hash,
    // Every result without findings shares one empty list: an empty array made by a literal or a
    // filter has another hidden class than one that held findings, and each new one met later made
    // the optimised code of what reads results (the listing judge, the MCP route) start again.
    findings: none ? (NO_FINDINGS as Finding[]) : findings,
    maxSeverity,
    flagged,
    action: flagged ? (compiled.action === "Block" ? "block" : "alert") : "none",
  });
}

/**
 * A tool's result with findings from outside the definition added (listing-level analysis), kept
 * to the enabled detectors, and `cleared` ones (its own findings the listing explains) taken out,
 * with threshold and action applied again. Nothing added or cleared: the same result object.
 */
export function withFindings(
  result: InspectionResult,
  extra: readonly Finding[],
  config?: InspectionConfig | CompiledInspection,
  cleared: readonly Finding[] = [],
  tool?: ToolDefinition,
): InspectionResult {
  const compiled = resolveCompiled(config);
  const kept = compiled.enabled
    ? extra.filter((f) => f.category === "Custom" || compiled.detectors.has(f.category as DetectorName))
    : [];
  if (kept.length === 0 && cleared.length === 0) return result;
  // Cleared findings are named by content: each policy's result holds its own copy of the same finding.
  const own =
    cleared.length === 0
      ? result.findings
      : result.findings.filter(
          (f) => !cleared.some((c) => c.rule === f.rule && c.field === f.field && c.match === f.match),
        );
  if (kept.length === 0 && own.length === result.findings.length) return result;
  const combined = [...own, ...kept];
  const findings = (tool ? readAsDocumentation(compiled, tool, combined) : combined).sort(
    (a, b) => severityRank[b.severity] - severityRank[a.severity],
  );
  return resultOf(compiled, result.hash, findings);
}

/** Inspects a whole listing, results in input order. */
export function inspectTools(
  tools: readonly ToolDefinition[],
  config?: InspectionConfig | CompiledInspection,
): InspectionResult[] {
  const compiled = resolveCompiled(config);
  return tools.map((tool) => inspectTool(tool, compiled));
}

/** Findings at or above a severity (for `toolwall scan --threshold`). */
export function findingsAtOrAbove(findings: readonly Finding[], threshold: Severity): Finding[] {
  return findings.filter((f) => severityRank[f.severity] >= severityRank[threshold]);
}
