/**
 * How the rules read a string (lower-cased): as a model reads it. A model reads through line wraps,
 * Markdown emphasis, runs of white space, escapes and HTML character references written out, and
 * words spelt to slip past word lists;
 * a rule scoped to a sentence and anchored at word boundaries does not, unless the text it scans is
 * read the same way first. Every transform but the last (foldSpaces, which maps its offsets back)
 * keeps the length, so that a match's offsets still point into the text a finding quotes.
 */

/**
 * What the length-keeping steps write where characters are read away (the rest of a packed word,
 * emphasis marks): foldSpaces drops it, so "_word_," reads as "word,". Normalisation removes control
 * characters, so the text never holds one of its own.
 */
const READ_AWAY = "\0";

/** A word spelt to slip past word lists, found at [start, end) and read back. */
export interface ReadBack {
  start: number;
  end: number;
  word: string;
  /**
   * What was read back, when not a word spelt to slip past word lists: a web address spelt out
   * ("hooks dot relay-ops dot io"); one defanged as security tools write them ("evil[.]com"), or
   * one or two accents on a word the rules know bare ("ignóre"), as another language might write
   * it — those two read back but not reported.
   */
  kind?: "address" | "defanged" | "accent";
}

export interface ModelReading {
  text: string;
  /**
   * What was read back: words spelt letter by letter, broken by markup, written with digits or with
   * marks on their letters, and addresses spelt out (ReadBack.kind).
   */
  obfuscated: ReadBack[];
}

/** Finds the words of a text it reads back, in text order, without overlaps. */
type ReadBackFinder = (text: string, vocabulary: ReadonlySet<string>) => ReadBack[];

/**
 * `vocabulary`: the words the rules look for (lower-case, 4 letters or more). A word spelt out
 * letter by letter, broken by markup or written with digits for letters is read back only when that
 * spells one of them, so identifiers such as `v1beta` or `l10n` stay as written.
 */
export function readAsModel(original: string, vocabulary: ReadonlySet<string>): ModelReading {
  const obfuscated: ReadBack[] = [];
  let text = withEntitiesRead(withEscapesRead(lowerSameLength(original)));
  for (const find of READ_BACK_FINDERS) {
    const found = find(text, vocabulary);
    if (found.length === 0) continue;
    text = withWordsReadBack(text, found);
    obfuscated.push(...found);
  }
  return { text: joinWrappedLines(withoutEmphasis(text), original), obfuscated };
}

/**
 * `text` lower-cased with each wrapped line joined to the next (same length): a newline left in it
 * ends a sentence, a paragraph or a structured line as a model reads them.
 */
export function linesAsRead(text: string): string {
  return joinWrappedLines(lowerSameLength(text), text);
}

/** `text` with each wrapped line joined to the next by a space (see joinWrappedLines), its case kept. */
export function unwrapped(text: string): string {
  if (!text.includes("\n")) return text;
  const read = linesAsRead(text);
  let out = "";
  let from = 0;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) {
    if (read[at] !== " ") continue;
    out += `${text.slice(from, at)} `;
    from = at + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Lower-cases without changing offsets (a few characters grow when lower-cased; those stay). */
function lowerSameLength(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  let out = "";
  for (const ch of text) {
    const l = ch.toLowerCase();
    out += l.length === ch.length ? l : ch;
  }
  return out;
}

/** Each span replaced by its word, padded with spaces to the span's length. */
function withWordsReadBack(text: string, found: readonly ReadBack[]): string {
  let out = "";
  let from = 0;
  for (const { start, end, word } of found) {
    out += text.slice(from, start) + word + READ_AWAY.repeat(end - start - word.length);
    from = end;
  }
  return out + text.slice(from);
}

/** An escape written out: `\n`, `\r`, `\t`, `\u0073`, `\x73` (not after another backslash). */
const WRITTEN_ESCAPE = /(?<!\\)\\(?:[nrt]|u([0-9a-f]{4})|x([0-9a-f]{2}))/g;

/**
 * Escapes written out (an escape that reached the text) read as what they stand for (same length):
 * `\n`, `\r` and `\t` as white space, `\u0073end` and `\x73end` as "send".
 */
function withEscapesRead(lower: string): string {
  if (!lower.includes("\\")) return lower;
  return lower.replace(WRITTEN_ESCAPE, (written, unicode?: string, hex?: string) => {
    const code = unicode ?? hex;
    if (code === undefined) return "  ";
    const character = String.fromCharCode(Number.parseInt(code, 16));
    const read = UNSEEN.test(character) ? READ_AWAY : character.toLowerCase();
    return read.length === 1 && !isSurrogate(read) ? read + READ_AWAY.repeat(written.length - 1) : written;
  });
}

function isSurrogate(character: string): boolean {
  const code = character.charCodeAt(0);
  return code >= 0xd800 && code <= 0xdfff;
}

/** Named character references read as their character; others stay as written. */
const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  shy: READ_AWAY,
  zwj: READ_AWAY,
  zwnj: READ_AWAY,
};

const CHARACTER_REFERENCE = /&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]{2,6}));/gi;

/** Characters a reader does not see: soft hyphen, zero-width and directional marks, BOM, controls. */
const UNSEEN =
  /^[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]$/;

/**
 * HTML character references read as the characters they stand for (same length): a model reads
 * "&#115;end" as "send" and "instruc&shy;tions" as "instructions", as a browser would show them.
 */
function withEntitiesRead(lower: string): string {
  if (!lower.includes("&")) return lower;
  return lower.replace(CHARACTER_REFERENCE, (reference, decimal?: string, hex?: string, name?: string) => {
    let read: string | undefined;
    if (name !== undefined) read = NAMED_ENTITIES[name.toLowerCase()];
    else {
      const code = decimal !== undefined ? Number(decimal) : Number.parseInt(hex!, 16);
      if (code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)) {
        const character = String.fromCodePoint(code);
        read = UNSEEN.test(character) ? READ_AWAY : character.toLowerCase();
      }
    }
    if (read === undefined || read.length > reference.length) return reference;
    return read + READ_AWAY.repeat(reference.length - read.length);
  });
}

function isLetter(code: number): boolean {
  return code >= 0x61 && code <= 0x7a;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** What may stand between the letters of a word spelt out: one kind throughout. */
const SPELLING_SEPARATORS = " .-*·";

/** Four single letters one separator apart, somewhere: the cheap test before the walk. */
const SPELLED_OUT = /(?:^|[^a-z0-9_])[a-z]([ .*·-])[a-z]\1[a-z]\1[a-z](?![a-z0-9_])/;

/**
 * "i g n o r e", "s.e.n.d", "r-e-a-d": four or more single letters, each the same separator apart,
 * read as the word they spell.
 */
function spelledOut(text: string, vocabulary: ReadonlySet<string>): ReadBack[] {
  if (!SPELLED_OUT.test(text)) return [];
  const found: ReadBack[] = [];
  for (let i = 0; i < text.length; i++) {
    const separator = text[i + 1]!;
    if (!isSingleLetter(text, i) || !SPELLING_SEPARATORS.includes(separator)) continue;
    let end = i + 1;
    let letters = text[i]!;
    while (text[end] === separator && isSingleLetter(text, end + 1)) {
      letters += text[end + 1];
      end += 2;
    }
    if (letters.length >= 4 && vocabulary.has(letters)) found.push({ start: i, end, word: letters });
    i = end - 1;
  }
  return found;
}

/**
 * Words for "dot" an address is spelt with. "dot" and its translations (Turkish, Czech, Polish,
 * Danish/Norwegian, Russian) name nothing else in a tool's prose; "point", "punto", "ponto",
 * "punkt", "pont" and "piste" also mean a point, so after them only a top-level domain that is no
 * word of any of those languages counts, unless they join three labels or more.
 */
const SPELT_DOT_WORDS = ["dot", "nokta", "tečka", "kropka", "punktum", "точка"];
const AMBIGUOUS_DOT_WORDS = ["point", "punto", "ponto", "punkt", "pont", "piste"];
const DOT_WORDS = [...SPELT_DOT_WORDS, ...AMBIGUOUS_DOT_WORDS].join("|");

/** A separator an address is spelt with, somewhere: the cheap test before the walk. */
const ADDRESS_SEPARATOR = new RegExp(`[\\s[({](?:${DOT_WORDS}|\\.)[\\s\\])}]`);

const HOST_LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const SPELT_DOT = `(?:\\s+(?:${DOT_WORDS})\\s+|\\s*(?:\\[\\s*(?:dot|\\.)\\s*\\]|\\(\\s*(?:dot|\\.)\\s*\\)|\\{\\s*(?:dot|\\.)\\s*\\})\\s*)`;
/**
 * An address spelt out: labels joined by spelt dots, then "slash" path parts. A mailbox's "name at"
 * stays as written: "at" is as often "published at".
 */
const SPELT_ADDRESS = new RegExp(
  `(?<![\\w.@-])(${HOST_LABEL}(?:${SPELT_DOT}${HOST_LABEL})+)(?![\\w-])((?:\\s+slash\\s+[a-z0-9._~-]+)*)`,
  "g",
);
const SPELT_DOT_ALONE = new RegExp(SPELT_DOT, "g");
const AMBIGUOUS_DOT = new RegExp(`\\s(?:${AMBIGUOUS_DOT_WORDS.join("|")})\\s`);
const SPELT_DOT_WORD = new RegExp(`\\s(?:${DOT_WORDS})\\s`);

/**
 * Top-level domains an address spelt out ends with. Words of everyday English prose that are also
 * domains ("in", "it", "me", "us", "to", "at", "be", "no", "so", "is") never count: "a dot in the
 * middle". Those of other languages ("se", "de", "es" …) count only after an unambiguous dot word or
 * in three labels or more: "point de vente", "el punto es" are no addresses.
 */
const SPELT_TOP_LEVEL = new Set(
  "com net org io dev app ai co xyz pics fr ru cn jp uk info biz sh cloud site online tech run link page pages br tk top zip click live store ws su cc tv gg ly eu ch kr sk pw icu lol fun host space website email digital tools".split(
    " ",
  ),
);
const SPELT_TOP_LEVEL_AFTER_DOT = new Set("se de es nl pl fi dk cz tr ro hu gr pt".split(" "));
/**
 * Top-level domains that are English words: after a word that also means a point they count only in
 * three labels or more ("get lidar point cloud", "sales point online" are no addresses).
 */
const WORD_TOP_LEVEL = new Set(
  "cloud site online tech run link page pages store live top click zip fun host space website email digital tools app info".split(
    " ",
  ),
);

/**
 * "relay-ops dot io slash in", "hook punkt notesbridge punkt se", "evil[.]com": a web address spelt
 * so that a scanner reading for hosts does not see one, read back as the address a model reads.
 * Needs a top-level domain last and, for one spelt dot, a first label no shorter than four
 * characters or with a digit or hyphen ("asp dot net" stays prose).
 */
function spelledOutAddresses(text: string): ReadBack[] {
  if (!ADDRESS_SEPARATOR.test(text)) return [];
  const found: ReadBack[] = [];
  for (const match of text.matchAll(SPELT_ADDRESS)) {
    const [whole, host = "", path = ""] = match;
    const labels = host.split(SPELT_DOT_ALONE);
    const first = labels[0] ?? "";
    const last = labels.at(-1) ?? "";
    const unambiguous = labels.length > 2 || !AMBIGUOUS_DOT.test(host);
    if (!SPELT_TOP_LEVEL.has(last) && !(unambiguous && SPELT_TOP_LEVEL_AFTER_DOT.has(last))) continue;
    if (!unambiguous && WORD_TOP_LEVEL.has(last)) continue;
    if (labels.length === 2 && first.length < 4 && !/[\d-]/.test(first)) continue;
    const parts = path.split(/\s+slash\s+/).filter(Boolean);
    const word = `${labels.join(".")}${parts.map((part) => `/${part}`).join("")}`;
    // Brackets ("evil[.]com", "relay[dot]io") are how security tools write an address so that it
    // is not followed: read back, but no trick. A dot spelt as a word is written to get past a scanner.
    const spelt = SPELT_DOT_WORD.test(host);
    found.push({
      start: match.index,
      end: match.index + whole.length,
      word,
      kind: spelt ? "address" : "defanged",
    });
  }
  return found;
}

/** An accented Latin letter or a combining mark, somewhere: the cheap test before the walk. */
const ACCENTED = /[\u00c0-\u024f]|[\u0300-\u036f]/;
const LATIN_WORD = /(?:[a-z\u00c0-\u024f]|[\u0300-\u036f])+/g;
const COMBINING_MARKS = /[\u0300-\u036f]/g;

/**
 * "Ìgnóre all prévious", "I̲g̲n̲o̲r̲e̲": marks on the letters of a word the rules look for, read as the
 * word. A word the rules themselves write with its accents ("usuário", "demandé", or one that
 * starts with such a stem: "comentárselo") stays as written, or the translated rules would no longer
 * read it. Marks on three letters or more, or combining marks, are reported; one or two are how
 * another language writes a word, read back quietly.
 */
function accentsOnLetters(text: string, vocabulary: ReadonlySet<string>): ReadBack[] {
  if (!ACCENTED.test(text)) return [];
  const found: ReadBack[] = [];
  for (const match of text.matchAll(LATIN_WORD)) {
    const [word] = match;
    if (!ACCENTED.test(word) || writtenAccented(word, vocabulary)) continue;
    const bare = word.normalize("NFD").replace(COMBINING_MARKS, "");
    if (bare.length < 4 || bare.length > word.length || !/^[a-z]+$/.test(bare) || !vocabulary.has(bare))
      continue;
    let marked = 0;
    for (let i = 0; i < word.length; i++) if (word[i] !== bare[i]) marked++;
    const deliberate = marked >= 3 || word.length > bare.length;
    found.push({
      start: match.index,
      end: match.index + word.length,
      word: bare,
      ...(deliberate ? {} : { kind: "accent" as const }),
    });
  }
  return found;
}

/** Whether the rules write this accented word, or a stem of it, as it is. */
function writtenAccented(word: string, vocabulary: ReadonlySet<string>): boolean {
  for (let length = 4; length <= word.length; length++)
    if (vocabulary.has(word.slice(0, length))) return true;
  return false;
}

/** A word hyphenated across a line break, somewhere: the cheap test before the walk. */
const HYPHENATED_BREAK = /[a-z]-[ \t]*\n[ \t]*[a-z]/;
const HYPHENATED_WORD = /[a-z]+-[ \t]*\n[ \t]*[a-z]+/g;

/** "se-⏎nd": the two halves of a word hyphenated at a line's end, read as the word. */
function hyphenatedAcrossLines(text: string, vocabulary: ReadonlySet<string>): ReadBack[] {
  if (!HYPHENATED_BREAK.test(text)) return [];
  const found: ReadBack[] = [];
  for (const match of text.matchAll(HYPHENATED_WORD)) {
    const word = match[0].replace(/-\s*\n\s*/, "");
    if (vocabulary.has(word)) found.push({ start: match.index, end: match.index + match[0].length, word });
  }
  return found;
}

function isSingleLetter(text: string, at: number): boolean {
  return (
    isLetter(text.charCodeAt(at)) &&
    (at === 0 || !isWordCode(text.charCodeAt(at - 1))) &&
    (at + 1 >= text.length || !isWordCode(text.charCodeAt(at + 1)))
  );
}

const TAG = /^<\/?[a-z][a-z0-9]{0,9}>/;

/** "ig<b></b>nore": tags between the letters of one word, read as the word without them. */
function markupInsideWords(text: string, vocabulary: ReadonlySet<string>): ReadBack[] {
  if (!text.includes("<")) return [];
  const found: ReadBack[] = [];
  let from = 0;
  for (let at = text.indexOf("<"); at >= 0; at = text.indexOf("<", at + 1)) {
    if (!isLetter(text.charCodeAt(at - 1))) continue;
    let start = at - 1;
    while (start > 0 && isLetter(text.charCodeAt(start - 1))) start--;
    let end = at;
    let letters = text.slice(start, at);
    let tags = 0;
    for (;;) {
      const tag = TAG.exec(text.slice(end, end + 12));
      if (tag) {
        end += tag[0].length;
        tags++;
      } else if (isLetter(text.charCodeAt(end))) letters += text[end++];
      else break;
    }
    // Inside a word: letters on both sides of the markup ("PROD<id>" is a placeholder, not a word).
    if (start < from || tags === 0 || !isLetter(text.charCodeAt(end - 1)) || !vocabulary.has(letters))
      continue;
    found.push({ start, end, word: letters });
    from = end;
    at = end - 1;
  }
  return found;
}

/** Digits written for letters; 1 is tried as i and as l. */
const DIGIT_LETTERS: readonly Readonly<Record<string, string>>[] = [
  { "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t" },
  { "0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t" },
];

/**
 * Prose as a model reads it, for analyses that compare its words (a copy with its original, a
 * purpose, a stated destination): character references decoded, digits inside words read as letters.
 */
export function proseAsRead(text: string): string {
  const decoded = text.includes("&") ? withEntitiesRead(text).replaceAll(READ_AWAY, "") : text;
  return withDigitsRead(decoded);
}

/**
 * `text` with digits read as the letters they pass for inside words ("r3p0sit0ry" → "repository"),
 * whatever the word, for analyses that compare words rather than look for them: two descriptions
 * of one tool, a purpose, a stated destination. A word keeps its digits when they only number it
 * (`line5`, `oauth2`, `base64`), when it has fewer than two letters or four characters, or when it
 * holds a digit that passes for no letter (`i18n`, `h264`).
 */
export function withDigitsRead(text: string): string {
  if (!DIGIT_BESIDE_LETTER.test(text)) return text;
  return text.replace(ALPHANUMERIC_WORD, (word) => {
    if (word.length < 4 || !DIGIT_BESIDE_LETTER.test(word) || NUMBERED_WORD.test(word)) return word;
    let letters = 0;
    let read = "";
    for (const character of word) {
      const letter = DIGIT_LETTERS[0]![character];
      if (letter === undefined && character >= "0" && character <= "9") return word;
      if (letter === undefined) letters++;
      read += letter ?? character;
    }
    return letters < 2 ? word : read;
  });
}

const ALPHANUMERIC_WORD = /[a-z0-9]+/gi;
const NUMBERED_WORD = /^[a-z]+\d+$/i;

/** A digit that may stand for a letter, next to a letter (either case): the cheap test before the walk. */
const DIGIT_BESIDE_LETTER = /[a-z][013457]|[013457][a-z]/i;

/** "ign0re", "p4ssw0rd": a word of letters and digits that, read as letters, the rules know. */
function digitsForLetters(text: string, vocabulary: ReadonlySet<string>): ReadBack[] {
  if (!DIGIT_BESIDE_LETTER.test(text)) return [];
  const found: ReadBack[] = [];
  for (let i = 0; i < text.length; i++) {
    if (!isDigit(text.charCodeAt(i)) && !isLetter(text.charCodeAt(i))) continue;
    let end = i;
    let digits = 0;
    for (; end < text.length; end++) {
      const code = text.charCodeAt(end);
      if (isDigit(code)) digits++;
      else if (!isLetter(code)) break;
    }
    const word = text.slice(i, end);
    const start = i;
    i = end;
    if (digits === 0 || word.length - digits < 2 || word.length < 4) continue;
    // A digit no map reads as a letter (2, 6, 8, 9) stays a digit, and the vocabulary's words are
    // letters only: no reading of the word can be one of them.
    if (UNREAD_DIGIT.test(word)) continue;
    // A trailing digit numbers a word (`line5`, `parameter5`) or a short name (`mem0`, `oauth2`);
    // after a stem that is no word of its own it stands for a letter ("includ3").
    if (isDigit(text.charCodeAt(end - 1))) {
      const stem = word.replace(/\d+$/, "");
      if (stem.length < 4 || vocabulary.has(stem)) continue;
    }
    for (const map of DIGIT_LETTERS) {
      let read = "";
      for (const character of word) read += map[character] ?? character;
      if (vocabulary.has(read)) {
        found.push({ start, end, word: read });
        break;
      }
      // The maps differ only in how they read 1: without one, the next reads the word the same.
      if (!word.includes("1")) break;
    }
  }
  return found;
}

const UNREAD_DIGIT = /[2689]/;

const READ_BACK_FINDERS: readonly ReadBackFinder[] = [
  spelledOutAddresses,
  accentsOnLetters,
  spelledOut,
  hyphenatedAcrossLines,
  markupInsideWords,
  digitsForLetters,
];

/**
 * A line that starts structure: a list item, a heading, a fenced block, a table row, a quote, or a
 * `name:` / `name (type):` parameter line.
 */
const STRUCTURED_LINE =
  /^[ \t]*(?:[-*•+#>|]|```|\d{1,3}[.)]\s|[a-z_][\w.-]*(?:\s*\([^)\n]{0,40}\))?\s*:(?:\s|$))/;
/** A line end that closes a sentence or opens structure: . ! ? : ; or a closing code span or fence. */
const CLOSING_CHARACTER = /[.!?:;`]/;

/**
 * The text with Markdown's underscore emphasis read away (same length): `_` is a word character
 * to RE2, so "_ignore_" had no word boundary before "ignore". Emphasis opens with `_` or `__` after a
 * non-word character and before a letter, and closes with as many after a letter and before a
 * non-word character, on the same line; other underscores (`read_file`, `puppeteer_*`) stay.
 */
function withoutEmphasis(lower: string): string {
  if (!lower.includes("_")) return lower;
  let out = "";
  let from = 0;
  for (let at = lower.indexOf("_"); at >= 0; at = lower.indexOf("_", at + 1)) {
    const width = lower[at + 1] === "_" ? 2 : 1;
    const before = at === 0 ? 0x20 : lower.charCodeAt(at - 1);
    const close =
      isWordCode(before) || !isLetterCode(lower.charCodeAt(at + width))
        ? -1
        : closingEmphasis(lower, at + width, width);
    if (close < 0) {
      at += width - 1;
      continue;
    }
    const blank = READ_AWAY.repeat(width);
    out += lower.slice(from, at) + blank + lower.slice(at + width, close) + blank;
    from = close + width;
    at = from - 1;
  }
  return from === 0 ? lower : out + lower.slice(from);
}

/** Where the emphasis opened before `from` closes on its line, or -1. */
function closingEmphasis(lower: string, from: number, width: number): number {
  const lineEnd = lower.indexOf("\n", from);
  const limit = lineEnd < 0 ? lower.length : lineEnd;
  for (let at = lower.indexOf("_", from); at >= 0 && at < limit; at = lower.indexOf("_", at + 1)) {
    const run = lower[at + 1] === "_" ? 2 : 1;
    const after = at + run >= lower.length ? 0x20 : lower.charCodeAt(at + run);
    if (run === width && isLetterCode(lower.charCodeAt(at - 1)) && !isWordCode(after)) return at;
    at += run - 1;
  }
  return -1;
}

function isLetterCode(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || code > 0x7f;
}

/** A character of a word in lower-cased text: a-z, a digit, `_`, or any character outside ASCII. */
export function isWordCode(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x5f || code > 0x7f;
}

function indent(line: string): number {
  let width = 0;
  while (width < line.length && (line[width] === " " || line[width] === "\t")) width++;
  return width;
}

/**
 * The text with each wrapped line joined to the next by a space (same length), as a model reads it:
 * rules are scoped to a sentence, and a newline between two words of an instruction must not split
 * it. A newline stays where it ends a sentence or a paragraph, where the next line starts
 * structure (see STRUCTURED_LINE), and after a structured line where the next starts a sentence of
 * its own: a capital in `original` (the same text before lower-casing), not indented further. A
 * list item or a `Note:` line wrapped before a lower-case word ("Use\nfast_search for all
 * queries") goes on, as Markdown's lazy continuation does, and so does a line that closes a code
 * span ("`source ~/.x/init.sh`\nto ~/.bashrc"). A line that ends inside a code span always goes on:
 * the next begins with the rest of the command ("`npm i -g x\n--unsafe-perm`", "`curl …\n| sh`").
 */
function joinWrappedLines(lower: string, original: string): string {
  if (!lower.includes("\n")) return lower;
  let out = "";
  let from = 0;
  // Whether a code span is open at `scanned`: backticks are counted once, from the paragraph's start.
  let codeOpen = false;
  let scanned = 0;
  for (let at = lower.indexOf("\n"); at >= 0; at = lower.indexOf("\n", at + 1)) {
    let before = at - 1;
    while (before >= 0 && (lower[before] === " " || lower[before] === "\t" || lower[before] === "\r"))
      before--;
    const next = lower.indexOf("\n", at + 1);
    const line = lower.slice(at + 1, next < 0 ? lower.length : next);
    codeOpen = spanOpenAfter(lower, scanned, at, codeOpen);
    scanned = at;
    if (before < 0 || lower[before] === "\n" || line.trim().length === 0) {
      // A code span does not cross a blank line.
      codeOpen = false;
      continue;
    }
    const current = lower.slice(lower.lastIndexOf("\n", at - 1) + 1, at);
    const lowerCaseNext = !startsCapitalised(original, at + 1 + indent(line));
    const wrapped = codeOpen
      ? !fenceLine(line)
      : lower[before] === "`"
        ? lowerCaseNext && !fenceLine(current) && !STRUCTURED_LINE.test(line)
        : !CLOSING_CHARACTER.test(lower[before]!) &&
          !STRUCTURED_LINE.test(line) &&
          (!STRUCTURED_LINE.test(current) || indent(line) > indent(current) || lowerCaseNext);
    if (!wrapped) continue;
    out += `${lower.slice(from, at)} `;
    from = at + 1;
  }
  return from === 0 ? lower : out + lower.slice(from);
}

/**
 * Whether a code span is open at `to`, given whether one was at `from`: single and double backticks
 * toggle it. Walks [from, to) only: the calls for successive lines cost one pass in all.
 */
function spanOpenAfter(lower: string, from: number, to: number, open: boolean): boolean {
  for (let at = from; at < to; at++) {
    if (lower.charCodeAt(at) !== 0x60) continue;
    let run = 1;
    while (lower.charCodeAt(at + run) === 0x60) run++;
    // A fence (three or more) opens a block, not a span, and closes any span.
    open = run < 3 ? !open : false;
    at += run - 1;
  }
  return open;
}

function fenceLine(line: string): boolean {
  return line.trimStart().startsWith("```");
}

function startsCapitalised(original: string, at: number): boolean {
  const first = original[at];
  return first !== undefined && first !== first.toLowerCase();
}

const FOLDABLE_SPACE = /[\t\v\f\r\0]| {2}/;

/**
 * The text the rules scan, the one step that changes the length: a run of spaces, tabs and carriage
 * returns reads as one space, so that "systemctl<TAB>enable" meets the trigger "systemctl enable"
 * and a pattern's literal space meets a tab or two spaces, and what was read away goes. `origins`
 * maps a folded index back to the text (absent: nothing folded).
 */
export function foldSpaces(text: string): { text: string; origins?: Int32Array } {
  if (!FOLDABLE_SPACE.test(text)) return { text };
  const origins = new Int32Array(text.length);
  let folded = "";
  let previousSpace = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0) continue;
    const space = code === 0x20 || code === 0x09 || code === 0x0b || code === 0x0c || code === 0x0d;
    if (space && previousSpace) continue;
    origins[folded.length] = i;
    folded += space ? " " : text[i];
    previousSpace = space;
  }
  return { text: folded, origins };
}
