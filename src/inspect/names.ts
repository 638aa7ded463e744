import { TextMemo } from "../kernel/bounded-map.ts";
import { normalize } from "./normalize.ts";

// Tool names as words and as a reader sees them; light enough for the session registry to load.

/**
 * `read_ssh_keys`, `readSshKeys`, `read-ssh keys` → [read, ssh, keys]. ASCII letters and digits
 * only, after reading the name as the model does: compatibility forms and homoglyphs folded
 * (`ｆｏｒｃｅ` and `fоrce` with a Cyrillic о are `force`), invisible characters dropped.
 */
export function nameWords(name: string): readonly string[] {
  return name.length > MAX_MEMO_NAME ? splitName(name) : NAME_WORDS.of(name, splitName);
}

/**
 * A definition's name and argument names are split by a dozen checks each: split once per name.
 * Every caller shares the array, which the `readonly` type keeps them from changing; it is not
 * frozen at run time, because V8 iterates a frozen array on its slow paths (`some` about ten times,
 * `for … of` about five times slower), and these arrays are iterated on every definition.
 * Sentences are split too; they are not kept.
 */
const MAX_MEMO_NAME = 128;
const NAME_WORDS = new TextMemo<readonly string[]>({ maxLength: MAX_MEMO_NAME, maxCharacters: 200_000 });

function splitName(name: string): readonly string[] {
  const text = isAscii(name) ? name : normalize(name).text;
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0x20;
    const upper = code >= 0x41 && code <= 0x5a;
    const wordChar = upper || (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39);
    // A capital after a lower-case letter or digit starts a camelCase word.
    const split = upper && start >= 0 && !isUpper(text.charCodeAt(i - 1));
    if (start >= 0 && (!wordChar || split)) {
      words.push(text.slice(start, i).toLowerCase());
      start = -1;
    }
    if (wordChar && start < 0) start = i;
  }
  return words;
}

/** `repositories` → `repository`, `issues` → `issue`: enough to fold a name's plural. */
export function singular(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

function isUpper(code: number): boolean {
  return code >= 0x41 && code <= 0x5a;
}

/** Digits and symbols that pass for letters in a name, and letter pairs that pass for one letter. */
const LOOKALIKE: Record<string, string> = {
  "0": "o",
  "1": "l",
  i: "l",
  "3": "e",
  "4": "a",
  "5": "s",
  "@": "a",
  $: "s",
};

/**
 * The form of a name a reader cannot tell apart: case, separators, homoglyphs and digit lookalikes
 * folded (`Read_Text_Fi1e`, `read-text-file`, `rеad_text_file` → `readtextflle`).
 */
export function confusableKey(name: string): string {
  const folded = (isAscii(name) ? name : normalize(name).text)
    .toLowerCase()
    .replaceAll("rn", "m")
    .replaceAll("vv", "w");
  let key = "";
  for (const ch of folded) {
    const mapped = LOOKALIKE[ch] ?? ch;
    if ((mapped >= "a" && mapped <= "z") || (mapped >= "0" && mapped <= "9")) key += mapped;
  }
  return key;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7e) return false;
  return true;
}
