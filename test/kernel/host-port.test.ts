import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HostPortError, parseHostPort, splitHostPort } from "../../src/kernel/host-port.ts";

describe("parseHostPort", () => {
  it.each([
    ["127.0.0.1:15020", { host: "127.0.0.1", port: 15020 }],
    ["[::]:15001", { host: "::", port: 15001 }],
    ["[fd00::1]:8443", { host: "fd00::1", port: 8443 }],
    [":8080", { host: "0.0.0.0", port: 8080 }],
    ["localhost:0", { host: "localhost", port: 0 }],
  ])("reads %s", (text, expected) => {
    expect(parseHostPort(text, "0.0.0.0")).toEqual(expected);
  });

  it.each(["15001", "host:", "host:65536", "[nothost]:80", "::1:80", "a b:80", "host:8o", "[::1]", ""])(
    "refuses %j naming it",
    (text) => {
      expect(() => parseHostPort(text, "::")).toThrow(HostPortError);
      expect(() => parseHostPort(text, "::")).toThrow(`'${text}'`);
    },
  );

  it("reads back what it is given, and fails only with a HostPortError", () => {
    const host = fc.oneof(
      fc.ipV4(),
      fc.domain(),
      fc.ipV6().map((address) => `[${address}]`),
    );
    fc.assert(
      fc.property(host, fc.integer({ min: 0, max: 65535 }), (h, port) => {
        const parsed = parseHostPort(`${h}:${port}`, "::");
        expect(parsed.port).toBe(port);
        expect(parsed.host).toBe(h.replace(/^\[|\]$/g, ""));
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (text) => {
        try {
          parseHostPort(text, "::");
        } catch (error) {
          expect(error).toBeInstanceOf(HostPortError);
        }
      }),
    );
  });
});

describe("splitHostPort (the one host[:port] reader: CONNECT authorities, Redis hosts, Host headers)", () => {
  it.each([
    ["api.example.com:443", { host: "api.example.com", port: 443 }],
    ["api.example.com", { host: "api.example.com", port: undefined }],
    ["[fd00::2]:8443", { host: "fd00::2", port: 8443 }],
    ["[fd00::2]", { host: "fd00::2", port: undefined }],
    ["*.example.com:8000", { host: "*.example.com", port: 8000 }],
    [":80", { host: "", port: 80 }],
  ])("reads %s", (text, expected) => {
    expect(splitHostPort(text)).toEqual(expected);
  });

  it.each(["fd00::1", "host:", "host:65536", "[nothost]:80", "a b:80", "host:8o", "[::1]x"])(
    "refuses %j",
    (text) => {
      expect(splitHostPort(text)).toBeUndefined();
    },
  );
});
