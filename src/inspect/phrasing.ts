/**
 * The phrasing model: a linear model over the word n-grams of one sentence, trained on the poisoned
 * and benign definitions of the development data (scripts/train-phrasing-model.ts), that scores how
 * much a sentence reads like an instruction slipped into a tool definition. The rules name a concept
 * by the words of the texts they were written from; three blind rounds showed new writers reach the
 * same concept by other words about as often as before. A model of the whole phrasing (which words,
 * in which order, next to which symbols) carries further to unseen writers, at the price of
 * explaining itself less: a finding quotes the sentence and its score, not a concept.
 *
 * Features are hashed (no vocabulary to ship): each token, each pair and each triple of neighbouring
 * tokens indexes a table of 2^bits signed bytes. Tokens are runs of letters and digits (digits alone
 * read as one number token), each Han or kana character on its own, and the symbols that carry
 * commands, paths and addresses (~ $ ` | > @ / \ :). No regular expression: one pass over the
 * characters, no allocation per token.
 */
import { readFileSync } from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";

export interface PhrasingModel {
  /** log2 of the weight table's size. */
  readonly bits: number;
  /**
   * Whether a run of Latin-script words, numbers and symbols is read as one token (the other-script
   * table): what it would learn of the URLs, identifiers and commands in its few thousand sentences
   * is which of its examples were planted, not what a sentence asks ("see https://… and follow its
   * steps to configure the API key" scored 6.9 in Chinese, −0.3 collapsed). The rules read those.
   */
  readonly collapsesLatin: boolean;
  readonly bias: number;
  /** What one step of a stored weight is worth in score units. */
  readonly scale: number;
  readonly weights: Int8Array;
}

/** A sentence's score: the model's log-odds that it is a planted instruction. */
export interface PhrasingScore {
  score: number;
  start: number;
  end: number;
  /** The table that read it. */
  script: ProseScript;
}

/**
 * The model's two tables, each learned from the sentences of its script: Latin-script prose (mostly
 * English), and prose in any other script (Han, kana, Hangul, Cyrillic, Arabic, Devanagari …). One
 * table for both read a sentence by the language it was written in: the few other-script sentences
 * of the data were mostly planted ones. Apart, the second learns what honest documentation in those
 * scripts reads like without moving a weight of the first.
 */
export type ProseScript = "latin" | "other";
export type PhrasingModels = Readonly<Record<ProseScript, PhrasingModel>>;

/**
 * Scores above MEDIUM are reported; above HIGH they flag a tool by themselves. Between the two, a
 * score flags a tool only next to another finding of the same tool (engine.ts). Chosen on the
 * held-out folds (test/inspect/phrasing-folds.ts: retired blind rounds, development edit rounds and
 * plain benign writers, each scored by a model trained without it; docs/inspection.md): High moves
 * down while it buys more than two detections per false positive on real tools.
 */
export const PHRASING_MEDIUM = 4;
export const PHRASING_HIGH = 4.5;

/**
 * At or below this score the model reads an English sentence as ordinary documentation: a rule alone
 * on such a sentence is not enough for High (engine.ts, readAsDocumentation). Chosen on the fresh
 * blind rounds (scripts/calibrate-severity.ts).
 */
export const PHRASING_DOCUMENTATION = -4;

/**
 * And at or below this, no clause of DOCUMENTATION_CLAUSE_TOKENS tokens of it reads as an instruction
 * (bestWindowScore): benign words padded around an instruction cannot pull it down to
 * PHRASING_DOCUMENTATION.
 */
export const PHRASING_DOCUMENTATION_WINDOW = 1;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const NUMBER_TOKEN = 0x6e756d62;
/** The one token a run of Latin-script words, numbers and symbols is read as by a collapsing table. */
const LATIN_RUN = 0x6c61746e;
const BIGRAM_SEED = 0x9e3779b9;
const TRIGRAM_SEED = 0x85ebca6b;

/** A 32-bit finaliser (MurmurHash3's), so that combined token hashes spread over the table. */
function avalanche(hash: number): number {
  let h = hash ^ (hash >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function combine(seed: number, left: number, right: number): number {
  return avalanche(Math.imul(left ^ seed, FNV_PRIME) ^ right);
}

function isCjk(code: number): boolean {
  return (
    (code >= 0x3040 && code <= 0x30ff) ||
    (code >= 0x3400 && code <= 0x9fff) ||
    (code >= 0xf900 && code <= 0xfaff)
  );
}

function isSymbolToken(code: number): boolean {
  return (
    code === 0x7e ||
    code === 0x24 ||
    code === 0x60 ||
    code === 0x7c ||
    code === 0x3e ||
    code === 0x40 ||
    code === 0x2f ||
    code === 0x5c ||
    code === 0x3a
  );
}

/** Letters and digits of any script: ASCII ones, and every other character that is not punctuation, space or a surrogate. */
function isWordCode(code: number): boolean {
  if (code < 0x80)
    return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a);
  if (code <= 0xbf || code === 0xd7 || code === 0xf7) return false;
  if (code >= 0x2000 && code <= 0x2bff) return false;
  if (code >= 0x3000 && code <= 0x303f) return false;
  if (code >= 0xd800 && code <= 0xdfff) return false;
  if (code >= 0xfe30 && code <= 0xfe6f) return false;
  if (code >= 0xff00 && code <= 0xff20) return false;
  return true;
}

/**
 * Calls `visit` with the table index of every feature of text[start, end) (lower-cased by the
 * caller): each token, each pair and each triple of neighbouring tokens.
 */
export function visitFeatures(
  text: string,
  start: number,
  end: number,
  bits: number,
  collapseLatin: boolean,
  visit: (index: number) => void,
): void {
  const shift = 32 - bits;
  let previous = 0;
  let previousPair = 0;
  let count = 0;
  let i = start;
  while (i < end) {
    const code = text.charCodeAt(i);
    let token: number;
    if (isCjk(code) || isSymbolToken(code)) {
      token = Math.imul(FNV_OFFSET ^ code, FNV_PRIME) >>> 0;
      i++;
    } else if (isWordCode(code)) {
      let hash = FNV_OFFSET;
      let digitsOnly = true;
      while (i < end) {
        const c = text.charCodeAt(i);
        if (!isWordCode(c) || isCjk(c)) break;
        if (c < 0x30 || c > 0x39) digitsOnly = false;
        hash = Math.imul(hash ^ c, FNV_PRIME);
        i++;
      }
      token = digitsOnly ? NUMBER_TOKEN : hash >>> 0;
    } else {
      i++;
      continue;
    }
    if (collapseLatin && (code < 0x250 || isSymbolToken(code))) {
      if (count > 0 && previous === LATIN_RUN) continue;
      token = LATIN_RUN;
    }
    visit(avalanche(token) >>> shift);
    if (count >= 1) {
      const pair = combine(BIGRAM_SEED, previous, token);
      visit(pair >>> shift);
      if (count >= 2) visit(combine(TRIGRAM_SEED, previousPair, token) >>> shift);
      previousPair = pair;
    }
    previous = token;
    count++;
  }
}

/** The score of text[start, end). */
export function scoreSentence(model: PhrasingModel, text: string, start: number, end: number): number {
  let sum = 0;
  const { weights } = model;
  visitFeatures(text, start, end, model.bits, model.collapsesLatin, (index) => {
    sum += weights[index]!;
  });
  return model.bias + sum * model.scale;
}

/**
 * Each token's features of the text last read by readFeatures, in the order visitFeatures gives
 * them (the token, then the pair and the triple that end at it), as running sums: reused, since
 * every sentence of every new string is read here.
 */
let ownSums = new Float64Array(256);
let pairSums = new Float64Array(256);
let tripleSums = new Float64Array(256);

/** Reads text[start, end) into the running sums; the number of tokens. */
function readFeatures(model: PhrasingModel, text: string, start: number, end: number): number {
  let token = 0;
  let pending = 0;
  ownSums[0] = 0;
  pairSums[0] = 0;
  tripleSums[0] = 0;
  visitFeatures(text, start, end, model.bits, model.collapsesLatin, (index) => {
    const weight = model.weights[index]!;
    if (pending === 0) {
      token++;
      if (token >= ownSums.length) {
        ownSums = grown(ownSums);
        pairSums = grown(pairSums);
        tripleSums = grown(tripleSums);
      }
      ownSums[token] = ownSums[token - 1]! + weight;
      pairSums[token] = pairSums[token - 1]!;
      tripleSums[token] = tripleSums[token - 1]!;
      pending = Math.min(token - 1, 2);
    } else {
      if (pending === Math.min(token - 1, 2)) pairSums[token] = pairSums[token]! + weight;
      else tripleSums[token] = tripleSums[token]! + weight;
      pending--;
    }
  });
  return token;
}

/** The weights of all features of the `count` tokens just read. */
function featureSum(count: number): number {
  return ownSums[count]! + pairSums[count]! + tripleSums[count]!;
}

function grown(sums: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> {
  const larger = new Float64Array(sums.length * 2);
  larger.set(sums);
  return larger;
}

/**
 * The highest score of any `tokens` neighbouring tokens of text[start, end) (the whole when it is
 * shorter), each scored as a sentence of its own: a sentence's score is a sum, and benign words
 * padded around an instruction pull it down without end, while the clause holding the instruction
 * keeps its score whatever surrounds it.
 */
export function bestWindowScore(
  model: PhrasingModel,
  text: string,
  start: number,
  end: number,
  tokens: number,
): number {
  return bestWindowOfRead(model, readFeatures(model, text, start, end), tokens);
}

/** bestWindowScore over the running sums of `count` tokens just read. */
function bestWindowOfRead(model: PhrasingModel, count: number, tokens: number): number {
  let best = Number.NEGATIVE_INFINITY;
  // Tokens first+1 … last (1-based): their own features, the pairs inside, the triples inside.
  for (let first = 0; first === 0 || first + tokens <= count; first++) {
    const last = Math.min(count, first + tokens);
    const sum =
      ownSums[last]! -
      ownSums[first]! +
      (last > first + 1 ? pairSums[last]! - pairSums[first + 1]! : 0) +
      (last > first + 2 ? tripleSums[last]! - tripleSums[first + 2]! : 0);
    best = Math.max(best, model.bias + sum * model.scale);
  }
  return best;
}

/**
 * The score a sentence is judged by: its own, or the best clause of PHRASING_CLAUSE_TOKENS tokens
 * PHRASING_CLAUSE_PENALTY below its own score, whichever is higher. Documentation words padded into
 * a planted sentence ("…, and the response returns a paginated list of results sorted by date")
 * pulled 181 of the development set's 1 199 poisoned definitions below High; the clause keeps 152
 * of them, and flags no real tool more on any set (docs/inspection.md, "The phrasing model").
 */
export function judgedScore(model: PhrasingModel, text: string, start: number, end: number): number {
  const count = readFeatures(model, text, start, end);
  const sentence = model.bias + featureSum(count) * model.scale;
  if (count <= PHRASING_CLAUSE_TOKENS) return sentence;
  return Math.max(sentence, bestWindowOfRead(model, count, PHRASING_CLAUSE_TOKENS) - PHRASING_CLAUSE_PENALTY);
}

/** Tokens of the clause that may stand for its sentence (judgedScore). */
const PHRASING_CLAUSE_TOKENS = 16;
/** How much lower a clause scores than a sentence of its own words would (judgedScore). */
const PHRASING_CLAUSE_PENALTY = 2;

/** Tokens of the clauses the documentation reading reads (engine.ts, readAsDocumentation). */
export const DOCUMENTATION_CLAUSE_TOKENS = 12;

/**
 * The judged score of text[start, end) with the spans `cut` (sorted by start; they may overlap or run
 * past `end`) taken out: each piece left is read on its own, so no n-gram or clause joins across a
 * cut. What a refused decoy leaves of a padded sentence is judged as the sentence would be.
 */
export function scoreWithout(
  model: PhrasingModel,
  text: string,
  start: number,
  end: number,
  cut: readonly { start: number; end: number }[],
): number {
  // Judged as judgedScore judges a sentence: the pieces' sum, or the best clause of any piece.
  let sum = 0;
  let clause = Number.NEGATIVE_INFINITY;
  let from = start;
  for (const span of [...cut, { start: end, end }]) {
    if (span.start > from) {
      const count = readFeatures(model, text, from, span.start);
      sum += featureSum(count);
      if (count > PHRASING_CLAUSE_TOKENS)
        clause = Math.max(
          clause,
          bestWindowOfRead(model, count, PHRASING_CLAUSE_TOKENS) - PHRASING_CLAUSE_PENALTY,
        );
    }
    from = Math.max(from, span.end);
  }
  return Math.max(model.bias + sum * model.scale, clause);
}

/**
 * Which table reads text[start, end), if it is prose at all. Latin-script prose: most letters Latin,
 * and no fewer letters than other marks. Prose in another script: letters of every script together
 * no fewer than other marks, a Han or kana character a token of its own (as the model reads it). A
 * schema's regular expression or a row of numbers is no sentence (a date-time pattern repeated in a
 * vendor's every tool scored as planted once a writer's edits were learned). Nor is a single token: a
 * URL, path or identifier standing alone (a default of "https://registry.npmjs.org" scored 6.6 once
 * round 11's edits were learned, the model adding up the weights of its pieces). Those are left to
 * the rules.
 */
export function proseScript(text: string, start: number, end: number): ProseScript | undefined {
  const { latin, other, marks, tokens, modelTokens } = countLetters(text, start, end);
  if (latin > 2 * other && latin >= marks) return tokens >= 2 ? "latin" : undefined;
  return modelTokens >= 2 && latin + other >= marks ? "other" : undefined;
}

/** Whether text[start, end) is prose the Latin table reads (proseScript). */
export function isLatinProse(text: string, start: number, end: number): boolean {
  return proseScript(text, start, end) === "latin";
}

/** Whether text[start, end) has more letters of other scripts than a fifth of its Latin ones. */
export function hasOtherScript(text: string, start: number, end: number): boolean {
  const { latin, other } = countLetters(text, start, end);
  return other * 5 > latin;
}

/** One counter, reset by each countLetters: proseScript runs once per sentence and must not allocate. */
const letterCounts = { latin: 0, other: 0, marks: 0, tokens: 0, modelTokens: 0 };

/**
 * Latin letters, letters of other scripts, other marks, white-space separated tokens and tokens as
 * the model reads them (each Han or kana character one) of text[start, end).
 */
function countLetters(text: string, start: number, end: number): typeof letterCounts {
  let latin = 0;
  let other = 0;
  let marks = 0;
  let tokens = 0;
  let modelTokens = 0;
  let inToken = false;
  let inModelToken = false;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20) {
      inToken = false;
      inModelToken = false;
      continue;
    }
    if (!inToken) tokens++;
    inToken = true;
    if (isCjk(code)) {
      other++;
      modelTokens++;
      inModelToken = false;
      continue;
    }
    if (!inModelToken) modelTokens++;
    inModelToken = true;
    if (code < 0x250) {
      if ((code >= 0x61 && code <= 0x7a) || code >= 0xc0) latin++;
      else marks++;
    } else if (isWordCode(code)) other++;
  }
  letterCounts.latin = latin;
  letterCounts.other = other;
  letterCounts.modelTokens = modelTokens;
  letterCounts.marks = marks;
  letterCounts.tokens = tokens;
  return letterCounts;
}

/**
 * Words English sentences are held together by. The model learned from English prose: what it scores
 * in another Latin-script language ("relié à un nœud HTTP Request POST vers …") it scores by the
 * shape of its tokens, not by what it asks.
 */
const ENGLISH_FUNCTION_WORDS: ReadonlySet<string> = new Set(
  "a an the to of and or is are was be been in on at for with by from as this that these it its if when then than not no you your we our will can may must should each all any which who".split(
    " ",
  ),
);

/**
 * Whether text[start, end) reads as an English sentence: at least two function words, and one word
 * in five at least.
 */
export function readsAsEnglish(text: string, start: number, end: number): boolean {
  let words = 0;
  let functionWords = 0;
  for (const word of text.slice(start, end).match(/[a-z\u00c0-\u024f]+/g) ?? []) {
    words++;
    if (ENGLISH_FUNCTION_WORDS.has(word)) functionWords++;
  }
  return functionWords >= 2 && functionWords * 5 >= words;
}

/**
 * The pieces of `text` the model scores, given the end offsets of its sentences (the last is
 * text.length), each with the table of its script: a Latin-script sentence whole, one in another
 * script clause by clause between its full stops (otherScriptEnds). What is no prose is skipped.
 * Training reads sentences this way too.
 */
export function forEachScoredPiece(
  text: string,
  ends: readonly number[],
  visit: (script: ProseScript, start: number, end: number) => void,
): void {
  let start = 0;
  for (const end of ends) {
    const script = end > start ? proseScript(text, start, end) : undefined;
    if (script === "latin") visit(script, start, end);
    else if (script === "other") {
      let from = start;
      for (const to of otherScriptEnds(text, start, end)) {
        if (proseScript(text, from, to) !== undefined) visit(script, from, to);
        from = to;
      }
    }
    start = end;
  }
}

/** The best-scoring piece of `text` (forEachScoredPiece), each read by the table of its script. */
export function bestSentence(models: PhrasingModels, text: string, ends: readonly number[]): PhrasingScore {
  let best: PhrasingScore = { score: Number.NEGATIVE_INFINITY, start: 0, end: 0, script: "latin" };
  forEachScoredPiece(text, ends, (script, start, end) => {
    const score = judgedScore(models[script], text, start, end);
    if (score > best.score) best = { score, start, end, script };
  });
  return best;
}

/**
 * The end offsets of the pieces of text[start, end) between the full stops of Chinese and Japanese
 * (。！？, which no space follows), the last being `end`. The rules' sentences end only where a
 * space or a newline does: a paragraph of Chinese is one sentence to them, and to a linear model a
 * sum over a hundred characters, whatever they ask.
 */
export function otherScriptEnds(text: string, start: number, end: number): number[] {
  const ends: number[] = [];
  for (let i = start; i < end - 1; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x3002 || code === 0xff01 || code === 0xff1f) ends.push(i + 1);
  }
  ends.push(end);
  return ends;
}

/**
 * The shipped tables' files (copied next to the compiled module by `npm run build`): each is gzip of
 * a header line `toolwall-phrasing-model <bits> <bias> <scale>[ collapses-latin]\n` and the 2^bits
 * signed bytes of the weight table.
 */
export const PHRASING_MODEL_FILES: Readonly<Record<ProseScript, URL>> = {
  latin: new URL("./phrasing-model.bin", import.meta.url),
  other: new URL("./phrasing-model-other-scripts.bin", import.meta.url),
};
const MAGIC = "toolwall-phrasing-model";
const COLLAPSES_LATIN = "collapses-latin";
export function encodePhrasingModel(model: PhrasingModel): Buffer {
  const header = Buffer.from(
    `${MAGIC} ${model.bits} ${model.bias} ${model.scale}${model.collapsesLatin ? ` ${COLLAPSES_LATIN}` : ""}\n`,
  );
  const weights = Buffer.from(model.weights.buffer, model.weights.byteOffset, model.weights.byteLength);
  return gzipSync(Buffer.concat([header, weights]), { level: 9 });
}

export function decodePhrasingModel(file: Buffer): PhrasingModel {
  const bytes = gunzipSync(file);
  const newline = bytes.indexOf(0x0a);
  const [magic, bits, bias, scale, reading, ...rest] = bytes
    .subarray(0, Math.max(newline, 0))
    .toString()
    .split(" ");
  const model = {
    bits: Number(bits),
    bias: Number(bias),
    scale: Number(scale),
    collapsesLatin: reading === COLLAPSES_LATIN,
  };
  const weights = new Int8Array(bytes.buffer, bytes.byteOffset + newline + 1, bytes.length - newline - 1);
  if (
    magic !== MAGIC ||
    (reading !== undefined && reading !== COLLAPSES_LATIN) ||
    rest.length > 0 ||
    !Number.isInteger(model.bits) ||
    model.bits < 8 ||
    model.bits > 24 ||
    !Number.isFinite(model.bias) ||
    !Number.isFinite(model.scale) ||
    weights.length !== 2 ** model.bits
  )
    throw new Error("not a phrasing model file (toolwall-phrasing-model header and 2^bits weights)");
  return { ...model, weights };
}

let shipped: PhrasingModels | undefined;

/** The tables trained from this repository's data, read on first use. */
export function shippedPhrasingModels(): PhrasingModels {
  shipped ??= {
    latin: decodePhrasingModel(readFileSync(PHRASING_MODEL_FILES.latin)),
    other: decodePhrasingModel(readFileSync(PHRASING_MODEL_FILES.other)),
  };
  return shipped;
}
