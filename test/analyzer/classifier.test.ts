import { describe, expect, it } from "vitest";
import { compileClassifier } from "../../src/analyzer/classifier.ts";

describe("tool classifier", () => {
  const classify = compileClassifier();

  it.each([
    ["get_issue", "read"],
    ["Search_Code", "read"],
    ["create_issue", "write"],
    ["send_email", "send"],
    ["HTTP_request", "send"],
    ["execute_command", "compute"],
    ["weather", "unknown"],
    ["mcp__github__list_repos", "read"],
  ])("classifies %s as %s by name", (tool, category) => {
    expect(classify("github", tool)).toBe(category);
  });

  it("lets overrides win, first match first, scoped by server globs", () => {
    const custom = compileClassifier([
      { servers: ["mail*"], tools: ["draft_*"], class: "Send" },
      { tools: ["get_*"], class: "Unknown" },
      { tools: ["get_*"], class: "Write" },
    ]);
    expect(custom("mailer", "draft_message")).toBe("send");
    expect(custom("github", "draft_message")).toBe("unknown");
    expect(custom("github", "get_issue")).toBe("unknown");
    expect(custom("github", "send_x")).toBe("send");
  });
});
