/**
 * The one text-table printer of the CLI: `toolwall events`/`calls` and `toolwall scan` print plain
 * columns (kubectl style), the demo prints markdown. Whitespace runs in a cell become one space (a
 * newline would break the row) and a cell wider than its column's limit is cut with "…".
 */
export interface TableOptions {
  /** Widest a column may get: one limit for all, or one per column (default: no limit). */
  maxWidth?: number | readonly number[];
  /** "plain": columns two spaces apart, no trailing blanks; "markdown": a GitHub table. */
  style?: "plain" | "markdown";
}

function cut(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

export function formatTable(rows: readonly (readonly string[])[], options: TableOptions = {}): string {
  if (rows.length === 0) return "";
  const columns = Math.max(...rows.map((row) => row.length));
  const limit = (column: number) =>
    (typeof options.maxWidth === "number" ? options.maxWidth : options.maxWidth?.[column]) ?? Infinity;
  const cells = rows.map((row) =>
    Array.from({ length: columns }, (_, column) =>
      cut((row[column] ?? "").replace(/\s+/g, " "), limit(column)),
    ),
  );
  const widths = Array.from({ length: columns }, (_, column) =>
    Math.max(...cells.map((row) => row[column]!.length)),
  );
  const padded = cells.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)));
  if (options.style === "markdown") {
    const line = (row: string[]) => `| ${row.join(" | ")} |`;
    return [
      line(padded[0]!),
      `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
      ...padded.slice(1).map(line),
    ].join("\n");
  }
  return padded.map((row) => row.join("  ").trimEnd()).join("\n");
}
