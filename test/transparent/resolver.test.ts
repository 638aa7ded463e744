import { describe, expect, it } from "vitest";
import { parseHostPort } from "../../src/kernel/host-port.ts";
import { Resolver, sameAddress } from "../../src/net/resolver.ts";

describe("Toolwall's own resolution", () => {
  it("answers --resolve overrides, case-insensitively, accumulating repeated names", async () => {
    const resolver = new Resolver([
      "API.example=198.18.0.2",
      "api.example=[fd00:7477::2]",
      "other.example=1.2.3.4,5.6.7.8",
    ]);
    expect(await resolver.resolve("api.example.")).toEqual(["198.18.0.2", "fd00:7477::2"]);
    expect(await resolver.resolve("other.example")).toEqual(["1.2.3.4", "5.6.7.8"]);
    expect(await resolver.resolve("10.0.0.1")).toEqual(["10.0.0.1"]);
  });

  it("keeps system answers for 30 s, then asks again", async () => {
    let now = 0;
    const resolver = new Resolver([], () => now);
    const first = await resolver.resolve("localhost");
    expect(first.length).toBeGreaterThan(0);
    expect(await resolver.resolve("localhost")).toBe(first);
    now += 31_000;
    expect(await resolver.resolve("localhost")).not.toBe(first);
  });

  it("refuses malformed overrides", () => {
    expect(() => new Resolver(["api.example"])).toThrow(/NAME=IP/);
    expect(() => new Resolver(["api.example=not-an-ip"])).toThrow(/NAME=IP/);
  });

  it("serves net's lookup contract (single and all, by family)", async () => {
    const lookup = new Resolver(["dual.example=198.18.0.2,fd00:7477::2"]).lookupFunction();
    const all = await new Promise((resolve) => lookup("dual.example", { all: true }, (_e, a) => resolve(a)));
    expect(all).toEqual([
      { address: "198.18.0.2", family: 4 },
      { address: "fd00:7477::2", family: 6 },
    ]);
    const v6 = await new Promise((resolve) =>
      lookup("dual.example", { family: 6 }, (_e, a, f) => resolve([a, f])),
    );
    expect(v6).toEqual(["fd00:7477::2", 6]);
  });

  it("compares addresses across spellings", () => {
    expect(sameAddress("::ffff:198.18.0.2", "198.18.0.2")).toBe(true);
    expect(sameAddress("FD00:7477:0:0:0:0:0:2", "fd00:7477::2")).toBe(true);
    expect(sameAddress("fd00:7477::2", "fd00:7477::3")).toBe(false);
  });

  it("parses listen addresses", () => {
    expect(parseHostPort("[::]:15001", "::")).toEqual({ host: "::", port: 15001 });
    expect(parseHostPort("127.0.0.1:15020", "::")).toEqual({ host: "127.0.0.1", port: 15020 });
    expect(parseHostPort(":8080", "::")).toEqual({ host: "::", port: 8080 });
    expect(() => parseHostPort("15001", "::")).toThrow(/HOST:PORT/);
  });
});
