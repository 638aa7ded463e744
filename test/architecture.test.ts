/**
 * The module map of docs/architecture.md, enforced. Each folder of src/ has a layer; a folder imports
 * only folders of lower layers. KNOWN_UPWARD is empty: an exception would have to be listed there with
 * its reason, and an entry that no longer exists fails here so the list only shrinks. Edges are read the way /work/shared/tools/import-cycles.mjs
 * reads them (same pattern: value, type and dynamic imports alike), so "no unknown upward edge"
 * means "no cycle that tool would report" once the list is empty.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const src = resolve(import.meta.dirname, "../src");

/** Lower layers first; see docs/architecture.md. */
const LAYERS: Record<string, number> = {
  kernel: 0,
  policy: 1,
  analyzer: 2,
  telemetry: 2,
  tls: 2,
  k8s: 2,
  inspect: 3,
  engine: 4,
  state: 5,
  bundle: 5,
  registry: 6,
  codecs: 7,
  net: 8,
  dialects: 9,
  dataplane: 10,
  runtime: 11,
  controller: 12,
  webhook: 12,
  init: 12,
  demo: 12,
  cli: 13,
};

/** Imports against the map, with why; each is a cycle import-cycles.mjs reports. Keep it empty. */
const KNOWN_UPWARD: Record<string, string> = {};

/** Packages heavy enough (tens of MB, tens of ms) that only the roles using them may load them. */
const HEAVY_PACKAGES = [
  "@bufbuild/cel",
  "@kubernetes/client-node",
  "@modelcontextprotocol/sdk",
  "@peculiar/x509",
  "ajv",
  "fastify",
  "ioredis",
  "koffi",
  "prom-client",
  "re2js",
  "undici",
  "yaml",
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(m?[jt]s)$/.test(name) && !/\.test\./.test(name) ? [path] : [];
  });
}

const files = sourceFiles(src);
const folder = (file: string) =>
  relative(src, file)
    .split("/")[0]!
    .replace(/\.(m?[jt]s)$/, "");
// The pattern of import-cycles.mjs.
const anyImport = /(?:import|export)\s[^'"]*?from\s*["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;

function folderEdges(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of files) {
    for (const match of readFileSync(file, "utf8").matchAll(anyImport)) {
      const target = resolve(dirname(file), (match[1] ?? match[2])!);
      if (!target.startsWith(`${src}/`)) continue;
      const edge = `${folder(file)} -> ${folder(target)}`;
      if (folder(file) === folder(target)) continue;
      edges.set(edge, [...(edges.get(edge) ?? []), relative(src, file)]);
    }
  }
  return edges;
}

/** Imports evaluated when the module is: static, not type-only. */
const staticImport = /^(?:import|export)\s+(?!type\s)(?:[^'"]*?\sfrom\s*)?["']([^"']+)["']/gm;

function staticClosure(entry: string): { modules: Set<string>; packages: Map<string, string> } {
  const modules = new Set<string>();
  const packages = new Map<string, string>();
  const visit = (file: string) => {
    if (modules.has(file)) return;
    modules.add(file);
    for (const match of readFileSync(file, "utf8").matchAll(staticImport)) {
      const specifier = match[1]!;
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier));
      else if (!specifier.startsWith("node:")) packages.set(specifier, relative(src, file));
    }
  };
  visit(entry);
  return { modules, packages };
}

describe("module map (docs/architecture.md)", () => {
  const edges = folderEdges();

  it("gives every folder of src/ a layer", () => {
    const folders = new Set(files.map(folder));
    expect([...folders].filter((name) => !(name in LAYERS))).toEqual([]);
  });

  it("imports only downward, apart from the known edges the refactor removes", () => {
    const upward = [...edges]
      .filter(([edge]) => {
        const [from, to] = edge.split(" -> ") as [string, string];
        return LAYERS[from]! <= LAYERS[to]! && !(edge in KNOWN_UPWARD);
      })
      .map(([edge, where]) => `${edge} (${[...new Set(where)].join(", ")})`);
    expect(upward).toEqual([]);
  });

  it("lists no known edge that is gone (the allow-list only shrinks)", () => {
    expect(Object.keys(KNOWN_UPWARD).filter((edge) => !edges.has(edge))).toEqual([]);
  });

  it("keeps test infrastructure out of src/: nothing in src/ imports test/ or bench/", () => {
    const outside = files.flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(anyImport)]
        .map((match) => resolve(dirname(file), (match[1] ?? match[2])!))
        .filter((target) => !target.startsWith(`${src}/`))
        .map((target) => `${relative(src, file)} -> ${relative(src, target)}`),
    );
    expect(outside).toEqual([]);
  });

  it("keeps fixtures out of src/: the image's build emits none of them", () => {
    const folders = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? [relative(src, path), ...folders(path)] : [];
      });
    expect(folders(src).filter((path) => /(^|\/)fixtures$/.test(path))).toEqual([]);
  });

  it("loads no heavy package when the CLI starts: each command imports its own lazily", () => {
    const { packages } = staticClosure(join(src, "cli/entry.ts"));
    const heavy = [...packages].filter(([name]) =>
      HEAVY_PACKAGES.some((heavyName) => name === heavyName || name.startsWith(`${heavyName}/`)),
    );
    expect(heavy.map(([name, file]) => `${name} (from ${file})`)).toEqual([]);
  });
});

describe("one place for what must agree (the duplicates of issue 11 stay gone)", () => {
  const offending = (pattern: RegExp, except: string) =>
    files
      .filter((file) => relative(src, file) !== except)
      .flatMap((file) =>
        readFileSync(file, "utf8")
          .split("\n")
          .flatMap((line, i) => (pattern.test(line) ? [`${relative(src, file)}:${i + 1}`] : [])),
      );

  it("spells the sidecar's uid and ports only in kernel/mesh.ts", () => {
    expect(offending(/\b(1337|15001|15020)\b/, "kernel/mesh.ts")).toEqual([]);
  });

  it("evicts only through kernel/bounded-map.ts, never by deleting a Map's first key by hand", () => {
    expect(offending(/\.keys\(\)\.next\(\)\.value/, "kernel/bounded-map.ts")).toEqual([]);
  });
});

describe("the checks can fail", () => {
  it("sees a static import of a heavy package and a type-only import as what they are", () => {
    const sample = `import type { X } from "ioredis";\nimport { Y } from "fastify";\nconst z = await import("ajv");\n`;
    expect([...sample.matchAll(staticImport)].map((m) => m[1])).toEqual(["fastify"]);
  });

  it("reads dynamic imports as edges, like import-cycles.mjs", () => {
    const sample = `const { a } = await import("../runtime/local.ts");\nimport { b } from "../state/open.ts";\n`;
    expect([...sample.matchAll(anyImport)].map((m) => m[1] ?? m[2])).toEqual([
      "../runtime/local.ts",
      "../state/open.ts",
    ]);
  });
});
