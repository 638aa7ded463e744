import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

async function toolwall(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["bin/toolwall.js", ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("toolwall policy CLI", () => {
  it("policy test prints a deny naming its rule and exits 1", async () => {
    const result = await toolwall(
      "policy",
      "test",
      "-f",
      "examples/policies/deny-delete-everywhere.yaml",
      "--server",
      "github",
      "--tool",
      "delete_repo",
      "--output",
      "json",
    );
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      action: "deny",
      reason: "destructive tools are blocked",
      rule: "agents/no-deletes#toolPolicy.rules[0]",
      mode: "Enforce",
    });
  });

  it("policy test exits 0 on allow and honours --namespace and --labels", async () => {
    const allow = await toolwall(
      "policy",
      "test",
      "-f",
      "examples/policies/two-policies-deny-wins.yaml",
      "--tool",
      "post",
      "--server",
      "slack",
      "--namespace",
      "agents",
      "--labels",
      "app=other",
      "-o",
      "json",
    );
    expect(allow.code).toBe(0);
    expect(JSON.parse(allow.stdout).action).toBe("allow");
    const deny = await toolwall(
      "policy",
      "test",
      "-f",
      "examples/policies/two-policies-deny-wins.yaml",
      "--tool",
      "post",
      "--server",
      "slack",
      "--namespace",
      "agents",
      "--labels",
      "app=research",
      "-o",
      "json",
    );
    expect(deny.code).toBe(1);
  });

  it("policy lint exits 0 on valid files and 2 listing every problem with its path", async () => {
    expect((await toolwall("policy", "lint", "-f", "examples/policies/audit-mode.yaml")).code).toBe(0);
    const bad = await toolwall(
      "policy",
      "lint",
      "test/policy/invalid/bad-enum.yaml",
      "test/policy/invalid/unknown-field.yaml",
    );
    expect(bad.code).toBe(2);
    expect(bad.stdout).toContain("test/policy/invalid/bad-enum.yaml: document 1: spec.mode: must be one of");
    expect(bad.stdout).toContain("spec.toolPolicy.rules[0].tool: unknown field");
  });

  it("gives clear errors for bad JSON, unknown flags and missing flags (exit 2)", async () => {
    const json = await toolwall(
      "policy",
      "test",
      "-f",
      "examples/policies/audit-mode.yaml",
      "--tool",
      "x",
      "--args",
      "{oops",
    );
    expect(json.code).toBe(2);
    expect(json.stderr).toContain("--args is not valid JSON");
    const flag = await toolwall("policy", "lint", "--frobnicate");
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("Unknown option '--frobnicate'");
    const missing = await toolwall("policy", "test", "-f", "examples/policies/audit-mode.yaml");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--tool is required");
  });

  it("has --help on every command", async () => {
    for (const command of [["--help"], ["policy", "lint", "--help"], ["policy", "test", "--help"]]) {
      const result = await toolwall(...command);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/Usage/i);
    }
  });
});
