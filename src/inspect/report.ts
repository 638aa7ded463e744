import { formatTable } from "../kernel/table.ts";
import { HIDDEN_TEXT_RULES } from "./normalize.ts";
import { COMPOUND_RULES, PATTERN_RULES } from "./rules.ts";
import type { Finding, Severity } from "./types.ts";

/** One inspected definition as `toolwall scan` reports it. */
export interface ScannedItem {
  kind: "tool" | "prompt" | "resource";
  server: string;
  name: string;
  findings: Finding[];
}

function entry(item: ScannedItem) {
  return {
    server: item.server,
    name: item.name,
    findings: item.findings.map((f) => ({
      rule: f.rule,
      category: f.category,
      severity: f.severity,
      field: f.field,
      match: f.match,
    })),
  };
}

/**
 * `--output json`: one object, tools in input order. Prompts and resources (only listed from a live
 * server) follow under their own keys, so `tools` keeps exactly the documented shape.
 */
export function toJsonReport(items: readonly ScannedItem[]): string {
  const report: Record<string, ReturnType<typeof entry>[]> = {
    tools: items.filter((i) => i.kind === "tool").map(entry),
  };
  for (const kind of ["prompt", "resource"] as const) {
    const ofKind = items.filter((i) => i.kind === kind);
    if (ofKind.length > 0) report[`${kind}s`] = ofKind.map(entry);
  }
  return `${JSON.stringify(report, null, 2)}\n`;
}

function truncate(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

/** The default human-readable table: one line per finding, `ok` for clean definitions. */
export function toTableReport(items: readonly ScannedItem[], threshold: Severity): string {
  const rows: string[][] = [["SERVER", "NAME", "SEVERITY", "RULE", "FIELD", "MATCH"]];
  for (const item of items) {
    const name = item.kind === "tool" ? item.name : `${item.kind}:${item.name}`;
    if (item.findings.length === 0) rows.push([item.server, name, "ok", "", "", ""]);
    for (const f of item.findings)
      rows.push([item.server, name, f.severity, f.rule, f.field, truncate(f.match, 100)]);
  }
  const lines = formatTable(rows, { maxWidth: [48, 48, 48, 48, 48, 100] }).split("\n");
  const flagged = items.filter((i) => i.findings.length > 0).length;
  lines.push(
    "",
    `${items.length} definition(s) inspected, ${flagged} with findings at or above ${threshold}.`,
  );
  return `${lines.join("\n")}\n`;
}

const SARIF_LEVEL: Record<Severity, "note" | "warning" | "error"> = {
  Low: "note",
  Medium: "warning",
  High: "error",
  Critical: "error",
};

/** `--output sarif`: SARIF 2.1.0 with logical locations `<server>/<name>/<field>`. */
export function toSarifReport(items: readonly ScannedItem[], artifactUri?: string): string {
  const summaries = new Map<string, string>([
    ...PATTERN_RULES.map((r) => [r.id, r.summary] as const),
    ...COMPOUND_RULES.map((r) => [r.id, r.summary] as const),
    ...Object.entries(HIDDEN_TEXT_RULES).map(([id, r]) => [id, r.summary] as const),
    [
      "credential.secret-file-as-value",
      "a secret-bearing file offered as a default, const, enum or example value",
    ],
  ]);
  const ruleIds = [...new Set(items.flatMap((i) => i.findings.map((f) => f.rule)))].sort();
  const results = items.flatMap((item) =>
    item.findings.map((f) => ({
      ruleId: f.rule,
      ruleIndex: ruleIds.indexOf(f.rule),
      level: SARIF_LEVEL[f.severity],
      message: { text: `${item.kind} '${item.name}' on server '${item.server}', ${f.field}: ${f.match}` },
      locations: [
        {
          ...(artifactUri ? { physicalLocation: { artifactLocation: { uri: artifactUri } } } : {}),
          logicalLocations: [
            { name: item.name, fullyQualifiedName: `${item.server}/${item.name}/${f.field}`, kind: "member" },
          ],
        },
      ],
      properties: {
        severity: f.severity,
        category: f.category,
        field: f.field,
        server: item.server,
        kind: item.kind,
      },
    })),
  );
  const sarif = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "toolwall",
            rules: ruleIds.map((id) => ({
              id,
              shortDescription: {
                text: summaries.get(id) ?? (id.startsWith("custom.") ? "custom pattern" : id),
              },
            })),
          },
        },
        results,
      },
    ],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
}
