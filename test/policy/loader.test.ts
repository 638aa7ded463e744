import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPolicyFiles, PolicyLoadError, parsePolicies } from "../../src/policy/load.ts";
import { renderSpecTypes } from "../../src/policy/spec-types.ts";

const examplesDir = "examples/policies";
const invalidDir = "test/policy/invalid";

describe("policy loader", () => {
  it.each(readdirSync(examplesDir))("accepts the example %s", (file) => {
    const policies = loadPolicyFiles([join(examplesDir, file)]);
    expect(policies.length).toBeGreaterThan(0);
  });

  it.each(readdirSync(invalidDir))("rejects %s at the expected path with the expected reason", (file) => {
    const path = join(invalidDir, file);
    const expected = /^# expect: (.*)$/m.exec(readFileSync(path, "utf8"))?.[1];
    expect(expected, "fixture needs an '# expect: <path>: <message>' line").toBeDefined();
    const [expectedPath, ...message] = expected!.split(": ");
    const { problems } = parsePolicies(readFileSync(path, "utf8"), path);
    expect(problems.length).toBeGreaterThan(0);
    const match = problems.find((p) => p.path === expectedPath);
    expect(match, `problems: ${JSON.stringify(problems)}`).toBeDefined();
    expect(match!.message).toContain(message.join(": "));
    expect(match!.file).toBe(path);
    expect(match!.document).toBe(1);
  });

  it("applies the CRD's defaults, nested ones included", () => {
    const { policies } = parsePolicies(
      "apiVersion: toolwall.io/v1alpha1\nkind: MCPPolicy\nmetadata: {name: p}\nspec: {}\n",
      "f",
    );
    const spec = policies[0]!.spec;
    expect(spec.mode).toBe("Enforce");
    expect(spec.toolPolicy.default).toBe("Allow");
    expect(spec.inspection.detectors).toHaveLength(5);
    expect(spec.inspection.threshold).toBe("High");
    expect(spec.blockMessage).toContain("{tool}");
    expect(policies[0]!.namespace).toBe("default");
  });

  it("names the document of a multi-document file", () => {
    const text =
      "apiVersion: toolwall.io/v1alpha1\nkind: MCPPolicy\nmetadata: {name: ok}\nspec: {}\n---\n" +
      "apiVersion: toolwall.io/v1alpha1\nkind: MCPPolicy\nmetadata: {name: bad}\nspec: {mode: Sometimes}\n";
    const { policies, problems } = parsePolicies(text, "multi.yaml");
    expect(policies.map((p) => p.name)).toEqual(["ok"]);
    expect(problems).toEqual([
      expect.objectContaining({ file: "multi.yaml", document: 2, path: "spec.mode" }),
    ]);
  });

  it("reports YAML syntax errors and duplicate keys instead of guessing", () => {
    const { problems } = parsePolicies("spec: {mode: Audit, mode: Enforce}\n", "dup.yaml");
    expect(problems[0]?.message).toMatch(/YAML/);
  });

  it("refuses the same policy defined twice and names both files", () => {
    const file = join(examplesDir, "audit-mode.yaml");
    expect(() => loadPolicyFiles([file, file])).toThrow(PolicyLoadError);
    try {
      loadPolicyFiles([file, file]);
    } catch (error) {
      expect((error as PolicyLoadError).message).toContain("also defined in");
    }
  });

  it("keeps src/policy/spec.generated.ts in step with the CRD (npm run gen:types)", async () => {
    const { execFileSync } = await import("node:child_process");
    const rendered = await renderSpecTypes();
    const formatted = execFileSync(
      "node_modules/.bin/biome",
      ["format", "--stdin-file-path=src/policy/spec.generated.ts"],
      {
        input: rendered,
        encoding: "utf8",
      },
    );
    expect(formatted).toBe(readFileSync("src/policy/spec.generated.ts", "utf8"));
  });
});
