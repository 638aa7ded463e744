/**
 * Places in an RE2 pattern where `\b` stands next to a letter outside ASCII: RE2's word boundary is
 * ASCII, so `\b(?:übergib|…)` or `заменяет\b` never matches, and the alternative is dead. Reads the
 * pattern's source: a `\b` before a literal or before a group whose alternatives start so, and a `\b`
 * after a literal or a group whose alternatives end so.
 */
export function asciiBoundaryProblems(source: string): string[] {
  const problems: string[] = [];
  for (let at = source.indexOf("\\b"); at !== -1; at = source.indexOf("\\b", at + 2)) {
    if (source[at - 1] === "\\") continue;
    const after = source.slice(at + 2);
    if (startsOutsideAscii(after)) problems.push(`\\b before ${after.slice(0, 12)}`);
    if (after.startsWith("(?:"))
      for (const alternative of alternativesFrom(source, at + 5))
        if (startsOutsideAscii(alternative)) problems.push(`\\b before ${alternative.slice(0, 12)}`);
    const before = source.slice(0, at);
    if (before.endsWith(")")) {
      const open = groupOpening(source, at - 1);
      const body = source.startsWith("(?:", open) ? open + 3 : open + 1;
      for (const alternative of alternativesFrom(source, body))
        if (endsOutsideAscii(alternative)) problems.push(`\\b after ${alternative.slice(-12)}`);
    } else if (endsOutsideAscii(before.slice(-12))) problems.push(`\\b after ${before.slice(-12)}`);
  }
  return problems;
}

function startsOutsideAscii(text: string): boolean {
  return /^(?:\(\?:)*[^\x00-\x7f]/.test(text);
}

/** Ends with a letter outside ASCII, quantifiers and a closing paren aside. */
function endsOutsideAscii(text: string): boolean {
  return /[^\x00-\x7f](?:[?*+]|\{\d*,?\d*\}|\\w\*|\)\??)*$/.test(text);
}

/** The top-level alternatives of the group whose body starts at `body`. */
function alternativesFrom(source: string, body: number): string[] {
  const alternatives: string[] = [];
  let depth = 0;
  let current = "";
  for (let at = body; at < source.length; at++) {
    const char = source[at]!;
    if (char === "\\") {
      current += char + (source[at + 1] ?? "");
      at++;
      continue;
    }
    if (char === "[") {
      const close = source.indexOf("]", at + 2);
      current += source.slice(at, close + 1);
      at = close;
      continue;
    }
    if (char === "(") depth++;
    if (char === ")") {
      if (depth === 0) break;
      depth--;
    }
    if (char === "|" && depth === 0) {
      alternatives.push(current);
      current = "";
      continue;
    }
    current += char;
  }
  alternatives.push(current);
  return alternatives;
}

/** Where the group closed at `close` opens. */
function groupOpening(source: string, close: number): number {
  let depth = 0;
  for (let at = close; at >= 0; at--) {
    if (source[at - 1] === "\\") continue;
    if (source[at] === ")") depth++;
    if (source[at] === "(" && --depth === 0) return at;
  }
  return -1;
}
