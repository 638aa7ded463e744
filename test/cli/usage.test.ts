import { describe, expect, it } from "vitest";
import type { Command } from "../../src/cli/args.ts";
import { commands } from "../../src/cli/commands.ts";

/** Flags a command declares that its usage text never mentions (as --name or as its short -x). */
function undocumented(command: Command): string[] {
  return Object.entries(command.options)
    .filter(([name, spec]) => {
      const long = new RegExp(`--${name}(?![a-z0-9-])`);
      const short = spec.short ? new RegExp(`(^|[\\s\\[(])-${spec.short}(?![a-zA-Z0-9-])`, "m") : undefined;
      return !long.test(command.usage) && !short?.test(command.usage);
    })
    .map(([name]) => name);
}

describe("command usage", () => {
  it.each(commands.map((command) => [command.path.join(" "), command] as const))(
    "toolwall %s documents every flag it takes",
    (_, command) => {
      expect(undocumented(command)).toEqual([]);
    },
  );

  it("names each command once", () => {
    const paths = commands.map((command) => command.path.join(" "));
    expect(new Set(paths).size).toBe(paths.length);
  });

  it("notices an undocumented flag", () => {
    const command: Command = {
      path: ["x"],
      summary: "",
      usage: "Usage: toolwall x [--known]",
      options: {
        known: { type: "boolean" },
        secret: { type: "string" },
        file: { type: "string", short: "f" },
      },
      run: async () => 0,
    };
    expect(undocumented(command)).toEqual(["secret", "file"]);
  });
});
