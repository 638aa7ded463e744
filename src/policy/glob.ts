/**
 * Case-insensitive globs (`*` any run of characters, `?` one character) for tool, server, prompt
 * and host names. Patterns are classified once so that the common shapes cost a string comparison.
 */
export type GlobMatcher = (candidate: string) => boolean;

export function isLiteralGlob(pattern: string): boolean {
  return !pattern.includes("*") && !pattern.includes("?");
}

/** Iterative wildcard match with one backtrack point: linear for the patterns policies use, never exponential. */
function wildcardMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let starP = -1;
  let starT = 0;
  while (t < text.length) {
    const pc = pattern[p];
    if (pc === "?" || (pc !== undefined && pc !== "*" && pc === text[t])) {
      p++;
      t++;
    } else if (pc === "*") {
      starP = p++;
      starT = t;
    } else if (starP >= 0) {
      p = starP + 1;
      t = ++starT;
    } else {
      return false;
    }
  }
  while (pattern[p] === "*") p++;
  return p === pattern.length;
}

export function compileGlob(pattern: string): GlobMatcher {
  const glob = pattern.toLowerCase();
  if (glob === "*") return () => true;
  if (isLiteralGlob(glob)) return (candidate) => candidate.toLowerCase() === glob;
  const inner = glob.slice(1, -1);
  if (glob.startsWith("*") && glob.endsWith("*") && isLiteralGlob(inner)) {
    return (candidate) => candidate.toLowerCase().includes(inner);
  }
  const head = glob.slice(0, -1);
  if (glob.endsWith("*") && isLiteralGlob(head))
    return (candidate) => candidate.toLowerCase().startsWith(head);
  const tail = glob.slice(1);
  if (glob.startsWith("*") && isLiteralGlob(tail))
    return (candidate) => candidate.toLowerCase().endsWith(tail);
  return (candidate) => wildcardMatch(glob, candidate.toLowerCase());
}

/** Matches when any of the patterns does. */
export function compileGlobs(patterns: readonly string[]): GlobMatcher {
  const matchers = patterns.map(compileGlob);
  if (matchers.length === 1) return matchers[0]!;
  return (candidate) => matchers.some((match) => match(candidate));
}
