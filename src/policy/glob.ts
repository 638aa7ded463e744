/**
 * Case-insensitive globs (`*` any run of characters, `?` one character) for tool, server, prompt
 * and host names. Patterns are classified once so that the common shapes cost a string comparison.
 * A matcher takes an already lower-cased candidate, so a name is lower-cased once per decision,
 * not once per rule.
 */
export type GlobMatcher = (lowerCandidate: string) => boolean;

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

/** Matcher over lower-cased candidates; `matchGlob` is the convenience form for one-off use. */
export function compileGlob(pattern: string): GlobMatcher {
  const glob = pattern.toLowerCase();
  if (glob === "*") return () => true;
  if (isLiteralGlob(glob)) return (candidate) => candidate === glob;
  const inner = glob.slice(1, -1);
  if (glob.startsWith("*") && glob.endsWith("*") && isLiteralGlob(inner)) {
    return (candidate) => candidate.includes(inner);
  }
  const head = glob.slice(0, -1);
  if (glob.endsWith("*") && isLiteralGlob(head)) return (candidate) => candidate.startsWith(head);
  const tail = glob.slice(1);
  if (glob.startsWith("*") && isLiteralGlob(tail)) return (candidate) => candidate.endsWith(tail);
  return (candidate) => wildcardMatch(glob, candidate);
}

/** Matches when any of the patterns does. */
export function compileGlobs(patterns: readonly string[]): GlobMatcher {
  const matchers = patterns.map(compileGlob);
  if (matchers.length === 1) return matchers[0]!;
  return (candidate) => matchers.some((match) => match(candidate));
}

export function matchGlob(pattern: string, candidate: string): boolean {
  return compileGlob(pattern)(candidate.toLowerCase());
}

/** A matcher over names as written (any case), for callers outside the hot decision path. */
export function anyGlobMatcher(patterns: readonly string[]): (name: string) => boolean {
  const match = compileGlobs(patterns);
  return (name) => match(name.toLowerCase());
}
