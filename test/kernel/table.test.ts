import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatTable } from "../../src/kernel/table.ts";

describe("formatTable", () => {
  it("pads plain columns two spaces apart without trailing blanks", () => {
    expect(
      formatTable([
        ["NAME", "ACTION"],
        ["get_weather", "allow"],
        ["Bash", ""],
      ]),
    ).toBe("NAME         ACTION\nget_weather  allow\nBash");
  });

  it("prints a markdown table", () => {
    expect(
      formatTable(
        [
          ["a", "bb"],
          ["ccc", "d"],
        ],
        { style: "markdown" },
      ),
    ).toBe("| a   | bb |\n|-----|----|\n| ccc | d  |");
  });

  it("cuts cells at the column's limit and keeps rows on one line", () => {
    expect(formatTable([["abcdefgh", "x\ny"]], { maxWidth: [5, 10] })).toBe("abcd…  x y");
    expect(formatTable([["abcdefgh", "abcdefgh"]], { maxWidth: 3 })).toBe("ab…  ab…");
  });

  it("prints nothing for no rows and fills short rows", () => {
    expect(formatTable([])).toBe("");
    expect(formatTable([["a", "b"], ["c"]])).toBe("a  b\nc");
  });

  it("gives every row one line of the same length, whatever the text", () => {
    const rows = fc.array(fc.array(fc.string({ maxLength: 30 }), { minLength: 2, maxLength: 2 }), {
      minLength: 1,
      maxLength: 6,
    });
    fc.assert(
      fc.property(rows, fc.integer({ min: 1, max: 20 }), (table, maxWidth) => {
        const lines = formatTable(table, { maxWidth, style: "markdown" }).split("\n");
        expect(lines).toHaveLength(table.length + 1);
        expect(new Set(lines.map((line) => line.length)).size).toBe(1);
        expect(lines[1]).toMatch(/^\|-+\|-+\|$/);
      }),
    );
  });
});
