/**
 * How the rules read a lower-cased string: as a model reads it. A model reads through line wraps,
 * Markdown emphasis and runs of white space; a rule scoped to a sentence and anchored at word
 * boundaries does not, unless the text it scans is read the same way first. Every transform keeps
 * the length, so that a match's offsets still point into the text a finding quotes.
 */

export function readAsModel(lower: string): string {
  return joinWrappedLines(withoutEmphasis(lower));
}

/**
 * A line that starts structure: a list item, a heading, a fenced block, a table row, a quote, or a
 * `name:` / `name (type):` parameter line.
 */
const STRUCTURED_LINE =
  /^[ \t]*(?:[-*•+#>|]|```|\d{1,3}[.)]\s|[a-z_][\w.-]*(?:\s*\([^)\n]{0,40}\))?\s*:(?:\s|$))/;
/** A line end that closes a sentence or opens structure: . ! ? : ; or a closing code fence. */
const CLOSING_CHARACTER = /[.!?:;`]/;

/**
 * The text with Markdown's underscore emphasis read as spaces (same length): `_` is a word character
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
    const blank = " ".repeat(width);
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

function isWordCode(code: number): boolean {
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
 * structure (see STRUCTURED_LINE), and after a structured line unless the next is indented further.
 */
function joinWrappedLines(lower: string): string {
  if (!lower.includes("\n")) return lower;
  let out = "";
  let from = 0;
  for (let at = lower.indexOf("\n"); at >= 0; at = lower.indexOf("\n", at + 1)) {
    let before = at - 1;
    while (before >= 0 && (lower[before] === " " || lower[before] === "\t" || lower[before] === "\r"))
      before--;
    const next = lower.indexOf("\n", at + 1);
    const line = lower.slice(at + 1, next < 0 ? lower.length : next);
    const current = lower.slice(lower.lastIndexOf("\n", at - 1) + 1, at);
    const wrapped =
      before >= 0 &&
      lower[before] !== "\n" &&
      !CLOSING_CHARACTER.test(lower[before]!) &&
      line.trim().length > 0 &&
      !STRUCTURED_LINE.test(line) &&
      // A list item or parameter line continues only on an indented line.
      (!STRUCTURED_LINE.test(current) || indent(line) > indent(current));
    if (!wrapped) continue;
    out += `${lower.slice(from, at)} `;
    from = at + 1;
  }
  return from === 0 ? lower : out + lower.slice(from);
}

const FOLDABLE_SPACE = /[\t\v\f\r]| {2}/;

/**
 * The text trigger words are looked for in: a run of spaces, tabs and carriage returns reads as one
 * space, as a pattern's `\s+` reads it, so that "systemctl<TAB>enable" still meets the trigger
 * "systemctl enable" (it did not: the pattern was never tried). `origins` maps a folded index back
 * to the text (absent: nothing folded).
 */
export function foldSpaces(text: string): { text: string; origins?: Int32Array } {
  if (!FOLDABLE_SPACE.test(text)) return { text };
  const origins = new Int32Array(text.length);
  let folded = "";
  let previousSpace = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const space = code === 0x20 || code === 0x09 || code === 0x0b || code === 0x0c || code === 0x0d;
    if (space && previousSpace) continue;
    origins[folded.length] = i;
    folded += space ? " " : text[i];
    previousSpace = space;
  }
  return { text: folded, origins };
}
