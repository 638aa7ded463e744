import { describe, expect, it } from "vitest";
import { runDemo } from "../../src/demo/run.ts";

describe("toolwall demo", () => {
  it("runs the scripted agent through the proxy and reports allowed and blocked calls", async () => {
    const lines: string[] = [];
    expect(await runDemo((text) => lines.push(text))).toBe(0);
    const output = lines.join("\n");
    expect(output).toContain("stripped by policy: mcp__github__delete_repo");
    expect(output).toMatch(/\| 3 +\| create_issue +\| github +\| .* \| BLOCKED +\| issues may only be filed/);
    expect(output).toContain("6 calls, 3 allowed, 3 blocked.");
  });
});
