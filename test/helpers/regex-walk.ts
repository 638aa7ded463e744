import type { RE2JS } from "re2js";

// Instruction opcodes of RE2JS's Prog (src/Inst.js); re2js is pinned to an exact version.
const ALT = 1;
const ALT_MATCH = 2;
const CAPTURE = 3;
const EMPTY_WIDTH = 4;
const MATCH = 6;
const NOP = 7;
const RUNE = 8;
const RUNE1 = 9;
const RUNE_ANY = 10;
const RUNE_ANY_NOT_NL = 11;

interface Inst {
  op: number;
  out: number;
  arg: number;
  runes: Int32Array;
}

/**
 * A string along one random path through a pattern's RE2 program (empty-width assertions ignored,
 * so the caller checks that the pattern matches it): the matches a prefilter must never miss.
 * Characters are drawn from printable ASCII where a class allows, else its first character.
 */
export function randomPath(regex: RE2JS, random: () => number, maxLength = 300): string | undefined {
  const prog = (regex as unknown as { re2Input: { prog: { inst: Inst[]; start: number } } }).re2Input.prog;
  let pc = prog.start;
  let out = "";
  for (let steps = 0; steps < 5000 && out.length <= maxLength; steps++) {
    const instruction = prog.inst[pc]!;
    switch (instruction.op) {
      case MATCH:
        return out;
      case ALT:
      case ALT_MATCH:
        pc = random() < 0.5 ? instruction.out : instruction.arg;
        break;
      case CAPTURE:
      case NOP:
      case EMPTY_WIDTH:
        pc = instruction.out;
        break;
      case RUNE1:
        out += String.fromCodePoint(instruction.runes[0]!);
        pc = instruction.out;
        break;
      case RUNE:
        out += String.fromCodePoint(pickRune(instruction.runes, random));
        pc = instruction.out;
        break;
      case RUNE_ANY:
      case RUNE_ANY_NOT_NL:
        out += "ab cd-e"[Math.floor(random() * 7)];
        pc = instruction.out;
        break;
      default:
        return undefined;
    }
  }
  return undefined;
}

function pickRune(ranges: Int32Array, random: () => number): number {
  const printable: number[] = [];
  for (let i = 0; i + 1 < ranges.length; i += 2)
    for (let code = ranges[i]!; code <= ranges[i + 1]! && code < 0x7f; code++)
      if (code >= 0x20) printable.push(code);
  if (printable.length > 0) return printable[Math.floor(random() * printable.length)]!;
  return ranges[0]!;
}

/** A deterministic generator, so that a failure replays. */
export function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}
