import type { Severity } from "./types.ts";

/**
 * Normalisation before matching: text a human reviewer cannot see (tag characters, variation-selector
 * payloads, HTML comments, base64, ANSI escapes) is removed from the visible text, decoded where it
 * carries text, and handed back as separate channels to be scanned on their own. The act of hiding is
 * itself reported. Everything here walks code points by hand: no regular expression engine runs on
 * the untrusted input in this module.
 */

export type Channel =
  | "html-comment"
  | "unicode-tags"
  | "variation-selectors"
  | "base64"
  | "hex"
  | "percent-encoded"
  | "rot13"
  | "reversed";

export interface HiddenTextFinding {
  rule: string;
  severity: Severity;
  match: string;
}

export interface HiddenSegment {
  channel: Channel;
  text: string;
}

export interface NormalizedText {
  /** The visible text: cleaned, NFKC-normalised, homoglyphs folded to Latin. */
  text: string;
  /** Text carried in hidden channels, normalised the same way. */
  hidden: HiddenSegment[];
  /** Evidence of hiding found while cleaning. */
  findings: HiddenTextFinding[];
}

const ZERO_WIDTH = new Set([
  0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x180e, 0x00ad, 0x034f, 0x115f,
  0x1160, 0x3164, 0xffa0,
]);
const BIDI_OVERRIDES = new Set([0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]);
const BIDI_MARKS = new Set([0x200e, 0x200f, 0x061c]);
const BLACK_FLAG = 0x1f3f4;

/** Cyrillic and Greek letters that render like Latin ones. */
const HOMOGLYPHS: Record<string, string> = {
  а: "a",
  е: "e",
  о: "o",
  р: "p",
  с: "c",
  у: "y",
  х: "x",
  і: "i",
  ј: "j",
  ѕ: "s",
  һ: "h",
  ԁ: "d",
  ӏ: "l",
  ԛ: "q",
  ԝ: "w",
  ɑ: "a",
  ℮: "e",
  ѵ: "v",
  ү: "y",
  ғ: "f",
  ь: "b",
  А: "A",
  В: "B",
  Е: "E",
  К: "K",
  М: "M",
  Н: "H",
  О: "O",
  Р: "P",
  С: "C",
  Т: "T",
  Х: "X",
  У: "Y",
  І: "I",
  Ј: "J",
  Ѕ: "S",
  Ԁ: "D",
  Ӏ: "l",
  Ԛ: "Q",
  Ԝ: "W",
  α: "a",
  ο: "o",
  ν: "v",
  ι: "i",
  κ: "k",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  ε: "e",
  ѡ: "w",
  Α: "A",
  Β: "B",
  Ε: "E",
  Ζ: "Z",
  Η: "H",
  Ι: "I",
  Κ: "K",
  Μ: "M",
  Ν: "N",
  Ο: "O",
  Ρ: "P",
  Τ: "T",
  Υ: "Y",
  Χ: "X",
  // Latin IPA and Armenian letters that pass for Latin ones ("iɡnore", "ignօre"). Not the Turkish
  // dotless ı or other letters of a living Latin alphabet: folding those would rewrite real words.
  ɡ: "g",
  ɩ: "i",
  օ: "o",
  ս: "u",
  հ: "h",
  ո: "n",
  ց: "g",
};

export const CONTEXT = 40;

/** `…before[match]after…` around [start, end) of `text`, on one line. */
export function withContext(text: string, start: number, end: number, context = CONTEXT): string {
  const from = Math.max(0, start - context);
  const to = Math.min(text.length, end + context);
  return `${from > 0 ? "…" : ""}${collapseWhitespace(text.slice(from, to))}${to < text.length ? "…" : ""}`;
}

function preview(text: string): string {
  return withContext(text, 0, Math.min(text.length, 100), 0);
}

function collapseWhitespace(text: string): string {
  let out = "";
  let inSpace = false;
  for (const ch of text) {
    const space = ch === " " || ch === "\n" || ch === "\t" || ch === "\r";
    if (space && !inSpace) out += " ";
    else if (!space) out += ch;
    inSpace = space;
  }
  return out.trim();
}

function isAsciiWordChar(code: number | undefined): boolean {
  if (code === undefined) return false;
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

function isPrintableText(decoded: string): boolean {
  if (decoded.length < 8) return false;
  let printable = 0;
  let letters = 0;
  for (let i = 0; i < decoded.length; i++) {
    const code = decoded.charCodeAt(i);
    if (code === 0xfffd) return false;
    if ((code >= 0x20 && code < 0x7f) || code === 0x0a || code === 0x0d || code === 0x09 || code > 0xa0)
      printable++;
    if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) letters++;
  }
  return printable / decoded.length >= 0.95 && letters / decoded.length >= 0.3 && decoded.includes(" ");
}

interface Cleaned {
  text: string;
  tagText: string;
  selectorBytes: number[][];
  findings: HiddenTextFinding[];
}

/** Removes invisible and control characters, keeping the decoded payloads they carried. */
/** True when `clean` would change nothing: no invisible, control, tag, selector or escape characters. */
function needsNoCleaning(raw: string): boolean {
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code < 0x20 && code !== 0x0a && code !== 0x09 && code !== 0x0d) return false;
    if (code >= 0x7f && code <= 0x9f) return false;
    if (code === 0x00ad || code === 0x034f || code === 0x061c || code === 0x115f || code === 0x1160)
      return false;
    if (code === 0x180e || code === 0x3164 || code === 0xffa0 || code === 0xfeff) return false;
    if ((code >= 0x200b && code <= 0x200f) || (code >= 0x202a && code <= 0x202e)) return false;
    if (code >= 0x2060 && code <= 0x2069) return false;
    if (code >= 0xfe00 && code <= 0xfe0f) return false;
    // Surrogates: tag characters and supplementary variation selectors live in plane 14.
    if (code === 0xdb40) return false;
  }
  return true;
}

function clean(raw: string): Cleaned {
  if (needsNoCleaning(raw)) return { text: raw, tagText: "", selectorBytes: [], findings: [] };
  const out: string[] = [];
  const findings: HiddenTextFinding[] = [];
  let tagText = "";
  const selectorBytes: number[][] = [];
  let currentSelectorRun: number[] = [];
  let zeroWidthInWords = 0;
  let zeroWidthOther = 0;
  let bidi = 0;
  let controls = 0;
  let ansiConcealing = false;
  let ansiCount = 0;
  let previousVisible = 0;
  const flushSelectors = () => {
    if (currentSelectorRun.length >= 4) selectorBytes.push(currentSelectorRun);
    currentSelectorRun = [];
  };
  for (let i = 0; i < raw.length; ) {
    const code = raw.codePointAt(i)!;
    const width = code > 0xffff ? 2 : 1;
    if (code >= 0xe0000 && code <= 0xe007f) {
      if (previousVisible !== BLACK_FLAG) {
        if (code >= 0xe0020 && code <= 0xe007e) tagText += String.fromCharCode(code - 0xe0000);
        else if (code === 0xe007f) tagText += " ";
      }
      i += width;
      continue;
    }
    if ((code >= 0xfe00 && code <= 0xfe0f) || (code >= 0xe0100 && code <= 0xe01ef)) {
      currentSelectorRun.push(code <= 0xfe0f ? code - 0xfe00 : code - 0xe0100 + 16);
      // A lone U+FE0F after an emoji is ordinary presentation; a run is a payload.
      if (code === 0xfe0f && currentSelectorRun.length === 1) out.push(String.fromCodePoint(code));
      i += width;
      continue;
    }
    flushSelectors();
    if (ZERO_WIDTH.has(code)) {
      if (!(code === 0xfeff && i === 0)) {
        const before = raw.charCodeAt(i - 1);
        const after = raw.charCodeAt(i + 1);
        if (isAsciiWordChar(before) && isAsciiWordChar(after)) zeroWidthInWords++;
        else if (isAsciiWordChar(before) || isAsciiWordChar(after) || code === 0x200b || code === 0x2060)
          zeroWidthOther++;
      }
      i += width;
      continue;
    }
    if (BIDI_OVERRIDES.has(code)) {
      bidi++;
      i += width;
      continue;
    }
    if (BIDI_MARKS.has(code)) {
      i += width;
      continue;
    }
    if (code === 0x1b) {
      ansiCount++;
      const next = raw.charCodeAt(i + 1);
      let j = i + 2;
      if (next === 0x5b) {
        // CSI: parameters, intermediates, one final byte.
        const paramStart = j;
        while (j < raw.length && raw.charCodeAt(j) >= 0x30 && raw.charCodeAt(j) <= 0x3f) j++;
        const params = raw.slice(paramStart, j);
        while (j < raw.length && raw.charCodeAt(j) >= 0x20 && raw.charCodeAt(j) <= 0x2f) j++;
        const final = raw[j] ?? "";
        if (
          (final === "m" && params.split(";").includes("8")) ||
          "ABCDHJKfsu".includes(final) ||
          final === ""
        )
          ansiConcealing = true;
        j++;
      } else if (next === 0x5d) {
        // OSC: up to BEL or ST.
        while (j < raw.length && raw.charCodeAt(j) !== 0x07 && raw.charCodeAt(j) !== 0x1b) j++;
        j += raw.charCodeAt(j) === 0x1b ? 2 : 1;
      }
      i = Math.min(j, raw.length);
      continue;
    }
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || (code >= 0x7f && code <= 0x9f)) {
      // A carriage return can hide a line on a terminal; other controls have no place in prose.
      controls++;
      i += width;
      continue;
    }
    previousVisible = code;
    out.push(String.fromCodePoint(code));
    i += width;
  }
  flushSelectors();
  const text = out.join("");
  if (zeroWidthInWords > 0)
    findings.push({
      rule: "hidden.zero-width-in-words",
      severity: "High",
      match: `${zeroWidthInWords} zero-width character(s) inside words`,
    });
  else if (zeroWidthOther >= 3)
    findings.push({
      rule: "hidden.zero-width",
      severity: "Medium",
      match: `${zeroWidthOther} zero-width character(s)`,
    });
  if (bidi > 0)
    findings.push({
      rule: "hidden.bidi-override",
      severity: "High",
      match: `${bidi} bidirectional override character(s)`,
    });
  if (ansiCount > 0)
    findings.push({
      rule: "hidden.ansi-escape",
      severity: ansiConcealing ? "High" : "Medium",
      match: `${ansiCount} ANSI escape sequence(s)${ansiConcealing ? " that conceal or move text" : ""}`,
    });
  if (controls > 0)
    findings.push({
      rule: "hidden.control-characters",
      severity: "Low",
      match: `${controls} control character(s)`,
    });
  return { text, tagText: tagText.trim(), selectorBytes, findings };
}

function hasLookalikes(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code >= 0x0250 && code <= 0x058f) || code === 0x212e) return true;
  }
  return false;
}

/**
 * Folds lookalike letters to Latin in words that could be read as Latin: a word mixing Latin with
 * lookalikes ("pаypal", reported), or one of three letters or more spelled wholly with lookalikes
 * ("ехес" reads as exec). A word with no Latin letter and any other Cyrillic or Greek letter is real
 * Cyrillic or Greek and stays as written, so rules written in those languages still match it.
 */
function foldHomoglyphs(text: string, findings: HiddenTextFinding[]): string {
  if (!hasLookalikes(text)) return text;
  let out = "";
  let wordStart = 0;
  let wordHasLatin = false;
  let wordHasLookalike = false;
  let wordHasOtherScript = false;
  let reported = 0;
  const endWord = (end: number) => {
    const word = text.slice(wordStart, end);
    // A word mixing Latin with lookalikes is folded and reported whatever else it holds; one with no
    // Latin is folded only when nothing in it is plainly Cyrillic or Greek and it is longer than a
    // conjunction or preposition ("а", "с").
    const readsAsLatin = wordHasLatin || (!wordHasOtherScript && word.length >= 3);
    if (!wordHasLookalike || !readsAsLatin) out += word;
    else {
      let folded = "";
      // Only single-code-unit lookalikes are in the table, so offsets stay aligned.
      for (const ch of word) folded += HOMOGLYPHS[ch] ?? ch;
      out += folded;
      if (wordHasLatin && reported < 3) {
        reported++;
        findings.push({
          rule: "hidden.homoglyph-mixed-script",
          severity: "Medium",
          match: `${word} (reads as ${folded})`,
        });
      }
    }
    wordHasLatin = false;
    wordHasLookalike = false;
    wordHasOtherScript = false;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const code = ch.charCodeAt(0);
    const lookalike = HOMOGLYPHS[ch] !== undefined;
    if (!(lookalike || isAsciiWordChar(code) || code >= 0x370)) {
      endWord(i);
      out += ch;
      wordStart = i + 1;
    } else if (lookalike) wordHasLookalike = true;
    else if (isAsciiWordChar(code)) {
      if (code > 0x39) wordHasLatin = true;
    } else if (code <= 0x58f) wordHasOtherScript = true;
  }
  endWord(text.length);
  return out;
}

function extractHtmlComments(text: string, comments: string[]): string {
  let out = "";
  let from = 0;
  for (;;) {
    const open = text.indexOf("<!--", from);
    if (open < 0) break;
    const close = text.indexOf("-->", open + 4);
    const end = close < 0 ? text.length : close;
    comments.push(text.slice(open + 4, end).trim());
    out += `${text.slice(from, open)} `;
    from = close < 0 ? text.length : close + 3;
  }
  return out + text.slice(from);
}

function isBase64Char(code: number): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2b ||
    code === 0x2f ||
    code === 0x2d ||
    code === 0x5f
  );
}

function isHexDigit(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x66) || (code >= 0x41 && code <= 0x46);
}

/** What separates the bytes of a hex dump ("77 67 65 74", "77:67:65:74", "77-67", "0x77, 0x67"). */
function isHexSeparator(code: number): boolean {
  return code === 0x20 || code === 0x3a || code === 0x2d || code === 0x2c;
}

/** A hex dump this long (bytes written as separated pairs) is decoded and read as a model would. */
const HEX_DUMP_BYTES = 8;

/**
 * Text written as hex for a model told to decode it: separated byte pairs ("77 67 65 74 20 2d …",
 * optionally "0x"-prefixed) and unbroken even-length hex runs of 16 digits or more. Only what
 * decodes to printable text is kept, so hashes, ids and colour codes stay what they are.
 */
function decodeHexText(text: string): string[] {
  const decoded: string[] = [];
  const keep = (digits: string) => {
    const value = Buffer.from(digits, "hex").toString("utf8");
    if (isPrintableText(value)) decoded.push(value);
  };
  let pairs = "";
  let count = 0;
  const endDump = () => {
    if (count >= HEX_DUMP_BYTES) keep(pairs);
    pairs = "";
    count = 0;
  };
  let i = 0;
  while (i < text.length) {
    if (i > 0 && isAsciiWordChar(text.charCodeAt(i - 1))) {
      i++;
      continue;
    }
    const start = text.charCodeAt(i) === 0x30 && (text.charCodeAt(i + 1) | 0x20) === 0x78 ? i + 2 : i;
    let end = start;
    while (end < text.length && isHexDigit(text.charCodeAt(end))) end++;
    if (end < text.length && isAsciiWordChar(text.charCodeAt(end))) {
      endDump();
      i = end;
      while (i < text.length && isAsciiWordChar(text.charCodeAt(i))) i++;
      continue;
    }
    if (end - start === 2) {
      pairs += text.slice(start, end);
      count++;
      i = end;
      while (i < text.length && isHexSeparator(text.charCodeAt(i))) i++;
      if (i === end) endDump();
      continue;
    }
    endDump();
    if (end - start >= 16 && (end - start) % 2 === 0) keep(text.slice(start, end));
    i = Math.max(end, i + 1);
  }
  endDump();
  return decoded;
}

/** Six or more bytes written as URL escapes in a row ("%63%75%72%6c%20%68…"). */
const PERCENT_RUN = /(?:%[0-9a-f]{2}){6,}/gi;
/** PERCENT_RUN somewhere: the fast path's test (a global expression's test would move its lastIndex). */
const HAS_PERCENT_RUN = /(?:%[0-9a-f]{2}){6}/i;

/**
 * Text written as URL escapes for a model told to decode it. Only unbroken runs count: a URL with
 * a few escaped spaces or non-Latin letters is a URL, and decodes to no printable English text.
 */
function decodePercentText(text: string): string[] {
  if (!text.includes("%")) return [];
  const decoded: string[] = [];
  for (const [run] of text.matchAll(PERCENT_RUN)) {
    const value = Buffer.from(run.replaceAll("%", ""), "hex").toString("utf8");
    if (isPrintableText(value)) decoded.push(value);
  }
  return decoded;
}

function decodeBase64Blobs(text: string): string[] {
  const decoded: string[] = [];
  for (let i = 0; i < text.length; ) {
    if (!isBase64Char(text.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i;
    while (j < text.length && isBase64Char(text.charCodeAt(j))) j++;
    while (text.charCodeAt(j) === 0x3d) j++;
    if (j - i >= 20) {
      const blob = text.slice(i, j);
      const value = Buffer.from(
        blob,
        blob.includes("-") || blob.includes("_") ? "base64url" : "base64",
      ).toString("utf8");
      if (isPrintableText(value)) decoded.push(value);
    }
    i = j;
  }
  return decoded;
}

function longestWhitespaceRun(text: string): { newlines: number; spaces: number } {
  let newlines = 0;
  let spaces = 0;
  let runNewlines = 0;
  let runSpaces = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x0a) {
      runNewlines++;
      runSpaces = 0;
    } else if (code === 0x20 || code === 0x09 || code === 0x0d) runSpaces++;
    else {
      newlines = Math.max(newlines, runNewlines);
      spaces = Math.max(spaces, runSpaces);
      runNewlines = 0;
      runSpaces = 0;
    }
  }
  return { newlines: Math.max(newlines, runNewlines), spaces: Math.max(spaces, runSpaces) };
}

/** Printable ASCII plus tab and newlines: nothing to clean, NFKC leaves it alone, no lookalikes. */
function isPlainAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7e || (code < 0x20 && code !== 0x0a && code !== 0x09)) return false;
  }
  return true;
}

function visible(raw: string, findings: HiddenTextFinding[]): Cleaned & { folded: string } {
  if (isPlainAscii(raw)) return { text: raw, tagText: "", selectorBytes: [], findings: [], folded: raw };
  const cleaned = clean(raw);
  findings.push(...cleaned.findings);
  const folded = foldHomoglyphs(cleaned.text.normalize("NFKC"), findings);
  return { ...cleaned, folded };
}

const NOTHING_HIDDEN: NormalizedText = Object.freeze({ text: "", hidden: [], findings: [] });

/**
 * The common case in one pass: printable ASCII, no HTML comment, no base64-length run, no padding.
 * Such text needs no normalisation at all.
 */
function isPlainText(text: string): boolean {
  if (text.includes("%") && HAS_PERCENT_RUN.test(text)) return false;
  let run = 0;
  let hexDigits = 0;
  let hexPairs = 0;
  let spaces = 0;
  let newlines = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7e || (code < 0x20 && code !== 0x0a && code !== 0x09)) return false;
    if (isBase64Char(code)) {
      if (++run >= 20) return false;
    } else run = 0;
    if (isHexDigit(code)) {
      if (++hexDigits >= 16) return false;
    } else if (code === 0x78 && hexDigits === 1 && text.charCodeAt(i - 1) === 0x30) hexDigits = 0;
    else {
      if (hexDigits === 2 && isHexSeparator(code)) {
        if (++hexPairs >= HEX_DUMP_BYTES - 1) return false;
      } else if (!isHexSeparator(code)) hexPairs = 0;
      hexDigits = 0;
    }
    if (code === 0x20 || code === 0x09) {
      if (++spaces >= 200) return false;
    } else if (code === 0x0a) {
      spaces = 0;
      if (++newlines >= 20) return false;
    } else {
      spaces = 0;
      newlines = 0;
    }
    if (code === 0x21 && text.charCodeAt(i - 1) === 0x3c) return false;
  }
  return true;
}

const ROT13_HINT = /\brot[- ]?13\b/i;
const REVERSED_HINT =
  /\b(?:read|written|write|spelt|spelled|decode)\b[^.\n]{0,30}\b(?:backwards?|reversed|in reverse|right[- ]to[- ]left)\b|\breversed? (?:text|string)\b/i;

/**
 * Text a definition tells the model to read transformed — "apply rot13 to …", "read it backwards" —
 * the whole string so transformed, scanned as hidden text. Naming the transform is no harm by itself:
 * only what the transformed text says is reported.
 */
function transformedReadings(text: string): HiddenSegment[] {
  const readings: HiddenSegment[] = [];
  if (ROT13_HINT.test(text)) readings.push({ channel: "rot13", text: rot13(text) });
  if (REVERSED_HINT.test(text)) readings.push({ channel: "reversed", text: [...text].reverse().join("") });
  return readings;
}

function rot13(text: string): string {
  return text.replace(/[a-z]/gi, (letter) => {
    const base = letter <= "Z" ? 65 : 97;
    return String.fromCharCode(((letter.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** What a model reads of one normalised string: its visible text, then each payload hidden in it. */
export function readPieces(normalized: NormalizedText): string[] {
  return normalized.hidden.length === 0
    ? [normalized.text]
    : [normalized.text, ...normalized.hidden.map((payload) => payload.text)];
}

/** Normalises one string of a tool definition; `depth` bounds decoding of payloads inside payloads. */
export function normalize(raw: string, depth = 0): NormalizedText {
  const transformed = transformedReadings(raw);
  if (transformed.length === 0 && isPlainText(raw))
    return raw.length === 0 ? NOTHING_HIDDEN : { text: raw, hidden: [], findings: [] };
  const findings: HiddenTextFinding[] = [];
  const payloads: HiddenSegment[] = [...transformed];
  const { folded, tagText, selectorBytes } = visible(raw, findings);
  if (tagText) {
    findings.push({ rule: "hidden.unicode-tag-characters", severity: "Critical", match: preview(tagText) });
    payloads.push({ channel: "unicode-tags", text: tagText });
  }
  for (const bytes of selectorBytes) {
    const payload = Buffer.from(bytes).toString("utf8");
    if (!isPrintableText(payload)) continue;
    findings.push({
      rule: "hidden.variation-selector-payload",
      severity: "Critical",
      match: preview(payload),
    });
    payloads.push({ channel: "variation-selectors", text: payload });
  }
  const comments: string[] = [];
  const text = folded.includes("<!--") ? extractHtmlComments(folded, comments) : folded;
  for (const comment of comments) {
    if (!comment) continue;
    findings.push({ rule: "hidden.html-comment", severity: "Medium", match: preview(comment) });
    payloads.push({ channel: "html-comment", text: comment });
  }
  for (const value of decodeBase64Blobs(text)) {
    findings.push({ rule: "hidden.base64-text", severity: "Medium", match: preview(value) });
    payloads.push({ channel: "base64", text: value });
  }
  for (const value of decodeHexText(text)) {
    findings.push({ rule: "hidden.hex-text", severity: "Medium", match: preview(value) });
    payloads.push({ channel: "hex", text: value });
  }
  for (const value of decodePercentText(text)) {
    findings.push({ rule: "hidden.percent-encoded-text", severity: "Medium", match: preview(value) });
    payloads.push({ channel: "percent-encoded", text: value });
  }
  const padding = longestWhitespaceRun(text);
  if (padding.newlines >= 20 || padding.spaces >= 200)
    findings.push({
      rule: "hidden.whitespace-padding",
      severity: "Medium",
      match: `${padding.newlines} blank lines / ${padding.spaces} spaces push text out of view`,
    });
  const hidden: HiddenSegment[] = [];
  for (const payload of payloads) {
    if (depth >= 2) {
      hidden.push(payload);
      continue;
    }
    // Payloads are normalised too: a homoglyph or base64 blob inside a comment is still found.
    const inner = normalize(payload.text, depth + 1);
    hidden.push({ channel: payload.channel, text: inner.text }, ...inner.hidden);
    findings.push(...inner.findings);
  }
  return { text, hidden, findings };
}

/** The findings normalisation itself reports (category HiddenInstructions), for docs and SARIF. */
export const HIDDEN_TEXT_RULES: Readonly<Record<string, { severity: Severity; summary: string }>> = {
  "hidden.unicode-tag-characters": {
    severity: "Critical",
    summary: "Unicode tag characters carrying invisible ASCII",
  },
  "hidden.variation-selector-payload": {
    severity: "Critical",
    summary: "text smuggled in variation selectors",
  },
  "hidden.zero-width-in-words": { severity: "High", summary: "zero-width characters splitting words" },
  "hidden.zero-width": { severity: "Medium", summary: "three or more zero-width characters" },
  "hidden.bidi-override": { severity: "High", summary: "bidirectional override/isolate characters" },
  "hidden.ansi-escape": {
    severity: "Medium",
    summary: "ANSI escape sequences (High when they conceal or move text)",
  },
  "hidden.control-characters": { severity: "Low", summary: "other control characters" },
  "hidden.homoglyph-mixed-script": {
    severity: "Medium",
    summary: "a word mixing Latin with Cyrillic/Greek lookalikes (High in a name or a value the model sends)",
  },
  "hidden.html-comment": {
    severity: "Medium",
    summary: "an HTML comment (its content is scanned as hidden text)",
  },
  "hidden.base64-text": {
    severity: "Medium",
    summary: "a base64 blob that decodes to text (scanned as hidden text)",
  },
  "hidden.hex-text": {
    severity: "Medium",
    summary: "hex (byte pairs or a long run) that decodes to text (scanned as hidden text)",
  },
  "hidden.percent-encoded-text": {
    severity: "Medium",
    summary: "six or more URL escapes in a row that decode to text (scanned as hidden text)",
  },
  "hidden.obfuscated-word": {
    severity: "Medium",
    summary:
      "a word the rules look for, spelt letter by letter, broken by markup or written with digits for letters",
  },
  "hidden.spelled-out-address": {
    severity: "High",
    summary: 'a web or mail address spelt out ("relay dot io", "evil[.]com"), read back as the address',
  },
  "hidden.deep-nesting": {
    severity: "High",
    summary:
      "a schema nested deeper than 64 levels (the deeper levels are not inspected, so the schema is refused)",
  },
  "hidden.oversized-text": {
    severity: "High",
    summary: "a string longer than 256 KiB (the rest is not inspected, so the string is refused)",
  },
  "hidden.whitespace-padding": {
    severity: "Medium",
    summary: "blank lines or spaces that push text out of view",
  },
};
