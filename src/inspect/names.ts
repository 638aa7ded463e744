import { normalize } from "./normalize.ts";

// Tool names as words and as a reader sees them; light enough for the session registry to load.

/** `read_ssh_keys`, `readSshKeys`, `read-ssh keys` → [read, ssh, keys]. */
export function nameWords(text: string): string[] {
  const words: string[] = [];
  let word = "";
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const lower = code >= 0x61 && code <= 0x7a;
    const upper = code >= 0x41 && code <= 0x5a;
    const digit = code >= 0x30 && code <= 0x39;
    if (upper && word.length > 0 && !isUpper(text.charCodeAt(i - 1))) {
      words.push(word);
      word = "";
    }
    if (lower || digit) word += text[i];
    else if (upper) word += String.fromCharCode(code + 32);
    else if (word.length > 0) {
      words.push(word);
      word = "";
    }
  }
  if (word.length > 0) words.push(word);
  return words;
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
  const folded = normalize(name).text.toLowerCase().replaceAll("rn", "m").replaceAll("vv", "w");
  let key = "";
  for (const ch of folded) {
    const mapped = LOOKALIKE[ch] ?? ch;
    if ((mapped >= "a" && mapped <= "z") || (mapped >= "0" && mapped <= "9")) key += mapped;
  }
  return key;
}
