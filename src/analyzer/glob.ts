/** Case-insensitive glob (`*` any run, `?` one character) compiled once to a RegExp. */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (const char of glob) {
    if (char === "*") source += ".*";
    else if (char === "?") source += ".";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, "is");
}

export function anyGlobMatcher(globs: readonly string[]): (name: string) => boolean {
  const patterns = globs.map(globToRegExp);
  return (name) => patterns.some((p) => p.test(name));
}
